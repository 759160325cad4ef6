"""Adaptive stopping: judge questions in batches, stop when the answer is known.

:func:`evaluate_adaptive` judges questions in a seeded random order and, after each
batch, asks the ``stop_when`` rule about an anytime-valid confidence sequence, which
keeps its coverage wherever it stops. One loop (:func:`adaptive_run`) also runs a
panel and ``compare --via-scores``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from fairjudge._errors import ConfigError
from fairjudge._items import Item, Judgment
from fairjudge._protocol import item_seed
from fairjudge._types import OUTCOME_SCORE, never_made
from fairjudge.evaluation._adaptive_result import (
    AdaptiveReason,
    AdaptiveResult,
    AdaptiveSummary,
    AnytimeInterval,
    MadeCall,
)
from fairjudge.evaluation._jury import JuryResult, evaluate_jury, jury_result
from fairjudge.evaluation._panel import AGGREGATIONS, check_rule
from fairjudge.evaluation._results import ItemLike, JudgeLike, PairwiseResult, evaluate, summarise
from fairjudge.evaluation._scores import PointwiseJudgeLike, summarise_scores
from fairjudge.evaluation._settings import EvalSettings
from fairjudge.evaluation._via_scores import (
    ScoredPair,
    ViaScoresResult,
    compare_via_scores,
    via_result,
)
from fairjudge.judges import Jury, MemberUsage, ProgressCallback
from fairjudge.stats import POPULATIONS, Population, StopRule

__all__ = [
    "MIN_BATCH", "AdaptiveBatch", "JudgedItem", "adaptive_run", "check_batch",
    "compare_via_scores_adaptive", "default_batch", "draw_order", "evaluate_adaptive",
    "evaluate_jury_adaptive",
]  # fmt: skip
MIN_BATCH = 8
"""The fewest questions a default batch holds (a look per handful of questions is
plenty: the sequence bets question by question whatever the batch)."""

StopWhen = str | Sequence[str] | StopRule


def _as_items(items: Iterable[ItemLike]) -> list[Item]:
    out = []
    for index, obj in enumerate(items):
        if isinstance(obj, Item):
            out.append(obj)
        elif isinstance(obj, str) or len(obj) != 3:
            raise ConfigError(f"items[{index}] must be an Item or a (question, ans1, ans2) triple")
        else:
            q, a1, a2 = obj
            out.append(Item(question=q, answer_1=a1, answer_2=a2, id=str(index)))
    if not out:
        raise ConfigError("items is empty; need at least one item to judge")
    return out


def draw_order(items: Sequence[Item], seed: int) -> list[list[int]]:
    """The questions in their seeded draw order, each as its items' positions in ``items``.

    A question's place depends only on ``seed`` and its ``cluster_key``, so the order
    is the same on every rerun and when the file is reordered; its items keep their
    input order.
    """
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(item.cluster_key, []).append(i)
    order = sorted(groups, key=lambda key: item_seed(seed, "adaptive order", key))
    return [groups[key] for key in order]


def _concurrency(judge: object) -> int:
    """Calls the judge runs at once: its session's ``concurrency``, capped by its backend."""
    options = getattr(getattr(judge, "session", None), "options", None)
    limit = getattr(options, "concurrency", None)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        return 1  # a Python callable: one call at a time
    cap = getattr(getattr(judge, "backend", None), "max_concurrency", None)
    return min(limit, cap) if isinstance(cap, int) and cap >= 1 else limit


def default_batch(judge: object, rounds: int, n_items: int, n_questions: int) -> int:
    """Questions per batch that make one wave of the judge's concurrency (at least 8).

    Args:
        judge: The judge; a session's ``concurrency`` (and its backend's cap) is read.
        rounds: Calls per item.
        n_items: Items in the file.
        n_questions: Questions in the file.
    """
    calls_per_question = rounds * n_items / n_questions
    return max(MIN_BATCH, math.ceil(_concurrency(judge) / calls_per_question))


def check_batch(batch: int) -> int:
    """``batch``, a whole number of questions >= 1: an adaptive run's, checked once.

    :func:`adaptive_run` checks it, and the front doors before any input is read
    (``fairjudge.compare(batch=)``, ``--batch``).

    Raises:
        ConfigError: Not a whole number (a bool is not one) or below 1; names ``batch``.
    """
    if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
        raise ConfigError(
            f"batch must be a whole number of questions >= 1; got {batch!r}", params="batch"
        )
    return batch


