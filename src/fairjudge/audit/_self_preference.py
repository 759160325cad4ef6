"""Self-preference: does a judge favour answers written by its own model family?

Every judge scores every labelled answer; a least-squares fit of the scores on the
answers' quality, the judges' leniency and an own-family indicator per judge gives
each judge's own-family advantage at once, with a bootstrap over whole questions.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fairjudge._errors import ConfigError
from fairjudge.audit._audit_items import AuditItem
from fairjudge.audit._experiment import (
    AuditJudge,
    AuditSettings,
    Effect,
    ExperimentResult,
    Progress,
    Scored,
    family_of,
    judge_family,
    score,
)
from fairjudge.stats import ConfidenceInterval, did_not_vary

__all__ = ["OwnFamilyFit", "fit_own_family", "self_preference_experiment", "why_no_self_preference"]


@dataclass(frozen=True, slots=True)
class OwnFamilyFit:
    """The fitted own-family advantages.

    Attributes:
        deltas: Per judge, its advantage, or ``None`` where not identifiable.
        cis: Per judge, its interval (not estimable where the delta is ``None``).
        combined: ``sum(delta)`` over the judges, when the judges' own shares are not
            all identifiable but their sum is; else ``None``.
        combined_ci: Its interval.
        n_answers: Answers every judge scored.
    """

    deltas: tuple[float | None, ...]
    cis: tuple[ConfidenceInterval, ...]
    combined: float | None
    combined_ci: ConfidenceInterval | None
    n_answers: int


def _design(
    table: np.ndarray, answer_family: Sequence[str], judge_family: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Rows (answer, judge): the centred score, and [leniency | own-family] columns."""
    n, j = table.shape
    own = np.array([[a == f for f in judge_family] for a in answer_family], dtype=np.float64)
    eye = np.eye(j)
    x_b = np.repeat((eye - 1.0 / j)[None, :, :], n, axis=0)  # (n, j, j)
    x_d = own[:, :, None] * eye[None, :, :] - own[:, None, :] / j  # (n, j, j)
    x = np.concatenate([x_b, x_d], axis=2).reshape(n * j, 2 * j)
    y = (table - table.mean(axis=1, keepdims=True)).reshape(n * j)
    return x, y


def _null_space(x: np.ndarray) -> np.ndarray:
    """Rows spanning the null space of ``x`` (numerical rank cut as in ``matrix_rank``).

    The design is always rank-deficient (the leniencies sum to zero after centring);
    a fixed cutoff such as ``pinv``'s ``rcond=1e-15`` takes the round-off singular
    value for a real one once there are a few hundred answers.
    """
    rows, cols = x.shape
    padded = np.vstack([x, np.zeros((max(0, cols - rows), cols))])  # same null space
    _, s, vt = np.linalg.svd(padded, full_matrices=False)  # vt: (cols, cols)
    cut = s[0] * max(rows, cols) * np.finfo(np.float64).eps
    null: np.ndarray = vt[s <= cut]
    return null


def _identified(null: np.ndarray, vector: np.ndarray) -> bool:
    """Whether ``vector @ theta`` is the same for every least-squares solution.

    It is when ``vector`` is orthogonal to the null space of the design.
    """
    return bool(np.allclose(null @ vector, 0.0, atol=1e-6))


def fit_own_family(
    table: Sequence[Sequence[float]],
    answer_family: Sequence[str],
    judge_family: Sequence[str],
    clusters: Sequence[Hashable],
    *,
    seed: int,
    level: float,
    n_resamples: int,
) -> OwnFamilyFit:
    """Fit every judge's own-family advantage, with question-bootstrap intervals.

    Args:
        table: Per answer (rows), each judge's score (columns); complete rows only.
        answer_family: The family of each answer.
        judge_family: The family of each judge.
        clusters: The question of each answer (resampled together).
        seed: Bootstrap seed.
        level: Confidence level.
        n_resamples: Bootstrap resamples.
    """
    scores = np.asarray(table, dtype=np.float64)
    n, j = scores.shape
    x, y = _design(scores, answer_family, judge_family)
    unit = np.eye(2 * j)[j:]  # rows pick delta_k
    null = _null_space(x)
    ok = [_identified(null, unit[k]) for k in range(j)]
    total = unit.sum(axis=0)
    want_total = not all(ok) and _identified(null, total)
    theta = np.linalg.lstsq(x, y, rcond=None)[0]
    index: dict[Hashable, int] = {}
    row_cluster = np.repeat([index.setdefault(c, len(index)) for c in clusters], j)
    k = len(index)
    draws: list[np.ndarray] = []
    if k >= 2:
        rng = np.random.default_rng(seed)
        counts = rng.multinomial(k, np.full(k, 1.0 / k), size=n_resamples)
        for c in counts:
            w = np.sqrt(c[row_cluster].astype(np.float64))
            draws.append(np.linalg.lstsq(x * w[:, None], y * w, rcond=None)[0])
    alpha = (1 - level) / 2

    def interval(vector: np.ndarray) -> ConfidenceInterval:
        if not draws:
            return ConfidenceInterval.not_estimable("a single question", level)
        values = np.array([d @ vector for d in draws])
        if did_not_vary(values):  # the scores fit the model exactly: every resample alike
            why = "every resampled fit gives the same advantage: the scores fit the model exactly"
            return ConfidenceInterval.alike_point(float(values[0]), level, why)
        low, high = np.quantile(values, [alpha, 1 - alpha])
        return ConfidenceInterval(float(low), float(high), level)

    why = (
        "not identifiable: this judge is only ever compared with judges whose families "
        "wrote the other answers; add a judge from another family, or answers from a "
        "family outside the panel"
    )
    deltas = tuple(float(theta @ unit[m]) if ok[m] else None for m in range(j))
    cis = tuple(
        interval(unit[m]) if ok[m] else ConfidenceInterval.not_estimable(why, level)
        for m in range(j)
    )
    combined = float(theta @ total) if want_total else None
    return OwnFamilyFit(deltas, cis, combined, interval(total) if want_total else None, n)


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
