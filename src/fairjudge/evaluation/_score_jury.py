"""A panel's scores: every member scores every answer, aggregated per dimension.

:func:`score_with_jury` hands a :class:`~fairjudge.judges.PointwiseJury` every answer in
one batch, keeps every member's scores and aggregates them per answer and dimension
under the panel's rule; a dimension without a majority of the weight stays unscored,
never imputed. :func:`score_jury_diagnostics` reads the panel's agreement and what
each member adds off the result, calling no judge; a correlation that cannot be
computed is its reason, never a number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge._items import ScoreItem
from fairjudge._types import stopped_by
from fairjudge.evaluation._panel import (
    SCORE_AGGREGATIONS,
    PanelResult,
    aggregate_scores,
    check_rule,
    effective,
    leave_one_out,
    leave_one_out_means,
    skipped_or_dict,
)
from fairjudge.evaluation._scores import (
    ScoredItem,
    ScoreResult,
    check_score_run,
    dimension_summary,
    summarise_scores,
)
from fairjudge.evaluation._scores_stats import (
    CollapseRule,
    DimensionSummary,
    ScoreMean,
    human_agreement,
)
from fairjudge.judges import MemberSpec, PointwiseJury, ScoreRequest, as_rubric
from fairjudge.prompts import AnswerScores, Rubric, get_rubric
from fairjudge.stats import (
    EffectiveJudges,
    KrippendorffAlpha,
    krippendorff_alpha_ci,
    shared_resamples,
)

if TYPE_CHECKING:
    from fairjudge.judges import MemberUsage
    from fairjudge.stats import CorrelationResult

__all__ = [
    "DimensionPanelDiagnostics",
    "JuryScoreDiagnostics",
    "JuryScoreResult",
    "MemberScoreDiagnostics",
    "PanelScoredItem",
    "score_jury_diagnostics",
    "score_with_jury",
]


def score_with_jury(
    jury: PointwiseJury | Sequence[MemberSpec],
    items: Sequence[ScoreItem],
    *,
    rubric: str | Rubric | None = None,
    aggregation: str = "mean",
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    collapse: CollapseRule | None = None,
    progress: Callable[[int], None] | None = None,
) -> JuryScoreResult:
    """Every member scores every answer; aggregate per dimension and summarise.

    A spent budget does not raise: the result is returned with ``stopped`` set.

    Args:
        jury: The panel, or member specs to build one from (with ``rubric``; closed
            again when done).
        items: The answers, with their questions (and references, human scores, ...).
        rubric: The rubric; a jury given as itself may be given only its own.
        aggregation: ``"mean"`` or ``"median"`` (see the module docstring).
        seed: Bootstrap seed; the same seed gives the same intervals.
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples.
        collapse: Thresholds of the collapse alarm (default :class:`CollapseRule`).
        progress: Called with the number of calls just finished (members × calls).

    Raises:
        ConfigError: A bad option or rule, no items, a rubric that needs references
            the items lack, or a rubric other than the jury's.
        FatalBackendError: A model member cannot go on; finished calls are kept.

    Example:
        >>> from fairjudge.judges import CallablePointwiseJudge as F
        >>> from fairjudge.judges._pointwise import PointwiseMember as M
        >>> dims = ("accuracy", "relevance", "usefulness")
        >>> jury = PointwiseJury([M("a", F(lambda q, a: dict.fromkeys(dims, 2))),
        ...                       M("b", F(lambda q, a: dict.fromkeys(dims, 5)), 2.0)])
        >>> score_with_jury(jury, [ScoreItem("q", "a")]).items[0].scores["accuracy"]
        4.0
    """
    rule = check_rule(aggregation, SCORE_AGGREGATIONS, what=" for scores")
    if not isinstance(jury, PointwiseJury):
        the_rubric = as_rubric(rubric or "production")
        check_score_run(items, the_rubric, level, n_resamples, seed)  # before any session opens
        with PointwiseJury.from_specs(jury, rubric=the_rubric) as panel:
            return score_with_jury(panel, items, aggregation=rule, seed=seed, level=level,
                                   n_resamples=n_resamples, collapse=collapse,
                                   progress=progress)  # fmt: skip
    wanted = get_rubric(rubric) if isinstance(rubric, str) else rubric
    if wanted is not None and wanted != jury.rubric:
        raise ConfigError(
            f"rubric {wanted.name!r} differs from the jury's own, {jury.rubric.name!r}; "
            "give the rubric to the jury"
        )
    check_score_run(items, jury.rubric, level, n_resamples, seed)
    requests = [ScoreRequest(it.question, it.answer, it.reference) for it in items]
    per_member = jury.member_readings(requests, progress)
    weights = jury.weights
    scored = [
        aggregate_item(item, row, weights, rule, jury.rubric)
        for item, row in zip(items, zip(*per_member, strict=True), strict=True)
    ]
    result = panel_result(
        jury.rubric, jury.names, weights, rule, scored, seed=seed, level=level,
        n_resamples=n_resamples, collapse=collapse or CollapseRule(),
        stopped=stopped_by(*per_member),
    )  # fmt: skip
    return replace(result, usage=jury.last_usage)


@dataclass(frozen=True, slots=True)
class PanelScoredItem:
    """One answer as every member and the panel scored it.

    Attributes:
        item: The answer and what is known about it.
        members: Each member's scores and calls, in member order.
        scores: The panel's score per dimension; a dimension is absent when the
            members that scored it held no majority of the weight.
    """

    item: ScoreItem
    members: tuple[AnswerScores, ...]
    scores: Mapping[str, float]

    def member_scores(self, dimension: str) -> list[int | None]:
        """Each member's score on ``dimension`` (``None`` where it gave none)."""
        return [m.scores.get(dimension) for m in self.members]

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        """One ``--out`` record: the item, the panel's scores, every member's scores and calls."""
        cluster = {} if self.item.cluster is None else {"cluster": self.item.cluster}
        members = {
            n: {"scores": dict(m.scores), "expected": dict(m.expected), "reason": m.reason,
                "calls": [c.to_dict() for c in m.calls]}
            for n, m in zip(names, self.members, strict=True)
        }  # fmt: skip
        return {**self.item.to_dict(), **cluster, "panel_scores": dict(self.scores),
                "members": members}  # fmt: skip


