"""The numbers of a pointwise run: per-dimension summaries, the collapse alarm, systems.

Every interval is a seeded percentile bootstrap that resamples whole questions, so
several answers to one question (several systems, or repeated items) are not taken
for independent evidence. An interval the data cannot give (one question, no score)
is :meth:`~fairjudge.stats.ConfidenceInterval.not_estimable`, with the reason.

**The collapse alarm** (seed 003: "If the Judge assigns 90% of outputs a score of
7-8, the distribution is too concentrated and the Judge lacks discriminative
power"). A dimension is collapsed when at least ``max_adjacent_share`` (0.9) of its
scores fall on two adjacent levels, or when the normalised entropy of its histogram
(Shannon entropy over the scale's levels, divided by log(levels): 0 when every
score is equal, 1 when they are spread evenly) is below ``min_entropy`` (0.5). With
fewer than ``min_n`` (10) scores the alarm is not assessed: too few to tell a
collapsed judge from a uniform sample.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge.stats._intervals import ConfidenceInterval, bootstrap_mean, single_cluster_reason

if TYPE_CHECKING:
    from fairjudge.stats import CorrelationResult

__all__ = [
    "Collapse",
    "CollapseRule",
    "DimensionSummary",
    "ScoreMean",
    "collapse_of",
    "human_agreement",
    "median_interval",
    "score_mean",
]


@dataclass(frozen=True, slots=True)
class CollapseRule:
    """When a dimension's scores count as collapsed; see the module docstring.

    Attributes:
        max_adjacent_share: Alarm when this share of scores or more lies on two
            adjacent levels.
        min_entropy: Alarm when the normalised entropy is below this.
        min_n: Fewer scores than this are not assessed.
    """

    max_adjacent_share: float = 0.9
    min_entropy: float = 0.5
    min_n: int = 10

    def __post_init__(self) -> None:
        if not 0 < self.max_adjacent_share <= 1:
            share = self.max_adjacent_share
            raise ConfigError(f"max_adjacent_share must be in (0, 1]; got {share}")
        if not 0 <= self.min_entropy <= 1:
            raise ConfigError(f"min_entropy must be in [0, 1]; got {self.min_entropy}")
        if self.min_n < 1:
            raise ConfigError(f"min_n must be >= 1; got {self.min_n}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "max_adjacent_share": self.max_adjacent_share,
            "min_entropy": self.min_entropy,
            "min_n": self.min_n,
        }


@dataclass(frozen=True, slots=True)
class Collapse:
    """The collapse alarm of one dimension.

    Attributes:
        collapsed: Whether the alarm tripped; ``None`` when too few scores to assess.
        adjacent_share: The largest share of scores on two adjacent levels.
        adjacent_levels: Those two levels.
        entropy: Normalised entropy of the histogram, in [0, 1].
        reason: Why it tripped, or why it was not assessed; ``None`` when it did not.
    """

    collapsed: bool | None
    adjacent_share: float | None
    adjacent_levels: tuple[int, int] | None
    entropy: float | None
    reason: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        levels = list(self.adjacent_levels) if self.adjacent_levels is not None else None
        return {
            "collapsed": self.collapsed,
            "adjacent_share": self.adjacent_share,
            "adjacent_levels": levels,
            "entropy": self.entropy,
            "reason": self.reason,
        }


def collapse_of(histogram: Mapping[int, int], rule: CollapseRule) -> Collapse:
    """Apply the collapse alarm to one dimension's histogram (every level a key)."""
    levels = sorted(histogram)
    n = sum(histogram.values())
    if n < rule.min_n:
        return Collapse(None, None, None, None, f"not assessed: {n} scores < {rule.min_n}")
    pairs = [(histogram[a] + histogram[b], (a, b)) for a, b in itertools.pairwise(levels)]
    count, adjacent = max(pairs)
    share = count / n
    probs = [c / n for c in histogram.values() if c]
    entropy = -sum(p * math.log(p) for p in probs) / math.log(len(levels))
    entropy = max(0.0, min(1.0, entropy))
    reasons = []
    # On a scale of three levels or fewer, two adjacent levels are most of the scale:
    # holding 90% of the scores there says nothing, so only the entropy test applies.
    if len(levels) >= 4 and share >= rule.max_adjacent_share:
        used = [level for level in adjacent if histogram[level]]
        on = " or ".join(map(str, used))
        reasons.append(f"{share:.0%} of scores are {on} (>= {rule.max_adjacent_share:.0%})")
    if entropy < rule.min_entropy:
        reasons.append(f"normalised entropy {entropy:.2f} < {rule.min_entropy:.2f}")
    reason = "; ".join(reasons) or None
    return Collapse(bool(reasons), share, adjacent, entropy, reason)


