"""What a scoring panel produces: every member's scores, the aggregates, their summary.

:class:`JuryScoreResult` keeps, per answer, every member's
:class:`~fairjudge.judges.AnswerScores` (with every call) and the panel's aggregate
per dimension (:class:`PanelScoredItem`). It summarises the aggregates per dimension
exactly as a one-judge run is summarised (:class:`~fairjudge.evaluation.DimensionSummary`:
mean and median with intervals clustered by question, histogram, collapse alarm,
agreement with human scores), and each member's own scores as a one-judge
:class:`~fairjudge.evaluation.ScoreResult` (:func:`~fairjudge.evaluation.summarise_scores`).

A mean of several members is rarely a whole level, so the histogram and the collapse
alarm of the panel read each aggregate at its *nearest* level (a half goes up); the
mean, the median and their intervals use the aggregates as they are.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from fairjudge._items import ScoreItem
from fairjudge.evaluation._panel_result import PanelResult
from fairjudge.evaluation._panel_rules import SCORE_AGGREGATIONS, aggregate_scores, check_rule
from fairjudge.evaluation._scores import _median, summarise_scores
from fairjudge.evaluation._scores_result import ScoredItem, ScoreResult
from fairjudge.evaluation._scores_stats import (
    CollapseRule,
    DimensionSummary,
    collapse_of,
    human_agreement,
    median_interval,
    score_mean,
)
from fairjudge.judges._pointwise import AnswerScores
from fairjudge.prompts import Rubric

if TYPE_CHECKING:
    from fairjudge.judges._jury_usage import MemberUsage

__all__ = ["JuryScoreResult", "PanelScoredItem", "aggregate_item", "panel_result"]


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


def nearest_level(value: float, levels: Sequence[int]) -> int:
    """The level nearest ``value``; halfway between two, the higher."""
    return min(levels, key=lambda level: (abs(level - value), -level))


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


def _dimension(
    name: str, items: Sequence[PanelScoredItem], rubric: Rubric, rule: CollapseRule,
    boot: dict[str, Any],
) -> DimensionSummary:  # fmt: skip
    done = [i for i in items if name in i.scores]
    values = [i.scores[name] for i in done]
    clusters = [i.item.cluster_key for i in done]
    histogram = dict.fromkeys(rubric.levels, 0)
    for value in values:
        histogram[nearest_level(value, rubric.levels)] += 1
    labelled = [i for i in done if name in i.item.human]
    human = None
    if labelled:
        human = human_agreement(
            [i.scores[name] for i in labelled], [i.item.human[name] for i in labelled],
            [i.item.cluster_key for i in labelled], **boot,
        )  # fmt: skip
    return DimensionSummary(
        name=name,
        mean=score_mean(values, clusters, **boot),
        median=_median(values),
        median_ci=median_interval(values, clusters, **boot),
        histogram=histogram,
        collapse=collapse_of(histogram, rule),
        human=human,
    )


def _panel_dimensions(
    rubric: Rubric, items: Sequence[PanelScoredItem], collapse: CollapseRule, boot: dict[str, Any]
) -> tuple[DimensionSummary, ...]:
    """The panel's summary per dimension, in the rubric's order."""
    return tuple(_dimension(n, items, rubric, collapse, boot) for n in rubric.names)


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
    """Summarise the panel's aggregates and each member's own scores."""
    boot: dict[str, Any] = {"seed": seed, "level": level, "n_resamples": n_resamples}
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