class JudgedItem(Protocol):
    """One judged item as an adaptive run reads it: its unit score and its calls."""

    @property
    def score(self) -> float | None:
        """Model 1's score on the item (``None``: unresolved, bounded, never a tie)."""

    @property
    def calls(self) -> Sequence[MadeCall]:
        """Every call planned for the item (for a panel, every member's)."""


J = TypeVar("J", bound=JudgedItem)
J_co = TypeVar("J_co", bound=JudgedItem, covariant=True)
R = TypeVar("R", bound=AdaptiveSummary)


class AdaptiveBatch(Protocol[J_co]):
    """What judging one batch gives: its items' judgments in order, and a budget stop."""

    @property
    def judgments(self) -> Sequence[J_co]:
        """One per item of the batch, in the batch's order."""

    @property
    def stopped(self) -> str | None:
        """The budget's message when it stopped the batch, else ``None``."""


def _about(rule: StopRule | None, population: Population | None) -> Population:
    """What the run is about: the rule's population, or ``population`` without a rule."""
    if rule is not None:
        return rule.population
    if population is None:
        return "source"
    if population not in POPULATIONS:
        raise ConfigError(
            f"population must be 'source' or 'file'; got {population!r}", params="population"
        )
    return population


def _all_run(unit: Sequence[JudgedItem]) -> bool:
    return not any(never_made(c.reply.failure) for j in unit for c in j.calls)


def evaluate_adaptive(
    judge: JudgeLike,
    items: Iterable[ItemLike],
    settings: EvalSettings,
    stop_when: StopWhen | None,
    *,
    batch: int | None = None,
    progress: ProgressCallback | None = None,
    resolution: int = 2000,
    population: Population | None = None,
) -> AdaptiveResult[PairwiseResult]:
    """Judge questions in a seeded random order, batch by batch, until ``stop_when`` is met.

    Args:
        judge: A seed-style callable or a :class:`fairjudge.judges.BatchJudge`, as for
            :func:`~fairjudge.evaluation.evaluate`. A judge with a store resumes: a
            rerun serves every call it holds.
        items: :class:`fairjudge.Item` objects or ``(question, ans1, ans2)`` triples.
        settings: Rule, rounds, seed (the draw order's too), level (the anytime-valid
            interval's and the bootstrap's) and resamples.
        stop_when: ``"decided"``, ``"width:W"``, both (``"decided,width:0.05"``, a list,
            or a :class:`~fairjudge.stats._confseq.StopRule`); ``None`` judges every
            question, batch by batch, and reports the interval at the end.
        batch: Questions per batch; by default one wave of the judge's concurrency
            (:func:`default_batch`). Both orders of an item, and every item of a
            question, are in the same batch.
        progress: Called with the number of calls as they finish, batch after batch.
        resolution: Grid steps of the interval's bounds (they are exact to
            ``1 / resolution``; the decision at 0.5 is exact).
        population: What the interval and the decision are about: ``"source"``
            (default), the population the questions are drawn from, or ``"file"``,
            this file's questions only. ``None`` takes a
            :class:`~fairjudge.stats._confseq.StopRule`'s own.

    Returns:
        An :class:`AdaptiveResult`: the comparison over the judged items, the
        anytime-valid interval, why the run stopped, and the calls used and saved.

    Raises:
        ConfigError: ``items`` is empty or malformed, or ``stop_when``, ``batch``,
            ``population`` or a setting is invalid; before any call is made.
    """
    one_resample = replace(settings, n_resamples=1)  # each batch's intervals go unread

    def judge_batch(batch_items: list[Item]) -> PairwiseResult:
        return evaluate(judge, batch_items, one_resample, progress=progress)

    def summary(judged: list[Judgment], stopped: str | None) -> PairwiseResult:
        pairwise = summarise(judged, settings)
        return pairwise if stopped is None else replace(pairwise, stopped=stopped)

    return adaptive_run(
        judge_batch, summary, items, settings, stop_when, judge=judge, batch=batch,
        resolution=resolution, population=population,
    )  # fmt: skip