@dataclass(frozen=True, slots=True)
class ScoreMean:
    """A mean score with its bootstrap interval and the count behind it.

    Attributes:
        estimate: The mean; ``None`` when nothing was scored.
        ci: The interval, clustered by question (or why there is none).
        n: Scores averaged.
    """

    estimate: float | None
    ci: ConfidenceInterval
    n: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"estimate": self.estimate, "ci": self.ci.to_dict(), "n": self.n}


def score_mean(
    values: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    seed: int,
    level: float,
    n_resamples: int,
) -> ScoreMean:
    """The mean with a bootstrap CI clustered by question; not estimable when empty."""
    if not values:
        empty = ConfidenceInterval.not_estimable("nothing was scored", level)
        return ScoreMean(None, empty, 0)
    ci = bootstrap_mean(values, clusters, n_resamples=n_resamples, seed=seed, level=level)
    return ScoreMean(float(np.mean(values)), ci, len(values))


def median_interval(
    values: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    seed: int,
    level: float,
    n_resamples: int,
) -> ConfidenceInterval:
    """Percentile bootstrap CI of the median, drawing whole clusters with replacement."""
    if not values:
        return ConfidenceInterval.not_estimable("nothing was scored", level)
    groups: dict[Hashable, list[float]] = {}
    for value, cluster in zip(values, clusters, strict=True):
        groups.setdefault(cluster, []).append(value)
    reason = single_cluster_reason(len(groups), clustered=True)
    if reason is not None:
        return ConfidenceInterval.not_estimable(reason, level)
    members = [np.asarray(g, dtype=np.float64) for g in groups.values()]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(members), size=(n_resamples, len(members)))
    medians = np.array([np.median(np.concatenate([members[i] for i in row])) for row in draws])
    alpha = (1 - level) / 2
    low, high = np.quantile(medians, [alpha, 1 - alpha])
    return ConfidenceInterval(float(low), float(high), level)


def human_agreement(
    judge: Sequence[float],
    human: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    seed: int,
    level: float,
    n_resamples: int,
    min_spearman: float = 0.7,
) -> CorrelationResult | str:
    """Spearman and Kendall of the judge's scores with the human ones, or why not.

    ``min_spearman`` is the gate :func:`~fairjudge.stats.score_correlation` applies.
    """
    from fairjudge.stats import score_correlation

    if len(judge) < 3:
        return f"{len(judge)} item(s) with both scores; a rank correlation needs at least 3"
    if len(set(judge)) < 2 or len(set(human)) < 2:
        side = "judge's" if len(set(judge)) < 2 else "human"
        return f"the {side} scores are all equal: no rank correlation"
    try:
        return score_correlation(
            judge, human, min_spearman=min_spearman, questions=list(clusters),
            n_resamples=n_resamples, seed=seed, level=level,
        )  # fmt: skip
    except (FairJudgeError, ValueError) as exc:
        return str(exc)


@dataclass(frozen=True, slots=True)
class DimensionSummary:
    """What the judge's scores on one dimension look like.

    Attributes:
        name: The dimension.
        mean: The mean score, with its CI clustered by question.
        median: The median score (``None`` when nothing was scored).
        median_ci: Its bootstrap CI, clustered by question.
        histogram: How many scores fell on each level of the scale (every level).
        collapse: The collapse alarm.
        expected: The mean probability-weighted score, when logprobs gave any.
        human: Agreement with the human scores (``human_<dimension>``), why it could
            not be computed, or ``None`` when no item has a human score.
    """

    name: str
    mean: ScoreMean
    median: float | None
    median_ci: ConfidenceInterval
    histogram: Mapping[int, int]
    collapse: Collapse
    expected: ScoreMean | None = None
    human: CorrelationResult | str | None = None

    @property
    def n(self) -> int:
        """Scores on this dimension."""
        return self.mean.n

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (histogram levels as string keys)."""
        human: Any = self.human
        if human is not None and not isinstance(human, str):
            human = human.to_dict()
        elif isinstance(human, str):
            human = {"skipped": human}
        return {
            "name": self.name,
            "n": self.n,
            "mean": self.mean.to_dict(),
            "median": self.median,
            "median_ci": self.median_ci.to_dict(),
            "histogram": {str(k): v for k, v in self.histogram.items()},
            "collapse": self.collapse.to_dict(),
            "expected": self.expected.to_dict() if self.expected is not None else None,
            "human_agreement": human,
        }
