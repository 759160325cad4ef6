"""Adaptive stopping for a panel: the comparison's loop, with the panel's verdict as the score.

Each batch is judged by :func:`~fairjudge.evaluation.evaluate_jury`, so a run over the
whole file gives its result; an item some member could not resolve is bounded, never a tie.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from fairjudge._items import Item, Judgment
from fairjudge.evaluation._adaptive import StopWhen, adaptive_run
from fairjudge.evaluation._adaptive_result import AdaptiveResult, MadeCall
from fairjudge.evaluation._jury import JuryResult, evaluate_jury, jury_result
from fairjudge.evaluation._pairs import ItemLike
from fairjudge.evaluation._panel import AGGREGATIONS, check_rule
from fairjudge.evaluation._results import summarise
from fairjudge.evaluation._settings import EvalSettings
from fairjudge.judges import Jury, MemberUsage, ProgressCallback
from fairjudge.stats import Population

__all__ = ["evaluate_jury_adaptive"]


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
    weight_a, weight_b = (a.calls, b.calls) if a.local else (a.made, b.made)
    latencies = [(lat, w) for lat, w in ((a.latency_s, weight_a), (b.latency_s, weight_b))
                 if lat is not None and w]  # fmt: skip
    total = sum(w for _, w in latencies)
    return MemberUsage(
        calls=a.calls + b.calls,
        made=a.made + b.made,
        cached=a.cached + b.cached,
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cost_usd=None if a.cost_usd is None or b.cost_usd is None else a.cost_usd + b.cost_usd,
        latency_s=math.fsum(lat * w for lat, w in latencies) / total if total else None,
        local=a.local and b.local,
    )


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