def aggregate_item(
    item: ScoreItem,
    members: Sequence[AnswerScores],
    weights: Sequence[float],
    rule: str,
    rubric: Rubric,
) -> PanelScoredItem:
    """One answer as the panel scored it, dimension by dimension."""
    panel: dict[str, float] = {}
    for name in rubric.names:
        value = aggregate_scores([m.scores.get(name) for m in members], weights, rule)
        if value is not None:
            panel[name] = value
    return PanelScoredItem(item, tuple(members), panel)


@dataclass(frozen=True, slots=True)
class JuryScoreResult(PanelResult):
    """Everything a scoring panel produced (on the panels' shared frame).

    Attributes:
        rubric: The rubric every member scored against.
        names: The members, in order.
        weights: Their weights.
        aggregation: The rule that produced the panel's scores.
        dimensions: The panel's summary per dimension, in the rubric's order.
        items: Every answer with every member's scores and the panel's, in input order.
        members: Each member's own scores summarised as a one-judge run, in order.
        collapse_rule: The thresholds of the collapse alarm.
        seed: The bootstrap seed.
        level: The intervals' confidence level.
        n_resamples: Bootstrap resamples.
        stopped: Why the run stopped before every call was made (a spent budget).
        usage: Each member's calls, tokens, cost and latency in this run.
    """

    rubric: Rubric
    names: tuple[str, ...]
    weights: tuple[float, ...]
    aggregation: str
    dimensions: tuple[DimensionSummary, ...]
    items: tuple[PanelScoredItem, ...]
    members: tuple[ScoreResult, ...]
    collapse_rule: CollapseRule = field(default_factory=CollapseRule)
    seed: int = 0
    level: float = 0.95
    n_resamples: int = 2000
    stopped: str | None = None
    usage: tuple[MemberUsage, ...] = ()

    @property
    def n_items(self) -> int:
        """Answers submitted."""
        return len(self.items)

    @property
    def n_unscored(self) -> int:
        """Answers the panel could not score on some dimension (no majority of weight)."""
        return sum(len(i.scores) < len(self.rubric.names) for i in self.items)

    @property
    def unscored(self) -> dict[str, int]:
        """Per dimension, the answers left without a panel score."""
        return {d: sum(d not in i.scores for i in self.items) for d in self.rubric.names}

    @property
    def collapsed(self) -> list[str]:
        """The dimensions whose collapse alarm tripped on the panel's scores."""
        return [d.name for d in self.dimensions if d.collapse.collapsed]

    @property
    def rubric_tag(self) -> str:
        """The rubric as ``name@version``."""
        return f"{self.rubric.name}@{self.rubric.version}"

    def with_aggregation(self, rule: str) -> JuryScoreResult:
        """The same members' scores aggregated under another rule; no judge is called."""
        the_rule = check_rule(rule, SCORE_AGGREGATIONS, what=" for scores")
        items = [aggregate_item(i.item, i.members, self.weights, the_rule, self.rubric)
                 for i in self.items]  # fmt: skip
        dims = _panel_dimensions(self.rubric, items, self.collapse_rule, self.boot)
        # a member's own summary does not depend on the rule: it is kept as it is
        return replace(self, aggregation=the_rule, items=tuple(items), dimensions=dims)

    def records(self) -> Iterator[dict[str, Any]]:
        """The ``--out`` records: one per answer, naming the rubric, the rule and the members.

        The panel's scores are under ``panel_scores`` (not ``scores``): a mean is not
        a whole level, so a panel's file is not read back as a one-judge baseline.
        """
        panel = self.roster()
        for item in self.items:
            yield {**item.to_dict(self.names), "rubric": self.rubric_tag,
                   "aggregation": self.aggregation, "jury": panel}  # fmt: skip

    def to_dict(self, *, include_items: bool = False) -> dict[str, Any]:
        """JSON-ready summary; per-answer records only when asked."""
        out: dict[str, Any] = {
            "rubric": {
                "name": self.rubric.name,
                "version": self.rubric.version,
                "scale": list(self.rubric.scale),
                "dimensions": list(self.rubric.names),
            },
            "members": [
                {"name": n, "weight": w, "summary": m.to_dict()}
                for n, w, m in zip(self.names, self.weights, self.members, strict=True)
            ],
            "aggregation": self.aggregation,
            "n_items": self.n_items,
            "n_unscored": self.n_unscored,
            "unscored_by_dimension": self.unscored,
            "dimensions": [d.to_dict() for d in self.dimensions],
            "collapsed": self.collapsed,
            "collapse_rule": self.collapse_rule.to_dict(),
            **self.frame_dict(),
        }
        if include_items:
            out["items"] = [i.to_dict(self.names) for i in self.items]
        return out


