"""Pointwise scoring: every answer scored against a rubric, summarised per dimension.

:func:`score_answers` runs the judge and :func:`summarise_scores` builds the
:class:`ScoreResult` it returns: per-dimension summaries, per-system means and their
paired differences, and every item with every call. A parse failure or a call error
is counted, with its reason, and never becomes a score.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict

from fairjudge._errors import ConfigError
from fairjudge._items import ScoreItem
from fairjudge._types import stopped_by
from fairjudge.evaluation._scores_stats import (
    CollapseRule,
    DimensionSummary,
    ScoreMean,
    collapse_of,
    human_agreement,
    median_interval,
    score_mean,
)
from fairjudge.evaluation._settings import Failure, ResultFrame, check_bootstrap
from fairjudge.judges import BatchPointwiseJudge, CallablePointwiseJudge, ScoreRequest
from fairjudge.prompts import AnswerScores, Rubric, get_rubric

__all__ = [
    "ScoreOptions",
    "ScoreResult",
    "ScoredItem",
    "SystemDifference",
    "SystemScores",
    "check_score_items",
    "rubric_dict",
    "score_answers",
    "summarise_scores",
]


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


PointwiseJudgeLike = BatchPointwiseJudge | Callable[..., Any]


class ScoreOptions(TypedDict, total=False):
    """The keyword options of :func:`score_answers`, for functions built on it."""

    rubric: str | Rubric | None
    seed: int
    level: float
    n_resamples: int
    collapse: CollapseRule | None
    progress: Callable[[int], None] | None


@dataclass(frozen=True, slots=True)
class _Boot:
    seed: int
    level: float
    n_resamples: int

    def kw(self) -> dict[str, Any]:
        return {"seed": self.seed, "level": self.level, "n_resamples": self.n_resamples}


def _dimension(
    name: str, items: Sequence[ScoredItem], rubric: Rubric, rule: CollapseRule, boot: _Boot
) -> DimensionSummary:
    weighted = [i for i in items if name in i.scored.expected]
    expected = None
    if weighted:
        expected = score_mean(
            [i.scored.expected[name] for i in weighted],
            [i.item.cluster_key for i in weighted],
            **boot.kw(),
        )
    scored = [(i.item, float(i.scored.scores[name])) for i in items if name in i.scored.scores]
    return dimension_summary(name, scored, rubric, rule, boot.kw(), expected)


def dimension_summary(
    name: str,
    scored: Sequence[tuple[ScoreItem, float]],
    rubric: Rubric,
    rule: CollapseRule,
    boot: Mapping[str, Any],
    expected: ScoreMean | None = None,
) -> DimensionSummary:
    """One dimension's summary from the items scored on it, each with its score.

    A judge's own scores and a panel's aggregated scores are summarised here alike,
    so the two results read the same; a panel's score between two levels counts in
    the histogram at the nearest level (a judge's scores are always on a level).
    """
    values = [score for _, score in scored]
    clusters = [item.cluster_key for item, _ in scored]
    histogram = dict.fromkeys(rubric.levels, 0)
    for value in values:
        histogram[nearest_level(value, rubric.levels)] += 1
    labelled = [(item, score) for item, score in scored if name in item.human]
    human = None
    if labelled:
        human = human_agreement(
            [score for _, score in labelled],
            [item.human[name] for item, _ in labelled],
            [item.cluster_key for item, _ in labelled],
            **boot,
        )
    return DimensionSummary(
        name=name,
        mean=score_mean(values, clusters, **boot),
        median=median_summary(values),
        median_ci=median_interval(values, clusters, **boot),
        histogram=histogram,
        collapse=collapse_of(histogram, rule),
        expected=expected,
        human=human,
    )


def nearest_level(value: float, levels: Sequence[int]) -> int:
    """The level nearest ``value``; halfway between two, the higher."""
    return min(levels, key=lambda level: (abs(level - value), -level))


def median_summary(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def _per_question(items: Sequence[ScoredItem], name: str) -> dict[Hashable, float]:
    """Mean score on one dimension per question (several answers to one question average)."""
    sums: dict[Hashable, list[float]] = {}
    for i in items:
        if name in i.scored.scores:
            sums.setdefault(i.item.cluster_key, []).append(float(i.scored.scores[name]))
    return {q: sum(v) / len(v) for q, v in sums.items()}


def _systems(
    items: Sequence[ScoredItem], rubric: Rubric, boot: _Boot
) -> tuple[tuple[SystemScores, ...], tuple[SystemDifference, ...]]:
    names = list(dict.fromkeys(i.item.system for i in items if i.item.system is not None))
    if len(names) < 2:
        return (), ()
    by_system = {s: [i for i in items if i.item.system == s] for s in names}
    systems = []
    for system, mine in by_system.items():
        means = {}
        for dim in rubric.names:
            done = [i for i in mine if dim in i.scored.scores]
            means[dim] = score_mean(
                [float(i.scored.scores[dim]) for i in done],
                [i.item.cluster_key for i in done],
                **boot.kw(),
            )
        systems.append(SystemScores(system, len(mine), means))
    differences = []
    for a, b in itertools.combinations(names, 2):
        for dim in rubric.names:
            qa, qb = _per_question(by_system[a], dim), _per_question(by_system[b], dim)
            shared = [q for q in qa if q in qb]
            diffs = [qa[q] - qb[q] for q in shared]
            differences.append(SystemDifference(a, b, dim, score_mean(diffs, shared, **boot.kw())))
    return tuple(systems), tuple(differences)


def summarise_scores(
    items: Sequence[ScoredItem],
    rubric: Rubric,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    collapse: CollapseRule | None = None,
    judge: str | None = None,
) -> ScoreResult:
    """Summarise scored items: per dimension, per system, and the paired differences."""
    rule = collapse or CollapseRule()
    boot = _Boot(seed, level, n_resamples)
    dims = tuple(_dimension(n, items, rubric, rule, boot) for n in rubric.names)
    systems, differences = _systems(items, rubric, boot)
    return ScoreResult(
        rubric, dims, systems, differences, tuple(items), rule, judge, seed, level, n_resamples
    )


def check_score_items(items: Sequence[ScoreItem], rubric: Rubric) -> None:
    """Check the items can be scored with the rubric, before any call is made.

    Raises:
        ConfigError: No items, a rubric that needs references some items lack, or
            systems named on some items only; the message names the first item.
    """
    if not items:
        raise ConfigError("no items to score")
    if rubric.needs_reference:
        missing = [it.id for it in items if it.reference is None]
        if missing:
            raise ConfigError(
                f"rubric {rubric.name!r} needs a reference, but {len(missing)} item(s) lack one "
                f"(first: id {missing[0]!r}); add a 'reference' column or pick another rubric"
            )
    named = [it.system is not None for it in items]
    if any(named) and not all(named):
        first = items[named.index(False)].id
        raise ConfigError(f"item {first!r} names no system, but others do; name every one")


def check_score_run(
    items: Sequence[ScoreItem], rubric: Rubric, level: float, n_resamples: int, seed: int
) -> None:
    check_bootstrap(level, n_resamples, seed)
    check_score_items(items, rubric)


def score_answers(
    judge: PointwiseJudgeLike,
    items: Sequence[ScoreItem],
    *,
    rubric: str | Rubric | None = None,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    collapse: CollapseRule | None = None,
    progress: Callable[[int], None] | None = None,
) -> ScoreResult:
    """Score every answer against a rubric and summarise the scores.

    A spent budget does not raise: the result is returned with ``stopped`` set, the
    answers not scored counted in ``n_not_run``, for reporting and saving.

    Args:
        judge: A pointwise judge (:class:`~fairjudge.judges.PointwiseJudge`, ...) or
            a function ``judge(question, answer) -> {dimension: int}``.
        items: The answers, with their questions (and systems, references, ...).
        rubric: The rubric, for a function judge (default ``production``); a judge
            with its own rubric may be given only that one.
        seed: Bootstrap seed; the same seed gives the same intervals.
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples.
        collapse: Thresholds of the collapse alarm (default :class:`CollapseRule`).
        progress: Called with the number of calls just finished.

    Raises:
        ConfigError: A bad option, no items, a rubric that needs references the items
            lack, systems named on some items only, or a rubric other than the judge's.
        FatalBackendError: The judge cannot go on; finished calls are kept.

    Example:
        >>> result = score_answers(lambda q, a: {"accuracy": 4, "relevance": 5,
        ...     "usefulness": 3}, [ScoreItem("2+2?", "4")])
        >>> result.dimensions[0].mean.estimate
        4.0
    """
    the_judge = _as_judge(judge, rubric)
    the_rubric = the_judge.rubric
    check_score_run(items, the_rubric, level, n_resamples, seed)
    requests = [ScoreRequest(it.question, it.answer, it.reference) for it in items]
    name = getattr(the_judge, "name", None)
    options: dict[str, Any] = {
        "seed": seed, "level": level, "n_resamples": n_resamples, "collapse": collapse
    }  # fmt: skip
    scored = the_judge.score_batch(requests, progress)
    pairs = [ScoredItem(it, s) for it, s in zip(items, scored, strict=True)]
    result = summarise_scores(pairs, the_rubric, judge=name, **options)
    stopped = stopped_by(scored)
    return result if stopped is None else replace(result, stopped=stopped)


def _as_judge(judge: PointwiseJudgeLike, rubric: str | Rubric | None) -> BatchPointwiseJudge:
    wanted = get_rubric(rubric) if isinstance(rubric, str) else rubric
    if isinstance(judge, BatchPointwiseJudge):
        if wanted is not None and wanted != judge.rubric:
            raise ConfigError(
                f"rubric {wanted.name!r} differs from the judge's own, {judge.rubric.name!r}; "
                "give the rubric to the judge"
            )
        return judge
    if callable(judge):
        return CallablePointwiseJudge(judge, rubric=wanted or get_rubric())
    raise ConfigError(f"judge must be a pointwise judge or a function; got {judge!r}")
