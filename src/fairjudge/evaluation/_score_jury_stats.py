"""What each member adds to a scoring panel, and how much the panel agrees, per dimension.

It calls no judge: the figures are read off a :class:`JuryScoreResult`, and a
correlation that cannot be computed is its reason, never a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairjudge._errors import FairJudgeError
from fairjudge.evaluation._panel import (
    aggregate_scores,
    effective,
    leave_one_out,
    leave_one_out_means,
    skipped_or_dict,
)
from fairjudge.evaluation._score_jury import JuryScoreResult
from fairjudge.evaluation._scores_stats import ScoreMean, human_agreement
from fairjudge.stats import EffectiveJudges, KrippendorffAlpha, krippendorff_alpha_ci

if TYPE_CHECKING:
    from fairjudge.stats import CorrelationResult

__all__ = [
    "DimensionPanelDiagnostics",
    "JuryScoreDiagnostics",
    "MemberScoreDiagnostics",
    "score_jury_diagnostics",
]


@dataclass(frozen=True, slots=True)
class MemberScoreDiagnostics:
    """One member's figures on one dimension.

    Attributes:
        name: The member.
        weight: Its weight.
        mean: Its own mean score, with its CI clustered by question.
        with_rest: Spearman (and Kendall) of its scores with the others' aggregate
            (leave-one-out), or why not computed.
        human: Spearman with the human scores, why not computed, or ``None`` when no
            item has a human score on this dimension.
    """

    name: str
    weight: float
    mean: ScoreMean
    with_rest: CorrelationResult | str
    human: CorrelationResult | str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "weight": self.weight,
            "mean": self.mean.to_dict(),
            "spearman_with_rest": skipped_or_dict(self.with_rest),
            "human_agreement": skipped_or_dict(self.human),
        }


@dataclass(frozen=True, slots=True)
class DimensionPanelDiagnostics:
    """The panel's agreement on one dimension, and each member's part in it.

    Attributes:
        dimension: The dimension.
        alpha_ordinal: Krippendorff's alpha (ordinal) with its CI, or why not computed.
        alpha_interval: Krippendorff's alpha (interval) with its CI, or why not computed.
        effective: The effective number of independent judges, or why not computed.
        n_complete: Answers every member scored (what ``effective`` uses).
        members: One entry per member, in order.
    """

    dimension: str
    alpha_ordinal: KrippendorffAlpha | str
    alpha_interval: KrippendorffAlpha | str
    effective: EffectiveJudges | str
    n_complete: int
    members: tuple[MemberScoreDiagnostics, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "dimension": self.dimension,
            "krippendorff_alpha_ordinal": skipped_or_dict(self.alpha_ordinal),
            "krippendorff_alpha_interval": skipped_or_dict(self.alpha_interval),
            "effective_judges": skipped_or_dict(self.effective),
            "n_complete_items": self.n_complete,
            "members": [m.to_dict() for m in self.members],
        }


@dataclass(frozen=True, slots=True)
class JuryScoreDiagnostics:
    """Per-dimension panel and member figures of one scoring panel."""

    dimensions: tuple[DimensionPanelDiagnostics, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"diagnostics": [d.to_dict() for d in self.dimensions]}


def _alpha(
    rows: list[list[int | None]], clusters: list[str], metric: str, boot: dict[str, Any]
) -> KrippendorffAlpha | str:
    if sum(sum(v is not None for v in row) >= 2 for row in rows) == 0:
        return "no answer was scored by two members"
    try:
        return krippendorff_alpha_ci(
            rows, "ordinal" if metric == "ordinal" else "interval", questions=clusters, **boot
        )
    except (FairJudgeError, ValueError) as exc:
        return str(exc)


def _with_rest(
    k: int, result: JuryScoreResult, rows: list[list[int | None]], boot: dict[str, Any]
) -> CorrelationResult | str:
    """Member ``k`` against the others' aggregate; ``rows``: each answer's member scores."""

    def others(scores: list[int | None], weights: list[float]) -> float | None:
        return aggregate_scores(scores, weights, result.aggregation)

    if result.aggregation == "mean":  # the same sums, in numpy
        pairs: Sequence[tuple[int, float, float]] = leave_one_out_means(k, rows, result.weights)
    else:
        found = leave_one_out(k, rows, result.weights, others)
        pairs = found
    rest = [agg for _, _, agg in pairs]
    if len(pairs) >= 3 and len(set(rest)) < 2:
        return "the other members' aggregate never varies: no rank correlation"
    own = [float(mine) for _, mine, _ in pairs]
    return human_agreement(own, rest, [result.items[i].item.cluster_key for i, _, _ in pairs],
                           **boot)  # fmt: skip


def _member(
    k: int,
    result: JuryScoreResult,
    dimension: str,
    rows: list[list[int | None]],
    boot: dict[str, Any],
) -> MemberScoreDiagnostics:
    summary = result.members[k].dimensions[result.rubric.names.index(dimension)]
    return MemberScoreDiagnostics(
        name=result.names[k],
        weight=result.weights[k],
        mean=summary.mean,
        with_rest=_with_rest(k, result, rows, boot),
        human=summary.human,
    )


def score_jury_diagnostics(result: JuryScoreResult) -> JuryScoreDiagnostics:
    """Per-dimension agreement, effective size and per-member figures; no judge is called."""
    boot = result.boot
    items = list(result.items)
    clusters = [i.item.cluster_key for i in items]
    dims = []
    for name in result.rubric.names:
        rows = [i.member_scores(name) for i in items]
        complete = [(r, c) for r, c in zip(rows, clusters, strict=True) if None not in r]
        too_few = f"{len(complete)} answer(s) scored by every member; needs at least 2"
        full = [[float(s) for s in r if s is not None] for r, _ in complete]
        dims.append(
            DimensionPanelDiagnostics(
                dimension=name,
                alpha_ordinal=_alpha(rows, clusters, "ordinal", boot),
                alpha_interval=_alpha(rows, clusters, "interval", boot),
                effective=effective(full, [c for _, c in complete], boot, too_few),
                n_complete=len(complete),
                members=tuple(
                    _member(k, result, name, rows, boot) for k in range(len(result.names))
                ),
            )
        )
    return JuryScoreDiagnostics(tuple(dims))
