"""Calibration of a pointwise judge: its rubric scores against human scores.

Per dimension with human scores: Spearman and Kendall with intervals clustered by
question, and a gate at Spearman >= ``min_spearman``; a figure the data cannot
support is left out with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from fairjudge._errors import InputError
from fairjudge._items import ScoreItem
from fairjudge.audit._calibration import MIN_SPEARMAN
from fairjudge.evaluation import ScoreResult, human_agreement
from fairjudge.stats import (
    CorrelationResult,
    FloatArray,
    RankCorrelation,
    correlation_fields,
    plan_bootstrap,
    rank_corr_rows,
)

__all__ = [
    "DimensionCalibration",
    "ScoreCalibration",
    "SystemScoreAgreement",
    "check_score_labels",
    "score_calibration_report",
    "system_score_agreement",
]


def check_score_labels(items: Sequence[ScoreItem]) -> None:
    """Every item must carry a human score on some dimension.

    Raises:
        InputError: Items without a ``human_<dimension>`` score; names the first.
    """
    unlabelled = [it.id for it in items if not it.human]
    if unlabelled:
        # A file with no human score at all was most likely meant for scoring, not
        # for checking the judge against people: say where it belongs.
        # Some scored, some not (a merge's unsettled disagreements, most often): a
        # person scores the rest on the sheet.
        hint = (
            "; to score answers that have none, run fairjudge score FILE "
            "(fairjudge.score in Python)"
            if len(unlabelled) == len(items)
            else "; score them with fairjudge label FILE [rubric=NAME], on the rubric the "
            "others were scored on"
        )
        raise InputError(
            f"{len(unlabelled)} item(s) have no human_<dimension> score (first: id "
            f"{unlabelled[0]!r}); calibration needs a human score on every item{hint}",
            params=() if len(unlabelled) == len(items) else ("rubric",),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SystemScoreAgreement(RankCorrelation):
    """Does the judge rank the systems as the humans do, on one dimension?

    ``spearman`` and ``kendall`` correlate the systems' mean judge scores with their
    mean human scores; the intervals resample questions.

    Attributes:
        judge_means: ``(system, mean judge score)``, best first.
        human_means: ``(system, mean human score)``, in the same order.
        n_systems: Systems compared.
        n_items: Answers with both a judge and a human score.
    """

    judge_means: tuple[tuple[str, float], ...]
    human_means: tuple[tuple[str, float], ...]
    n_systems: int
    n_items: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        human = dict(self.human_means)
        return {
            **self.correlation_dict(),
            "systems": [
                {"system": s, "judge_mean": j, "human_mean": human[s]} for s, j in self.judge_means
            ],
            "n_systems": self.n_systems,
            "n_items": self.n_items,
        }


def system_score_agreement(
    systems: Sequence[str],
    judge: Sequence[float],
    human: Sequence[float],
    questions: Sequence[str],
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 1000,
) -> SystemScoreAgreement:
    """Rank correlation of the systems' mean judge and human scores, questions resampled.

    A system with no answer in a resample keeps its full-data mean there.

    Raises:
        InputError: Fewer than 3 systems.
    """
    names = list(dict.fromkeys(systems))
    if len(names) < 3:
        raise InputError(f"{len(names)} systems; a system-level correlation needs at least 3")
    plan = plan_bootstrap(
        len(systems), {"questions": questions, "seed": seed, "level": level,
                       "n_resamples": n_resamples},
    )  # fmt: skip
    cells = (plan.clusters, np.array([names.index(s) for s in systems]))
    counts, sums = np.zeros((plan.n_clusters, len(names))), []
    np.add.at(counts, cells, 1.0)
    for values in (judge, human):
        sums.append(np.zeros_like(counts))
        np.add.at(sums[-1], cells, np.asarray(values, dtype=np.float64))

    def means(draws: FloatArray, fallback: Sequence[FloatArray] = ()) -> list[FloatArray]:
        n = draws @ counts
        with np.errstate(invalid="ignore", divide="ignore"):
            out = [(draws @ s) / n for s in sums]
        if not fallback:
            return out
        return [np.where(n > 0, m, f) for m, f in zip(out, fallback, strict=True)]

    point = [m[0] for m in means(np.ones((1, plan.n_clusters)))]
    boot = []
    for draws in plan.draws(plan.n_clusters + 4 * len(names)):
        judge_means, human_means = means(draws, point)
        boot.append(rank_corr_rows(judge_means, human_means))
    order = sorted(range(len(names)), key=lambda i: (-point[0][i], names[i]))
    return SystemScoreAgreement(
        **correlation_fields(rank_corr_rows(point[0][None], point[1][None])[0],
                             np.concatenate(boot), plan),
        judge_means=tuple((names[i], float(point[0][i])) for i in order),
        human_means=tuple((names[i], float(point[1][i])) for i in order),
        n_systems=len(names),
        n_items=len(systems),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class DimensionCalibration:
    """One dimension's agreement with the human scores.

    Attributes:
        dimension: The dimension.
        n: Answers with both a judge score and a human score on it.
        correlation: Spearman and Kendall with CIs and the gate; ``None`` when not
            estimable (see ``skipped``).
        system: The system-level correlation, when three or more systems.
        skipped: Figure -> why it was left out.
    """

    dimension: str
    n: int
    correlation: CorrelationResult | None
    system: SystemScoreAgreement | None
    skipped: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "dimension": self.dimension,
            "n": self.n,
            "correlation": self.correlation.to_dict() if self.correlation is not None else None,
            "system": self.system.to_dict() if self.system is not None else None,
            "skipped": dict(self.skipped),
        }


@dataclass(frozen=True, slots=True)
class ScoreCalibration:
    """A pointwise judge's report card against human scores.

    Attributes:
        result: The scoring run the figures come from.
        dimensions: One entry per dimension with human scores, in the rubric's order.
        min_spearman: The gate's threshold.
    """

    result: ScoreResult
    dimensions: tuple[DimensionCalibration, ...]
    min_spearman: float

    @property
    def failed(self) -> list[str]:
        """The dimensions whose Spearman is below the gate."""
        return [d.dimension for d in self.dimensions
                if d.correlation is not None and not d.correlation.passed]  # fmt: skip

    @property
    def passed(self) -> bool | None:
        """Whether every gated dimension passes; ``None`` when no dimension could be gated."""
        if all(d.correlation is None for d in self.dimensions):
            return None
        return not self.failed

    @property
    def outcome(self) -> Literal["passed", "failed", "not_applied"]:
        """The gate's outcome: ``not_applied`` when no dimension could be gated (not a pass)."""
        return "not_applied" if self.passed is None else "passed" if self.passed else "failed"

    def not_applied_reason(self) -> str | None:
        """Why no dimension could be gated, dimension by dimension; ``None`` when one was."""
        if self.passed is not None:
            return None
        reasons = [
            f"{d.dimension}: {d.skipped.get('correlation', 'no correlation')}"
            for d in self.dimensions
        ]
        return "; ".join(reasons) or "no dimension has human scores"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        r = self.result
        return {
            "input": "pointwise",
            "rubric": r.rubric_tag,
            "judge": r.judge,
            "n_items": r.n_items,
            "n_unscored": r.n_unscored,
            "min_spearman": self.min_spearman,
            "passed": self.passed,
            "failed": self.failed,
            "gate": {
                "outcome": self.outcome,
                "passed": self.passed,
                "reason": self.not_applied_reason(),
            },
            "dimensions": [d.to_dict() for d in self.dimensions],
            "seed": r.seed,
            "level": r.level,
            "n_resamples": r.n_resamples,
            "stopped": r.stopped,
        }


