"""Confidence intervals, and the seeded (optionally clustered) bootstrap of a mean.

Why clustered: when several items share a question (say, two turns of one
conversation, or several model pairs on one prompt), their verdicts are correlated.
Resampling items independently would pretend to more information than there is and
give intervals that are too narrow. Resampling whole clusters keeps the correlation.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["ConfidenceInterval", "bootstrap_mean"]


@dataclass(frozen=True, slots=True)
class ConfidenceInterval:
    """A two-sided confidence interval.

    Attributes:
        low: Lower bound.
        high: Upper bound.
        level: Nominal coverage, e.g. 0.95.
    """

    low: float
    high: float
    level: float = 0.95

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form."""
        return {"low": self.low, "high": self.high, "level": self.level}

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int | float) and self.low <= value <= self.high

    def __str__(self) -> str:
        return f"[{self.low:.3f}, {self.high:.3f}]"


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
    clusters of unequal size).

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
    counts = rng.multinomial(k, np.full(k, 1.0 / k), size=n_resamples).astype(np.float64)
    means = (counts @ sums) / (counts @ sizes)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return ConfidenceInterval(float(low), float(high), level)
