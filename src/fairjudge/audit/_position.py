"""Position bias: the same pair in both orders, and what the swap leaves.

The metrics come from the very calls ``compare`` makes (a later ``compare`` is free):
first-position share, position consistency, flip rate and preference fairness, each
with an interval (as :func:`fairjudge.stats.position_bias` defines them).
"""

from __future__ import annotations

from collections.abc import Sequence

from fairjudge._items import Call, Item, Judgment
from fairjudge._types import CallError, Order, ParseFailure
from fairjudge.audit._experiment import (
    AuditJudge,
    AuditSettings,
    Effect,
    ExperimentResult,
    Progress,
    judge_pairs,
    paired_effect,
    pairwise_failures,
)
from fairjudge.evaluation import judgment
from fairjudge.stats import position_bias

__all__ = ["FIRST", "position_experiment"]

FIRST = "first-position share of decisive calls"


def _positions(judgments: Sequence[Judgment]) -> tuple[list[str], list[str], list[str]]:
    """Per swapped pair: the original call's verdict, the swapped call's, the question."""
    original: list[str] = []
    swapped: list[str] = []
    clusters: list[str] = []
    for j in judgments:
        by_order = {c.order: c.reply.verdict for c in j.calls}
        o, s = by_order.get(Order.ORIGINAL), by_order.get(Order.SWAPPED)
        if o is None or s is None:
            continue
        original.append(str(o))
        swapped.append(str(s))
        clusters.append(j.item.cluster_key)
    return original, swapped, clusters


def position_experiment(
    judge: AuditJudge,
    name: str,
    pairs: Sequence[Item],
    settings: AuditSettings,
    progress: Progress | None = None,
) -> ExperimentResult:
    """Judge every pair in both orders and measure the judge's lean to a position."""
    result = judge_pairs(
        judge, pairs, settings, name=name, template=settings.template, progress=progress
    )
    original, swapped, clusters = _positions(result.judgments)
    boot = settings.boot()
    n_calls = sum(len(j.calls) for j in result.judgments)
    failed = pairwise_failures(result)
    if not original:
        return ExperimentResult(
            "position", name, (Effect.missing(FIRST, "no pair got both verdicts", null=0.5,
                                              unit="share"),),
            n_items=len(pairs), n_calls=n_calls, n_failed=failed,
        )  # fmt: skip
    bias = position_bias(original, swapped, questions=clusters, **boot)
    decisive = result.first_position_calls
    effects = [
        Effect.of(FIRST, decisive.estimate, decisive.ci, null=0.5, unit="share", n=decisive.n)
        if decisive is not None
        else Effect.missing(FIRST, "no decisive call", null=0.5, unit="share"),
        Effect.of("position consistency", bias.consistency.estimate, bias.consistency.ci,
                  null=1.0, unit="share of pairs", n=bias.n_items),
        Effect.of("flip rate", bias.flip.estimate, bias.flip.ci, null=0.0,
                  unit="share of pairs", n=bias.n_items),
        Effect.of("preference fairness", bias.preference_fairness, bias.preference_fairness_ci,
                  null=0.0, unit="-1 first .. +1 second", scale=2.0, n=bias.n_items),
    ]  # fmt: skip
    residual = _residual(result.judgments, settings)
    return ExperimentResult(
        "position", name, tuple(effects), (residual,), mitigation="the swap (debiased verdicts)",
        n_items=len(pairs), n_calls=n_calls, n_failed=failed,
        details={"pair_counts": {f"{a}/{b}": n for (a, b), n in bias.pair_counts.items()},
                 "pairs": [_pair_record(j) for j in result.judgments]},
    )  # fmt: skip


def _pair_record(j: Judgment) -> dict[str, object]:
    """One pair's verdict in each order, its debiased score and any failure, for the report.

    The per-item view of the effects above: an HTML page lists the pairs the judge
    flipped on, so a reader can see what a position share is made of.
    """
    by_order = {c.order: c.reply for c in j.calls}
    failures = [f"{c.order}: {_why(c.reply.failure)}" for c in j.calls if c.reply.failure]
    it = j.item
    return {
        "id": it.id, "category": it.category, "question": it.question_text,
        "answer_1": it.answer_1, "answer_2": it.answer_2, "model_1": it.model_1,
        "model_2": it.model_2,
        **{str(o): None if (r := by_order.get(o)) is None or r.verdict is None else str(r.verdict)
           for o in (Order.ORIGINAL, Order.SWAPPED)},
        "score": j.score, "failures": failures,
    }  # fmt: skip


def _why(failure: ParseFailure | CallError) -> str:
    if isinstance(failure, ParseFailure):
        return f"no verdict in the reply ({failure.reason})"
    return f"call failed ({failure.kind}: {failure.message})"


def _mirrored(j: Judgment) -> Judgment:
    """The same calls read for the pair given the other way round (no new call).

    The prompt that showed answer 1 first is, for the mirrored pair, the one that shows
    its answer 2 first: each call's order flips, its reply stays.
    """
    flip = {Order.ORIGINAL: Order.SWAPPED, Order.SWAPPED: Order.ORIGINAL}
    calls = tuple(Call(flip[c.order], c.sample, c.reply) for c in j.calls)
    return judgment(j.item.swapped(), calls, j.rule)


def _residual(judgments: Sequence[Judgment], settings: AuditSettings) -> Effect:
    """score(answer 1 | given first) + score(answer 1 | given second) - 1, per pair."""
    diffs: list[float] = []
    clusters: list[str] = []
    for j in judgments:
        m = _mirrored(j)
        if j.score is None or m.score is None:
            continue
        diffs.append(j.score + m.score - 1.0)
        clusters.append(j.item.cluster_key)
    return paired_effect(
        "answer 1's debiased score, given first vs given second", diffs, clusters,
        unit="win rate", scale=1.0, **settings.boot(),
    )  # fmt: skip