def _dimension(result: ScoreResult, name: str, min_spearman: float) -> DimensionCalibration:
    both = [i for i in result.items if name in i.scored.scores and name in i.item.human]
    judge = [float(i.scored.scores[name]) for i in both]
    human = [i.item.human[name] for i in both]
    clusters = [i.item.cluster_key for i in both]
    boot: dict[str, Any] = {"seed": result.seed, "level": result.level,
                            "n_resamples": result.n_resamples}  # fmt: skip
    skipped: dict[str, str] = {}
    found = human_agreement(judge, human, clusters, min_spearman=min_spearman, **boot)
    if isinstance(found, str):
        skipped["correlation"] = found + "; the gate is not applied"
    systems = [i.item.system for i in both if i.item.system is not None]
    system = None
    if len(set(systems)) >= 3 and len(systems) == len(both):
        system = system_score_agreement(systems, judge, human, clusters, **boot)
    elif systems:
        skipped["system"] = f"needs answers from at least 3 systems; found {len(set(systems))}"
    correlation = None if isinstance(found, str) else found
    return DimensionCalibration(name, len(both), correlation, system, skipped)


def score_calibration_report(
    result: ScoreResult, *, min_spearman: float = MIN_SPEARMAN
) -> ScoreCalibration:
    """Per dimension with human scores: Spearman, Kendall, the gate, system-level figures.

    The bootstrap's seed, level and resamples are the result's own.
    """
    labelled = [n for n in result.rubric.names if any(n in i.item.human for i in result.items)]
    dims = tuple(_dimension(result, n, min_spearman) for n in labelled)
    return ScoreCalibration(result, dims, min_spearman)
