"""The numbers of a pointwise run: per-dimension summaries, means, medians, the collapse alarm.

Every interval is a seeded percentile bootstrap that resamples whole questions, so
several answers to one question (several systems, or repeated items) are not taken
for independent evidence. An interval the data cannot give (one question, no score)
is :meth:`~fairjudge.stats.ConfidenceInterval.not_estimable`, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge.stats import ConfidenceInterval, bootstrap_mean, single_cluster_reason

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
        max_adjacent_share: Alarm when this share of scores or more lies in one band
            of adjacent levels no wider than ``band_width`` of the scale.
        band_width: The widest band, as a share of the scale's range (highest level
            minus lowest): 0.2 makes it one level on 1-5 and two on 1-10.
        min_spread: Alarm when the scores' standard deviation divided by the largest
            the scale allows (half its range) is below this.
        min_n: Fewer scores than this are not assessed.
    """

    max_adjacent_share: float = 0.9
    band_width: float = 0.2
    min_spread: float = 0.2
    min_n: int = 10

    def __post_init__(self) -> None:
        if not 0 < self.max_adjacent_share <= 1:
            share = self.max_adjacent_share
            raise ConfigError(f"max_adjacent_share must be in (0, 1]; got {share}")
        if not 0 <= self.band_width < 1:
            raise ConfigError(f"band_width must be in [0, 1); got {self.band_width}")
        if not 0 <= self.min_spread <= 1:
            raise ConfigError(f"min_spread must be in [0, 1]; got {self.min_spread}")
        if self.min_n < 1:
            raise ConfigError(f"min_n must be >= 1; got {self.min_n}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: every field, in order."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Collapse:
    """The collapse alarm of one dimension.

    Attributes:
        collapsed: Whether the alarm tripped; ``None`` when too few scores to assess.
        adjacent_share: The largest share of scores in one band of adjacent levels no
            wider than the rule's ``band_width``.
        adjacent_levels: That band's lowest and highest level (equal when the band is
            one level).
        spread: The scores' standard deviation over the largest the scale allows
            (half its range), in [0, 1]: 0 when every score is equal, 1 when half are
            the lowest level and half the highest.
        reason: Why it tripped, or why it was not assessed; ``None`` when it did not.
    """

    collapsed: bool | None
    adjacent_share: float | None
    adjacent_levels: tuple[int, int] | None
    spread: float | None
    reason: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        levels = list(self.adjacent_levels) if self.adjacent_levels is not None else None
        return {
            "collapsed": self.collapsed,
            "adjacent_share": self.adjacent_share,
            "adjacent_levels": levels,
            "spread": self.spread,
            "reason": self.reason,
        }


def _band_of(
    histogram: Mapping[int, int], levels: Sequence[int], width: int
) -> tuple[int, int, int]:
    """The most-used band of ``width + 1`` adjacent levels: (count, lowest, highest)."""
    bands = [
        (sum(histogram[level] for level in levels[i : i + width + 1]), levels[i], levels[i + width])
        for i in range(len(levels) - width)
    ]
    return max(bands)


def _levels_text(histogram: Mapping[int, int], low: int, high: int) -> str:
    used = [level for level in range(low, high + 1) if histogram.get(level)]
    if len(used) <= 2:
        return " or ".join(map(str, used))
    return f"{used[0]} to {used[-1]}"


def _percent(count: int, total: int) -> str:
    """A share of counts as a whole percent, rounded half to even from the exact ratio.

    The rule of the score page's share column (``fairjudge.report._text.share_text``,
    a layer above), so the reason's share of a one-level band reads as that level's
    row does: 23 of 40 is 58% in both (``f"{23 / 40:.0%}"`` said 57%: the float is a
    hair below 0.575).
    """
    whole, rest = divmod(100 * count, total)
    if 2 * rest > total or (2 * rest == total and whole % 2):
        whole += 1
    return f"{whole}%"


def collapse_of(histogram: Mapping[int, int], rule: CollapseRule) -> Collapse:
    """Apply the collapse alarm to one dimension's histogram (every level a key).

    Examples (scale 1-5, 20 scores, the default rule): ten 1s and ten 5s have spread
    1.0 and do not trip it; four of each level have spread 0.71 and do not; twenty 4s
    have spread 0 and trip both tests; seventeen 4s and three 3s have spread 0.18 and
    85% on 4, and trip the spread test.
    """
    levels = sorted(histogram)
    n = sum(histogram.values())
    if n < rule.min_n:
        return Collapse(None, None, None, None, f"not assessed: {n} scores < {rule.min_n}")
    span = levels[-1] - levels[0]
    # The small epsilon keeps 0.2 * 10 at two steps despite binary rounding.
    width = min(math.floor(rule.band_width * span + 1e-9), len(levels) - 1)
    count, low, high = _band_of(histogram, levels, width)
    share = count / n
    mean = sum(level * c for level, c in histogram.items()) / n
    sd = math.sqrt(sum(c * (level - mean) ** 2 for level, c in histogram.items()) / n)
    spread = max(0.0, min(1.0, sd / (span / 2))) if span else 0.0
    reasons = []
    if share >= rule.max_adjacent_share:
        on = _levels_text(histogram, low, high)
        reasons.append(
            f"{_percent(count, n)} of scores are {on} (>= {rule.max_adjacent_share:.0%})"
        )
    # Compare with a margin: 16 fours and 4 threes on 1-5 have spread 0.2 exactly,
    # which binary arithmetic puts a hair below.
    if spread < rule.min_spread - 1e-9:
        reasons.append(
            f"spread {spread:.2f} < {rule.min_spread:.2f} (standard deviation {sd:.2f} of "
            f"at most {span / 2:g} on {levels[0]}-{levels[-1]})"
        )
    reason = "; ".join(reasons) or None
    return Collapse(bool(reasons), share, (low, high), spread, reason)


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


def _resampled_medians(members: list[Any], draws: Any) -> Any:
    """``np.median`` of each resample (a row of cluster indices), the same numbers, from counts.

    Concatenating every resample's values (2,000 times 10,000 scores) was most of a
    panel's summary; a resample's median is its middle value(s) among the distinct
    values, found from how often each one was drawn (exact whole counts).
    """
    import scipy.sparse as sp

    k, b = len(members), draws.shape[0]
    values, inverse = np.unique(np.concatenate(members), return_inverse=True)
    owner = np.repeat(np.arange(k), [m.size for m in members])
    per_cluster = sp.csr_array(
        (np.ones(owner.size), (owner, inverse.ravel())), shape=(k, values.size)
    )
    counts = np.bincount((draws + (np.arange(b) * k)[:, None]).ravel(), minlength=b * k)
    counts = counts.reshape(b, k).astype(np.float64)
    out = np.empty(b)
    rows = max(1, (1 << 22) // values.size)
    for start in range(0, b, rows):
        cum = np.cumsum(np.asarray((per_cluster.T @ counts[start : start + rows].T).T), axis=1)
        size = cum[:, -1:]
        low = (cum <= (size - 1) // 2).sum(axis=1)  # the middle value(s): 0-based places
        high = (cum <= size // 2).sum(axis=1)
        out[start : start + rows] = (values[low] + values[high]) / 2
    return out


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
    k = len(members)
    # Drawn in blocks of rows: the same stream as one (n_resamples, k) draw, in less memory.
    block = max(1, (1 << 22) // k)
    medians = np.concatenate([
        _resampled_medians(members, rng.integers(0, k, size=(min(block, n_resamples - s), k)))
        for s in range(0, n_resamples, block)
    ])  # fmt: skip
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
    min_spearman: float | None = None,
) -> CorrelationResult | str:
    """Spearman and Kendall of the judge's scores with the human ones, or why not.

    ``min_spearman`` is the gate :func:`~fairjudge.stats.score_correlation` applies;
    ``None``, its default (``calibrate``'s, :data:`fairjudge.audit.MIN_SPEARMAN`, which
    this layer may not import). ``score`` and ``score-jury`` report against it.
    """
    from fairjudge.stats import score_correlation

    gate = {} if min_spearman is None else {"min_spearman": min_spearman}

    if len(judge) < 3:
        return f"{len(judge)} item(s) with both scores; a rank correlation needs at least 3"
    if len(set(judge)) < 2 or len(set(human)) < 2:
        side = "judge's" if len(set(judge)) < 2 else "human"
        return f"the {side} scores are all equal: no rank correlation"
    try:
        return score_correlation(
            judge, human, questions=list(clusters), n_resamples=n_resamples, seed=seed,
            level=level, **gate,
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
