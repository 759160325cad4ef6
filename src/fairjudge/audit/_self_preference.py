"""Self-preference: does a judge favour answers written by its own model family?

A judge that scores its own family's answers higher may simply be right (its family
may write better answers). So the experiment compares each judge with the *other*
judges' view of the same answers: a difference in differences. For judge ``j`` of
family ``f`` and each answer ``i`` that every judge scored, let
``d_i = s_j(i) - mean_{k != j} s_k(i)`` (how much more ``j`` likes the answer than the
rest of the panel). The own-family advantage is ``mean d_i over answers of family f``
minus ``mean d_i over the other answers``, with an interval from a bootstrap that
resamples whole questions. No bias is 0.

The measure is relative to the rest of the panel. With two judges each is measured
against the other, so both show the same number: the pair's combined self-preference
(if only one of them favours itself by 1 point, both read 1). A third judge from
another family tells them apart.

It needs two or more judges and answers labelled with their family (the ``system``
column; a family is the leading letters of the model name, see
:func:`~fairjudge.audit._judges.family_of`). Without them the experiment says what
is missing instead of guessing. Scores are the standard rubric's, overall (the mean
over dimensions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fairjudge.audit._audit_items import AuditItem
from fairjudge.audit._effects import Effect, group_difference
from fairjudge.audit._experiment import AuditSettings, ExperimentResult, Progress, Scored, score
from fairjudge.audit._judges import AuditJudge, family_of

__all__ = ["self_preference_experiment", "why_no_self_preference"]


def why_no_self_preference(judges: Sequence[AuditJudge], items: Sequence[AuditItem]) -> str | None:
    """What the input lacks for the experiment, or ``None`` when it can run."""
    if len(judges) < 2:
        return (
            "needs two or more judges (give --judge once per judge) to tell self-preference "
            "from the answers' real quality"
        )
    labelled = {family_of(it.system) for it in items if it.system}
    if len(labelled) < 2:
        return (
            "needs answers labelled with the model (family) that wrote them, from two or more "
            "families (a `system` column in --items)"
        )
    return None


def _overall(scores: dict[str, float] | None) -> float | None:
    return None if scores is None else sum(scores.values()) / len(scores)


def self_preference_experiment(
    judges: Sequence[AuditJudge],
    families: Sequence[str],
    items: Sequence[AuditItem],
    settings: AuditSettings,
    progress: Progress | None = None,
) -> ExperimentResult:
    """Every judge scores every labelled answer; each judge's own-family advantage."""
    labelled = [it for it in items if it.system]
    questions = [it.question for it in labelled]
    answers = [it.answer for it in labelled]
    refs = [it.reference for it in labelled]
    runs: list[Scored] = [
        score(j.pointwise(settings.rubric), questions, answers, refs, progress) for j in judges
    ]
    overall = [[_overall(s) for s in run.scores] for run in runs]
    complete = [i for i in range(len(labelled)) if all(o[i] is not None for o in overall)]
    table = [[float(o[i] or 0.0) for i in complete] for o in overall]  # complete: no None
    answer_family = [family_of(labelled[i].system or "") for i in complete]
    clusters = [labelled[i].cluster for i in complete]
    matrix: dict[str, dict[str, float]] = {}
    effects: list[Effect] = []
    for k, (judge, family) in enumerate(zip(judges, families, strict=True)):
        mine = table[k]
        others = [table[m] for m in range(len(judges)) if m != k]
        rest = [sum(col) / len(others) for col in zip(*others, strict=True)]
        matrix[judge.name] = _family_means(mine, answer_family)
        name = f"{judge.name} ({family}): own-family advantage"
        unit = runs[k].unit()
        own = [f == family for f in answer_family]
        if not any(own):
            effects.append(Effect.missing(name, f"no answer from family {family!r}", null=0.0,
                                          unit=unit, scale=runs[k].span))  # fmt: skip
            continue
        diffs = [a - b for a, b in zip(mine, rest, strict=True)]
        estimate, ci = group_difference(diffs, own, clusters, **settings.boot())
        effects.append(Effect.of(name, estimate, ci, null=0.0, unit=unit, scale=runs[k].span,
                                 n=len(diffs)))  # fmt: skip
    return ExperimentResult(
        "self-preference", ", ".join(j.name for j in judges), tuple(effects),
        mitigation="a panel of judges from different families (fairjudge jury)",
        n_items=len(complete), n_calls=sum(r.n_calls for r in runs),
        n_failed=sum(r.n_failed for r in runs),
        details={"families": dict(zip([j.name for j in judges], families, strict=True)),
                 "matrix": matrix},
    )  # fmt: skip


def _family_means(values: Sequence[float], families: Sequence[str]) -> dict[str, float]:
    """The mean score a judge gave each answer family."""
    sums: dict[str, list[float]] = {}
    for v, f in zip(values, families, strict=True):
        sums.setdefault(f, []).append(v)
    return {f: sum(v) / len(v) for f, v in sorted(sums.items())}


def judge_families(judges: Sequence[AuditJudge], overrides: Mapping[str, str] | None) -> list[str]:
    """Each judge's family (an override by name or spec, else from its name)."""
    from fairjudge.audit._judges import judge_family

    return [judge_family(j, overrides) for j in judges]
