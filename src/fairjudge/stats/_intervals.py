"""Confidence intervals, and the seeded (optionally clustered) bootstrap of a mean.

Why clustered: when several items share a question (say, two turns of one
conversation, or several model pairs on one prompt), their verdicts are correlated.
Resampling items independently would pretend to more information than there is and
give intervals that are too narrow. Resampling whole clusters keeps the correlation.

An interval can also be *not estimable*: from a single cluster every resample is
the same data, so the bootstrap cannot vary and a zero-width interval would claim a
certainty that does not exist. Such an interval carries the reason instead of
bounds, and prints as ``cannot be estimated: <reason>``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["ConfidenceInterval", "bootstrap_mean", "single_cluster_reason"]


@dataclass(frozen=True, slots=True)
class ConfidenceInterval:
    """A two-sided confidence interval, or the reason there is none.

    Attributes:
        low: Lower bound (NaN when not estimable).
        high: Upper bound (NaN when not estimable).
        level: Nominal coverage, e.g. 0.95.
        reason: Why the interval cannot be estimated; ``None`` when it can.
    """

    low: float
    high: float
    level: float = 0.95
    reason: str | None = None

    @classmethod
    def not_estimable(cls, reason: str, level: float = 0.95) -> ConfidenceInterval:
        """An interval that cannot be estimated, with NaN bounds and the reason."""
        return cls(math.nan, math.nan, level, reason)

    @property
    def estimable(self) -> bool:
        """Whether the bounds mean anything."""
        return self.reason is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: bounds are ``null`` when not estimable, and the reason says why."""
        return {
            "low": self.low if self.estimable else None,
            "high": self.high if self.estimable else None,
            "level": self.level,
            "estimable": self.estimable,
            "reason": self.reason,
        }

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int | float) and self.low <= value <= self.high

    def __format__(self, spec: str) -> str:
        # ``f"{ci:.1f}"`` formats both bounds, so every summary prints intervals, and
        # the reason when there are none, the same way.
        if self.reason is not None:
            return f"cannot be estimated: {self.reason}"
        spec = spec or ".3f"
        return f"[{self.low:{spec}}, {self.high:{spec}}]"

    def __str__(self) -> str:
        return format(self)


def single_cluster_reason(n_clusters: int, clustered: bool) -> str | None:
    """Why a bootstrap over ``n_clusters`` clusters cannot vary, or ``None`` if it can.

    Args:
        n_clusters: Distinct clusters (items, when not clustered).
        clustered: Whether the clusters are questions rather than single items.
    """
    if n_clusters >= 2:
        return None
    unit = "question" if clustered else "item"
    return f"one {unit}: the bootstrap cannot vary"


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1); got {level!r}")


def bootstrap_mean(
    values: Sequence[float] | NDArray[np.float64],
    clusters: Sequence[Hashable] | None = None,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> ConfidenceInterval:
    """Percentile bootstrap CI of the mean, resampling clusters when given.

    With clusters, each resample draws clusters with replacement and takes the mean
    over all items of the drawn clusters (the ratio estimator, which handles
    clusters of unequal size). With a single cluster (or a single item) every
    resample is the data itself, so the interval is not estimable.

    Args:
        values: One number per item.
        clusters: One cluster label per item, or ``None`` for independent items.
        n_resamples: Number of bootstrap resamples.
        seed: Seed for the resampling; the same seed gives the same interval.
        level: Nominal coverage.

    Raises:
        ValueError: Empty ``values``, mismatched ``clusters``, or a bad parameter.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values must be a non-empty 1-d sequence; got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("values must all be finite")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1; got {n_resamples!r}")
    _check_level(level)
    rng = np.random.default_rng(seed)
    sums: NDArray[np.float64]
    sizes: NDArray[np.float64]
    if clusters is None:
        sums = x
        sizes = np.ones_like(x)
    else:
        if len(clusters) != x.size:
            raise ValueError(f"clusters has {len(clusters)} labels but values has {x.size} entries")
        # Label clusters by first appearance: stable across processes (unlike hash()).
        index: dict[Hashable, int] = {}
        inverse = np.fromiter(
            (index.setdefault(c, len(index)) for c in clusters), dtype=np.intp, count=x.size
        )
        sums = np.bincount(inverse, weights=x).astype(np.float64)
        sizes = np.bincount(inverse).astype(np.float64)
    k = sums.size
    reason = single_cluster_reason(k, clusters is not None)
    if reason is not None:
        return ConfidenceInterval.not_estimable(reason, level)
    counts = rng.multinomial(k, np.full(k, 1.0 / k), size=n_resamples).astype(np.float64)
    means = (counts @ sums) / (counts @ sizes)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return ConfidenceInterval(float(low), float(high), level)
