"""Framing bias: the same answers under a standard and a strict-expert prompt.

A judge whose absolute scores move with the wording is safe only for relative uses;
there is no mitigation to measure.
"""

from __future__ import annotations

from collections.abc import Sequence

from fairjudge._items import Item
from fairjudge.audit._audit_items import AuditItem
from fairjudge.audit._experiment import (
    AuditJudge,
    AuditSettings,
    ExperimentResult,
    Progress,
    Scored,
    judge_pairs,
    named_run,
    paired_effect,
    pairwise_failures,
    score,
)
from fairjudge.audit._verbosity import score_differences

__all__ = ["framing_experiment"]


def _rescaled(scored: Scored, onto: Scored) -> Scored:
    """``scored`` mapped linearly onto ``onto``'s scale (itself when the scales match)."""
    if scored.rubric.scale == onto.rubric.scale:
        return scored
    (lo, hi), (to_lo, to_hi) = scored.rubric.scale, onto.rubric.scale
    factor = (to_hi - to_lo) / (hi - lo)
    mapped = [
        None if s is None else {d: to_lo + (v - lo) * factor for d, v in s.items()}
        for s in scored.scores
    ]
    return Scored(onto.rubric, mapped, scored.n_calls, scored.n_failed)


def framing_experiment(
    judge: AuditJudge,
    name: str,
    items: Sequence[AuditItem],
    pairs: Sequence[Item],
    settings: AuditSettings,
    progress: Progress | None = None,
) -> ExperimentResult:
    """Score the same answers under two framings; judge pairs under two templates."""
    answers = [(it, it.answer) for it in items]
    answers += [(it, it.other) for it in items if it.other is not None]
    questions = [it.question for it, _ in answers]
    refs = [it.reference for it, _ in answers]
    texts = [a for _, a in answers]
    clusters = [it.cluster for it, _ in answers]
    with named_run(f"basic run (rubric {settings.rubric})"):
        standard = score(judge.pointwise(settings.rubric), questions, texts, refs, progress)
    with named_run(f"strict run (rubric {settings.strict_rubric})"):
        strict = score(judge.pointwise(settings.strict_rubric), questions, texts, refs, progress)
    n_calls = standard.n_calls + strict.n_calls
    n_failed = standard.n_failed + strict.n_failed
    shared = [d for d in standard.dimensions if d in strict.dimensions]
    if not shared:  # planned away for the built-in judges; another AuditJudge may differ
        return ExperimentResult(
            "framing", name, n_items=len(answers), n_calls=n_calls, n_failed=n_failed,
            skipped=f"rubrics {settings.rubric!r} and {settings.strict_rubric!r} share no "
            "dimension to compare",
        )  # fmt: skip
    effects = score_differences(
        f"{settings.strict_rubric} - {settings.rubric}", standard, _rescaled(strict, standard),
        clusters, settings, dimensions=shared,
    )  # fmt: skip
    if settings.framing_templates is not None:  # then there are pairs: planned so
        first, second = settings.framing_templates
        with named_run(f"pairs under template {first}"):
            a = judge_pairs(judge, pairs, settings, name=name, template=first, progress=progress)
        with named_run(f"pairs under template {second}"):
            b = judge_pairs(judge, pairs, settings, name=name, template=second, progress=progress)
        n_calls += sum(len(j.calls) for r in (a, b) for j in r.judgments)
        n_failed += pairwise_failures(a) + pairwise_failures(b)
        keep = [
            (y.score - x.score, x.item.cluster_key)
            for x, y in zip(a.judgments, b.judgments, strict=True)
            if x.score is not None and y.score is not None
        ]
        effects.append(
            paired_effect(
                f"answer 1's win rate, {second} - {first}",
                [d for d, _ in keep],
                [c for _, c in keep],
                unit="win rate",
                scale=1.0,
                **settings.boot(),
            )
        )
    return ExperimentResult(
        "framing", name, tuple(effects), n_items=len(items), n_calls=n_calls,
        n_failed=n_failed,
        details={"rubrics": [settings.rubric, settings.strict_rubric], "n_answers": len(answers),
                 "templates": list(settings.framing_templates or ())},
    )  # fmt: skip
