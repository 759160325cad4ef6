"""Self-preference: does a judge favour answers written by its own model family?

A judge that scores its own family's answers higher may simply be right (its family
may write better answers). So the experiment compares each judge with the other
judges' view of the same answers: every judge scores every labelled answer, and a
least-squares fit of the scores on the answers' quality, the judges' leniency and an
own-family indicator per judge gives each judge's own-family advantage at once
(:mod:`._self_preference_fit`), with an interval from a bootstrap that resamples
whole questions. No bias is 0. One judge's self-preference does not leak into
another's estimate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fairjudge._errors import ConfigError
from fairjudge.audit._audit_items import AuditItem
from fairjudge.audit._effects import Effect
from fairjudge.audit._experiment import AuditSettings, ExperimentResult, Progress, Scored, score
from fairjudge.audit._judges import AuditJudge, family_of, judge_family
from fairjudge.audit._self_preference_fit import fit_own_family

__all__ = ["self_preference_experiment", "why_no_self_preference"]


def why_no_self_preference(
    judges: Sequence[AuditJudge], items: Sequence[AuditItem]
) -> ConfigError | None:
    """What the input lacks for the experiment (the error asking for it would be), or ``None``."""
    if len(judges) < 2:
        return ConfigError(
            "needs two or more judges (give judge once per judge) to tell self-preference "
            "from the answers' real quality",
            params="judge",
        )
    labelled = {family_of(it.system) for it in items if it.system}
    if len(labelled) < 2:
        return ConfigError(
            "needs answers labelled with the model (family) that wrote them, from two or more "
            "families (a `system` column in items)",
            params="items",
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
    by_answer = [[float(o[i] or 0.0) for o in overall] for i in complete]  # complete: no None
    answer_family = [family_of(labelled[i].system or "") for i in complete]
    clusters = [labelled[i].cluster for i in complete]
    matrix = {
        judge.name: _family_means([row[k] for row in by_answer], answer_family)
        for k, judge in enumerate(judges)
    }
    effects: list[Effect] = []
    span = runs[0].span
    unit = runs[0].unit()
    if by_answer:
        fit = fit_own_family(by_answer, answer_family, families, clusters, **settings.boot())
        for k, (judge, family) in enumerate(zip(judges, families, strict=True)):
            name = f"{judge.name} ({family}): own-family advantage"
            if family not in answer_family:
                effects.append(Effect.missing(name, f"no answer from family {family!r}",
                                              null=0.0, unit=unit, scale=span))  # fmt: skip
                continue
            effects.append(Effect.of(name, fit.deltas[k], fit.cis[k], null=0.0, unit=unit,
                                     scale=span, n=fit.n_answers))  # fmt: skip
        if fit.combined_ci is not None:  # set with the combined sum, and only then
            effects.append(Effect.of("the panel's combined own-family advantage (sum)",
                                     fit.combined, fit.combined_ci, null=0.0, unit=unit,
                                     scale=span, n=fit.n_answers))  # fmt: skip
    else:
        effects.append(Effect.missing("own-family advantage", "no answer was scored by every "
                                      "judge", null=0.0, unit=unit, scale=span))  # fmt: skip
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
    return [judge_family(j, overrides) for j in judges]