def _panel_dimensions(
    rubric: Rubric, items: Sequence[PanelScoredItem], collapse: CollapseRule, boot: dict[str, Any]
) -> tuple[DimensionSummary, ...]:
    """The panel's summary per dimension, in the rubric's order."""
    return tuple(
        dimension_summary(
            n, [(i.item, i.scores[n]) for i in items if n in i.scores], rubric, collapse, boot
        )
        for n in rubric.names
    )


def panel_result(
    rubric: Rubric,
    names: Sequence[str],
    weights: Sequence[float],
    rule: str,
    items: Sequence[PanelScoredItem],
    *,
    seed: int,
    level: float,
    n_resamples: int,
    collapse: CollapseRule,
    stopped: str | None,
) -> JuryScoreResult:
    """Summarise the panel's aggregates and each member's own scores.

    The means' intervals share their resampling plans (the same numbers, one draw).
    """
    boot: dict[str, Any] = {"seed": seed, "level": level, "n_resamples": n_resamples}
    with shared_resamples():
        dims = _panel_dimensions(rubric, items, collapse, boot)
        members = tuple(
            summarise_scores(
                [ScoredItem(i.item, i.members[k]) for i in items],
                rubric,
                judge=name,
                collapse=collapse,
                **boot,
            )
            for k, name in enumerate(names)
        )
    if stopped is not None:
        members = tuple(replace(m, stopped=stopped) for m in members)
    return JuryScoreResult(
        rubric, tuple(names), tuple(float(w) for w in weights), rule, dims, tuple(items),
        members, collapse, seed, level, n_resamples, stopped,
    )  # fmt: skip


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
