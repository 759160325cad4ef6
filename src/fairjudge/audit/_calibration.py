"""Calibration: how far a judge agrees with human labels, before it is trusted at scale.

Run it on 20-300 human-labelled items. It reports MT-Bench agreement (S1 with ties,
S2 without), Cohen's kappa and the confusion matrix for labels; Spearman and Kendall
with CIs and a pass/fail gate for scores; system-level rank correlation when the
items name their systems; and the judge's position-bias figures. A figure the data
cannot support is left out with the reason, never printed as ``nan``.
"""

from __future__ import annotations

from typing import Any

from fairjudge._errors import InputError
from fairjudge._items import Item
from fairjudge._types import Order
from fairjudge.evaluation import PairwiseResult

__all__ = ["calibration_report", "check_labels"]


def check_labels(items: list[Item]) -> None:
    unlabelled = [it.id for it in items if it.human is None and it.human_score is None]
    if unlabelled:
        raise InputError(
            f"{len(unlabelled)} item(s) have neither 'human' (1/2/tie) nor 'human_score' "
            f"(first: id {unlabelled[0]!r}); calibration needs a human label on every item"
        )


def calibration_report(result: PairwiseResult, *, min_spearman: float = 0.7) -> dict[str, Any]:
    """Agreement, correlation, system-level and position-bias figures for one run.

    The bootstrap seed, level and resample count are the result's own settings.
    Keys: ``n_items``, ``n_resolved``, ``n_unresolved``, ``rounds``, and each figure
    that the data allows (``agreement``, ``system``, ``correlation``,
    ``position_bias``); ``skipped`` maps each figure left out to the reason.
    """
    from fairjudge.stats import (  # scipy: load only when used
        judge_agreement,
        position_bias,
        score_correlation,
        system_agreement,
    )

    done = [j for j in result.judgments if j.outcome is not None]
    skipped: dict[str, str] = {}
    report: dict[str, Any] = {
        "n_items": result.n_items,
        "n_resolved": len(done),
        "n_unresolved": result.n_unresolved,
        "rounds": result.settings.rounds,
        "skipped": skipped,
    }
    s = result.settings
    boot: dict[str, Any] = {"seed": s.seed, "n_resamples": s.n_resamples, "level": s.level}
    labelled = [j for j in done if j.item.human is not None]
    if labelled:
        agreement = judge_agreement(
            [j.outcome.value for j in labelled if j.outcome is not None],
            [j.item.human.value for j in labelled if j.item.human is not None],
            questions=[j.item.cluster_key for j in labelled],
            **boot,
        )
        report["agreement"] = agreement
        systems = [j for j in labelled if j.item.model_1 and j.item.model_2]
        names = {m for j in systems for m in (j.item.model_1, j.item.model_2)}
        if len(names) >= 3:
            try:
                report["system"] = system_agreement(
                    [j.item.model_1 or "" for j in systems],
                    [j.item.model_2 or "" for j in systems],
                    [j.outcome.value for j in systems if j.outcome is not None],
                    [j.item.human.value for j in systems if j.item.human is not None],
                    questions=[j.item.cluster_key for j in systems],
                    l2=0.1,
                    **boot,
                )
            except InputError as exc:
                skipped["system"] = str(exc)
        else:
            skipped["system"] = (
                f"needs items naming at least 3 systems (model_1/model_2); found {len(names)}"
            )
    else:
        skipped["agreement"] = "no resolved item has a 'human' label (1/2/tie)"
    scored = [j for j in done if j.item.human_score is not None and j.score is not None]
    judge_scores = {j.score for j in scored}
    human_scores = {j.item.human_score for j in scored}
    if len(scored) < 3:
        skipped["correlation"] = f"needs 3 or more items with 'human_score'; have {len(scored)}"
    elif len(judge_scores) < 2 or len(human_scores) < 2:
        constant = "the judge's" if len(judge_scores) < 2 else "the human"
        skipped["correlation"] = (
            f"{constant} scores never vary ({len(scored)} items), so no rank correlation "
            "can be estimated; the gate is not applied"
        )
    else:
        report["correlation"] = score_correlation(
            [j.score for j in scored if j.score is not None],
            [j.item.human_score for j in scored if j.item.human_score is not None],
            min_spearman=min_spearman,
            questions=[j.item.cluster_key for j in scored],
            **boot,
        )
    two_orders = [j for j in done if j.both_orders]
    if not two_orders:
        skipped["position_bias"] = "no item was judged in both orders (--rounds 1)"
    else:
        report["position_bias"] = position_bias(
            [
                [
                    c.reply.verdict.value
                    for c in j.calls
                    if c.order is Order.ORIGINAL and c.reply.verdict is not None
                ]
                for j in two_orders
            ],
            [
                [
                    c.reply.verdict.value
                    for c in j.calls
                    if c.order is Order.SWAPPED and c.reply.verdict is not None
                ]
                for j in two_orders
            ],
            questions=[j.item.cluster_key for j in two_orders],
            **boot,
        )
    return report