def adaptive_run(
    judge_batch: Callable[[list[Item]], AdaptiveBatch[J]],
    summary: Callable[[list[J], str | None], R],
    items: Iterable[ItemLike],
    settings: EvalSettings,
    stop_when: StopWhen | None,
    *,
    judge: object,
    members: int = 1,
    batch: int | None = None,
    resolution: int = 2000,
    population: Population | None = None,
) -> AdaptiveResult[R]:
    """The adaptive loop, whatever judges a batch and whatever summarises the judged items.

    :func:`evaluate_adaptive` (one judge) and
    :func:`~fairjudge.evaluation._adaptive.evaluate_jury_adaptive` (a panel) are
    this loop with their own two steps; the order, the batches, the interval, the
    stop and the budget are the same for both.

    Args:
        judge_batch: Judges a batch's items (a question's items together) and returns
            one judged item per item, in order, with the batch's budget stop.
        summary: The result over every judged item, in input order, given the
            budget's message when a budget stopped the run.
        items: Items or ``(question, ans1, ans2)`` triples.
        settings: Rule, rounds, seed, level and resamples (see :func:`evaluate_adaptive`).
        stop_when: The stop rule, parsed by :meth:`StopRule.parse`; ``None`` judges every
            question.
        judge: What :func:`default_batch` reads the concurrency of.
        members: Judges answering each planned call (a panel's size; 1 otherwise).
        batch: Questions per batch; by default :func:`default_batch`.
        resolution: Grid steps of the interval's bounds (exact to ``1 / resolution``).
        population: ``"source"`` or ``"file"``, what the interval is about; ``None``
            takes the stop rule's own.

    Raises:
        ConfigError: ``items`` is empty or malformed, or ``stop_when``, ``batch`` or
            ``population`` is invalid; before any call is made.
    """
    rule = None if stop_when is None else StopRule.parse(stop_when, population)
    about = _about(rule, population)
    item_list = _as_items(items)
    order = draw_order(item_list, settings.seed)
    size = (
        check_batch(batch)
        if batch is not None
        else default_batch(judge, settings.rounds * members, len(item_list), len(order))
    )
    interval = AnytimeInterval.start(
        len(order), level=settings.level, resolution=resolution, about=about
    )
    judged: dict[int, J] = {}
    reason: AdaptiveReason = "complete"
    stopped: str | None = None
    for start in range(0, len(order), size):
        questions = order[start : start + size]
        positions = [i for question in questions for i in question]
        result = judge_batch([item_list[i] for i in positions])
        by_position = dict(zip(positions, result.judgments, strict=True))
        judged.update(by_position)
        units = [[by_position[i] for i in question] for question in questions]
        if result.stopped is not None:
            ran: list[list[J]] = list(itertools.takewhile(_all_run, units))
            interval = interval.update(ran)
            reason, stopped = "budget", result.stopped
            break
        interval = interval.update(units)
        why = rule.reason(interval.for_rule()) if rule is not None else None
        if why is not None:
            reason = why
            break
    done = [judged[i] for i in sorted(judged)]
    return AdaptiveResult(
        pairwise=summary(done, stopped),
        interval=interval,
        reason=reason,
        stop_when=rule,
        batch=min(size, len(order)),
        n_items_total=len(item_list),
        rounds=settings.rounds,
        item_calls=tuple(tuple(j.calls) for j in done),
        members=members,
    )


@dataclass(frozen=True, slots=True)
class _PanelItem:
    """One item as the panel judged it: the panel's score, and every member's judgment."""

    score: float | None
    own: tuple[Judgment, ...]

    @property
    def calls(self) -> Sequence[MadeCall]:
        """Every member's calls for the item, member after member."""
        return [c for j in self.own for c in j.calls]


@dataclass(frozen=True, slots=True)
class _PanelBatch:
    judgments: tuple[_PanelItem, ...]
    stopped: str | None
    usage: tuple[MemberUsage, ...]


def _batch(result: JuryResult) -> _PanelBatch:
    rows = zip(*(m.judgments for m in result.members), strict=True)
    judged = tuple(
        _PanelItem(panel.score if panel.outcome is not None else None, tuple(own))
        for panel, own in zip(result.judgments, rows, strict=True)
    )
    return _PanelBatch(judged, result.stopped, result.usage)


