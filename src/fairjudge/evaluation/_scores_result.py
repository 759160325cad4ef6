"""What a pointwise run produces: scored items, per-system means, paired differences.

:class:`ScoreResult` holds the per-dimension summaries
(:class:`~fairjudge.evaluation.DimensionSummary`), the systems and their paired
differences, and every item with every call, and renders itself as a summary or JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fairjudge._items import ScoreItem
from fairjudge.evaluation._scores_stats import CollapseRule, DimensionSummary, ScoreMean
from fairjudge.evaluation._settings import Failure, ResultFrame
from fairjudge.prompts import AnswerScores, Rubric

__all__ = ["ScoreResult", "ScoredItem", "SystemDifference", "SystemScores", "rubric_dict"]


def rubric_dict(rubric: Rubric) -> dict[str, Any]:
    """The rubric as every scoring result's JSON names it: name, version, scale, dimensions."""
    return {"name": rubric.name, "version": rubric.version, "scale": list(rubric.scale),
            "dimensions": list(rubric.names)}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScoredItem:
    """One item and what the judge said about it (every call kept)."""

    item: ScoreItem
    scored: AnswerScores

    @property
    def complete(self) -> bool:
        """Whether every dimension was scored."""
        return all(c.reply.ok for c in self.scored.calls)

    def to_dict(self) -> dict[str, Any]:
        """One ``--out`` record: the item, its scores and every call with its raw reply."""
        cluster = {} if self.item.cluster is None else {"cluster": self.item.cluster}
        return {
            **self.item.to_dict(),
            **cluster,
            "scores": dict(self.scored.scores),
            "expected": dict(self.scored.expected),
            "reason": self.scored.reason,
            "calls": [c.to_dict() for c in self.scored.calls],
        }


@dataclass(frozen=True, slots=True)
class SystemScores:
    """One system's mean score per dimension."""

    system: str
    n_items: int
    means: dict[str, ScoreMean]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        means = {k: v.to_dict() for k, v in self.means.items()}
        return {"system": self.system, "n_items": self.n_items, "means": means}


@dataclass(frozen=True, slots=True)
class SystemDifference:
    """The paired difference ``system_a - system_b`` on one dimension.

    Each question both systems answered (and got a score for) counts once: the
    difference of their mean scores on it. The interval resamples those questions.
    """

    system_a: str
    system_b: str
    dimension: str
    difference: ScoreMean

    @property
    def n_questions(self) -> int:
        """Questions both systems were scored on."""
        return self.difference.n

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "system_a": self.system_a,
            "system_b": self.system_b,
            "dimension": self.dimension,
            "difference": self.difference.estimate,
            "ci": self.difference.ci.to_dict(),
            "n_questions": self.n_questions,
        }


@dataclass(frozen=True, slots=True)
class ScoreResult(ResultFrame):
    """Everything one pointwise run produced (on the shared :class:`ResultFrame`).

    Attributes:
        rubric: The rubric the answers were scored against.
        dimensions: One summary per dimension, in the rubric's order.
        systems: Per-system means, when the items name two or more systems.
        differences: Paired differences for each pair of systems and dimension.
        items: Every item with every call, in input order.
        collapse_rule: The thresholds of the collapse alarm.
        judge: The judge's name, when known.
        seed: The bootstrap seed.
        level: The intervals' confidence level.
        n_resamples: Bootstrap resamples.
        stopped: Why the run stopped before every call was made (a spent budget).
    """

    rubric: Rubric
    dimensions: tuple[DimensionSummary, ...]
    systems: tuple[SystemScores, ...]
    differences: tuple[SystemDifference, ...]
    items: tuple[ScoredItem, ...]
    collapse_rule: CollapseRule = field(default_factory=CollapseRule)
    judge: str | None = None
    seed: int = 0
    level: float = 0.95
    n_resamples: int = 2000
    stopped: str | None = None

    @property
    def n_items(self) -> int:
        """Items submitted."""
        return len(self.items)

    @property
    def n_unscored(self) -> int:
        """Items missing a score on some dimension (a failed call, or one not made)."""
        return sum(not i.complete for i in self.items)

    @property
    def n_parse_failures(self) -> int:
        """Calls whose reply held no valid scores."""
        return sum(i.scored.parse_failures for i in self.items)

    @property
    def n_call_errors(self) -> int:
        """Calls that failed after their retries."""
        return sum(i.scored.call_errors for i in self.items)

    def item_failures(self) -> Iterator[Iterable[Failure]]:
        """Per item, its calls' failures."""
        return ((c.reply.failure for c in i.scored.calls) for i in self.items)

    @property
    def collapsed(self) -> list[str]:
        """The dimensions whose collapse alarm tripped."""
        return [d.name for d in self.dimensions if d.collapse.collapsed]

    def summary(self) -> str:
        """A few human-readable lines."""
        lines = [f"rubric {self.rubric.name}@{self.rubric.version}, scale {self.rubric.scale_text}"]
        lines.append(f"items: {self.n_items} (not fully scored: {self.n_unscored})")
        for d in self.dimensions:
            mean = "n/a" if d.mean.estimate is None else f"{d.mean.estimate:.2f} {d.mean.ci:.2f}"
            alarm = "  COLLAPSED" if d.collapse.collapsed else ""
            lines.append(f"{d.name}: mean {mean}, median {d.median}, n={d.n}{alarm}")
        for diff in self.differences:
            est = diff.difference.estimate
            shown = "n/a" if est is None else f"{est:+.2f} {diff.difference.ci:.2f}"
            lines.append(f"{diff.system_a} - {diff.system_b}, {diff.dimension}: {shown}")
        lines.append(f"parse failures: {self.n_parse_failures}, call errors: {self.n_call_errors}")
        return "\n".join(lines)

    @property
    def rubric_tag(self) -> str:
        """The rubric as ``name@version``."""
        return f"{self.rubric.name}@{self.rubric.version}"

    def records(self) -> Iterator[dict[str, Any]]:
        """The ``--out`` records: one per item, each naming the rubric and the judge.

        The two names let a later run be compared with this one (``score
        --baseline``), and refused when they differ; readers that predate them ignore
        the extra keys.
        """
        for item in self.items:
            yield {**item.to_dict(), "rubric": self.rubric_tag, "judge": self.judge}

    def to_dict(self, *, include_items: bool = False) -> dict[str, Any]:
        """JSON-ready summary; per-item records only when asked."""
        out: dict[str, Any] = {
            "rubric": rubric_dict(self.rubric),
            "judge": self.judge,
            "n_items": self.n_items,
            "n_unscored": self.n_unscored,
            "n_parse_failures": self.n_parse_failures,
            "n_call_errors": self.n_call_errors,
            "n_not_run": self.n_not_run,
            "dimensions": [d.to_dict() for d in self.dimensions],
            "collapsed": self.collapsed,
            "collapse_rule": self.collapse_rule.to_dict(),
            "systems": [s.to_dict() for s in self.systems],
            "differences": [d.to_dict() for d in self.differences],
            **self.frame_dict(partial=False),
        }
        if include_items:
            out["items"] = [i.to_dict() for i in self.items]
        return out
