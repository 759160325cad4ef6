"""Adaptive stopping for ``compare --via-scores``: each answer scored alone, batch by batch.

Each batch is judged by :func:`~fairjudge.evaluation.compare_via_scores`, so a run
over the whole file gives its result; an unscored item is bounded, never a tie.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from fairjudge._items import Item
from fairjudge._types import OUTCOME_SCORE
from fairjudge.evaluation._adaptive import StopWhen, adaptive_run
from fairjudge.evaluation._adaptive_result import AdaptiveResult, MadeCall
from fairjudge.evaluation._scores import PointwiseJudgeLike, summarise_scores
from fairjudge.evaluation._settings import EvalSettings
from fairjudge.evaluation._via_scores import (
    ScoredPair,
    ViaScoresResult,
    compare_via_scores,
    via_result,
)
from fairjudge.stats import Population

__all__ = ["compare_via_scores_adaptive"]


@dataclass(frozen=True, slots=True)
class _PairItem:
    """One item as scored: its outcome's score, and both answers' calls."""

    pair: ScoredPair

    @property
    def score(self) -> float | None:
        """Model 1's score on the item (``None``: a dimension unscored)."""
        outcome = self.pair.outcome
        return None if outcome is None else OUTCOME_SCORE[outcome]

    @property
    def calls(self) -> Sequence[MadeCall]:
        """Both answers' calls."""
        return [*self.pair.first.scored.calls, *self.pair.second.scored.calls]


@dataclass(frozen=True, slots=True)
class _PairBatch:
    judgments: tuple[_PairItem, ...]
    stopped: str | None


def compare_via_scores_adaptive(
    judge: PointwiseJudgeLike,
    items: Sequence[Item],
    settings: EvalSettings,
    stop_when: StopWhen | None,
    *,
    tie_margin: float = 0.0,
    calls_per_answer: int = 1,
    batch: int | None = None,
    progress: Callable[[int], None] | None = None,
    resolution: int = 2000,
    population: Population | None = None,
) -> AdaptiveResult[ViaScoresResult]:
    """Score both answers of each question's items in a seeded order until ``stop_when``.

    Args:
        judge: A pointwise judge or ``judge(question, answer) -> {dimension: int}``,
            as for :func:`~fairjudge.evaluation.compare_via_scores`.
        items: The items.
        settings: Seed (the draw order's and the bootstrap's), level and resamples;
            the rule and rounds do not apply.
        stop_when: ``"decided"``, ``"width:W"`` or both (see
            :func:`~fairjudge.evaluation.evaluate_adaptive`); ``None`` scores every question.
        tie_margin: A score difference of at most this is a tie (>= 0).
        calls_per_answer: Calls the judge makes per answer (1; the rubric's
            dimensions in label mode), for the default batch and the calls saved.
        batch: Questions per batch; by default one wave of the judge's concurrency.
        progress: Called with the number of calls just finished.
        resolution: Grid steps of the interval's bounds (exact to ``1 / resolution``).
        population: ``"source"`` or ``"file"``, what the interval is about (see
            :func:`~fairjudge.evaluation.evaluate_adaptive`).

    Returns:
        An :class:`~fairjudge.evaluation.AdaptiveResult` whose ``pairwise`` is the
        :class:`~fairjudge.evaluation.ViaScoresResult` over the judged items.

    Raises:
        ConfigError: The judge, ``tie_margin``, ``items``, ``stop_when``, ``batch``
            or ``population`` is invalid; before any call.
    """
    seed, level = settings.seed, settings.level
    last: list[ViaScoresResult] = []

    def judge_batch(batch_items: list[Item]) -> _PairBatch:
        result = compare_via_scores(
            judge, batch_items, tie_margin=tie_margin, seed=seed, level=level, n_resamples=1,
            progress=progress,
        )  # fmt: skip
        last.append(result)
        return _PairBatch(tuple(_PairItem(p) for p in result.pairs), result.stopped)

    def summary(judged: list[_PairItem], stopped: str | None) -> ViaScoresResult:
        scores = last[-1].scores
        answers = [a for it in judged for a in (it.pair.first, it.pair.second)]
        summed = summarise_scores(
            answers, scores.rubric, collapse=scores.collapse_rule, judge=scores.judge,
            seed=seed, level=level, n_resamples=settings.n_resamples,
        )  # fmt: skip
        summed = summed if stopped is None else replace(summed, stopped=stopped)
        return via_result([it.pair.item for it in judged], summed, tie_margin)

    per_answer = replace(settings, rounds=calls_per_answer)  # calls per "member" below
    return adaptive_run(
        judge_batch, summary, items, per_answer, stop_when, judge=judge, members=2,
        batch=batch, resolution=resolution,
        population=population,
    )  # fmt: skip