def _add_usage(a: MemberUsage, b: MemberUsage) -> MemberUsage:
    """One member's usage over two batches (latency weighted by the calls it averages)."""
    weight_a, weight_b = (a.calls, b.calls) if a.local else (a.made or 0, b.made or 0)
    latencies = [(lat, w) for lat, w in ((a.latency_s, weight_a), (b.latency_s, weight_b))
                 if lat is not None and w]  # fmt: skip
    total = sum(w for _, w in latencies)
    return MemberUsage(
        calls=a.calls + b.calls,
        made=_add_count(a.made, b.made),
        cached=_add_count(a.cached, b.cached),
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cost_usd=None if a.cost_usd is None or b.cost_usd is None else a.cost_usd + b.cost_usd,
        latency_s=math.fsum(lat * w for lat, w in latencies) / total if total else None,
        local=a.local and b.local,
        reasoning_tokens=_add_count(a.reasoning_tokens, b.reasoning_tokens),  # None: unreported
    )


def _add_count(a: int | None, b: int | None) -> int | None:
    """Two batches' made (or cached) calls, or reasoning tokens; ``None`` stays ``None``.

    ``None`` is a replay's made and cached calls (it makes none), or reasoning tokens
    a reply did not report.
    """
    return None if a is None or b is None else a + b


def evaluate_jury_adaptive(
    jury: Jury,
    items: Iterable[ItemLike],
    settings: EvalSettings,
    stop_when: StopWhen | None,
    *,
    aggregation: str = "majority",
    batch: int | None = None,
    progress: ProgressCallback | None = None,
    resolution: int = 2000,
    population: Population | None = None,
) -> AdaptiveResult[JuryResult]:
    """A panel judges questions in a seeded random order, batch by batch, until ``stop_when``.

    Args:
        jury: The panel (see :func:`~fairjudge.evaluation.evaluate_jury`).
        items: Items or ``(question, ans1, ans2)`` triples.
        settings: Rule, rounds, seed, level and resamples (see
            :func:`~fairjudge.evaluation.evaluate_adaptive`).
        stop_when: ``"decided"``, ``"width:W"`` or both (see
            :func:`~fairjudge.evaluation.evaluate_adaptive`); ``None`` judges every question.
        aggregation: ``"majority"`` or ``"mean"``: the panel's verdict, and so each
            item's unit score.
        batch: Questions per batch; by default one wave of the panel's concurrency
            (every member's calls count).
        progress: Called with the number of calls as they finish (members x calls).
        resolution: Grid steps of the interval's bounds (exact to ``1 / resolution``).
        population: ``"source"`` or ``"file"``, what the interval is about (see
            :func:`~fairjudge.evaluation.evaluate_adaptive`).

    Returns:
        An :class:`~fairjudge.evaluation.AdaptiveResult` whose ``pairwise`` is the
        panel's :class:`~fairjudge.evaluation.JuryResult` over the judged items.

    Raises:
        ConfigError: The panel or ``aggregation`` is invalid, or ``items``,
            ``stop_when``, ``batch`` or ``population`` is; before any call.
    """
    rule = check_rule(aggregation, AGGREGATIONS)
    one_resample = replace(settings, n_resamples=1)  # each batch's intervals go unread
    usage: list[tuple[MemberUsage, ...]] = []

    def judge_batch(batch_items: list[Item]) -> _PanelBatch:
        result = _batch(
            evaluate_jury(jury, batch_items, one_resample, aggregation=rule, progress=progress)
        )
        usage.append(result.usage)
        return result

    def summary(judged: list[_PanelItem], stopped: str | None) -> JuryResult:
        members = tuple(
            replace(summarise([row.own[k] for row in judged], settings), stopped=stopped)
            for k in range(len(jury.names))
        )
        added = [u for u in usage if len(u) == len(jury.names)]
        total = tuple(
            _sum_usage([u[k] for u in added]) for k in range(len(jury.names))
        ) if added else ()  # fmt: skip
        return jury_result(jury.names, jury.weights, rule, members, stopped, total)

    return adaptive_run(
        judge_batch, summary, items, settings, stop_when, judge=jury,
        members=len(jury.names), batch=batch, resolution=resolution,
        population=population,
    )  # fmt: skip


def _sum_usage(batches: list[MemberUsage]) -> MemberUsage:
    total = batches[0]
    for more in batches[1:]:
        total = _add_usage(total, more)
    return total


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
