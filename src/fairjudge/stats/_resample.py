"""Bootstrap machinery shared by the statistics modules.

Every bootstrap here is a *reweighting*: a resample is described by how many times
each cluster (a question, or a single item when there are no clusters) was drawn.
Estimators then take weighted sums, which lets many resamples run as one matrix
product instead of a Python loop, and lets a clustered bootstrap and a plain one
share the same code (a plain bootstrap is the clustered one with one item per
cluster).

Intervals are percentile intervals, as in Chatbot Arena and Arena-Hard-Auto.
Resamples on which an estimator is undefined (a correlation of a constant, a rating
of a model that no resampled battle involves) are passed as NaN and left out of
that interval; callers report how many there were.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

from fairjudge.stats._intervals import ConfidenceInterval

__all__ = [
    "chunk_sizes",
    "cluster_draws",
    "nan_to_none",
    "percentile_bounds",
    "percentile_interval",
    "weighted_means",
]

_CELL_BUDGET = 1 << 23
"""How many float64 cells (64 MiB) one chunk of resamples may hold."""


def chunk_sizes(n_resamples: int, cells_per_resample: int) -> Iterator[int]:
    """Split ``n_resamples`` into chunks that keep memory near 64 MiB.

    Chunk sizes depend only on the shape of the data, so the same data and seed
    always give the same draws.
    """
    per_chunk = max(1, _CELL_BUDGET // max(1, cells_per_resample))
    done = 0
    while done < n_resamples:
        size = min(per_chunk, n_resamples - done)
        yield size
        done += size


def cluster_draws(
    n_clusters: int, n_resamples: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """How often each cluster is drawn in each resample: shape ``(n_resamples, n_clusters)``.

    Each row is a Multinomial(k, 1/k) vector, drawn as k uniform indices and counted;
    for equal probabilities that is exact and much faster than ``rng.multinomial``,
    which draws one binomial per category.
    """
    k = n_clusters
    idx = rng.integers(0, k, size=(n_resamples, k))
    idx += (np.arange(n_resamples) * k)[:, None]
    counts = np.bincount(idx.ravel(), minlength=n_resamples * k)
    return counts.reshape(n_resamples, k).astype(np.float64)


def weighted_means(
    draws: NDArray[np.float64], sums: NDArray[np.float64], sizes: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Ratio estimator of a mean for each resample.

    Args:
        draws: ``(B, k)`` cluster draw counts.
        sums: ``(k,)`` or ``(k, m)`` per-cluster sums of the item values.
        sizes: ``(k,)`` per-cluster item counts (or weights).

    Returns:
        ``(B,)`` or ``(B, m)`` means; NaN where a resample drew no weight.
    """
    num = draws @ sums
    den = draws @ sizes
    with np.errstate(invalid="ignore", divide="ignore"):
        if num.ndim == 2:
            return np.where(den[:, None] > 0, num / den[:, None], np.nan)
        return np.where(den > 0, num / den, np.nan)


def percentile_bounds(
    samples: NDArray[np.float64], level: float, *, method: str = "linear"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Percentile bounds of each column of ``samples`` (shape ``(B,)`` or ``(B, m)``).

    NaN entries (resamples on which the estimator is undefined) are left out column
    by column; a column with no defined entry gets NaN bounds. ``method`` is passed
    to :func:`numpy.quantile` (``"inverted_cdf"`` keeps integer-valued samples, such
    as ranks, integer).
    """
    x = samples if samples.ndim == 2 else samples[:, None]
    alpha = (1.0 - level) / 2.0
    low = np.full(x.shape[1], np.nan)
    high = np.full(x.shape[1], np.nan)
    keep = ~np.isnan(x)
    if keep.all():
        q = np.quantile(x, [alpha, 1.0 - alpha], axis=0, method=method)  # type: ignore[call-overload]
        low, high = q[0], q[1]
    else:
        for j in range(x.shape[1]):
            col = x[keep[:, j], j]
            if col.size:
                low[j], high[j] = np.quantile(col, [alpha, 1.0 - alpha], method=method)  # type: ignore[call-overload]
    return low, high


def nan_to_none(x: float) -> float | None:
    """JSON has no NaN: an undefined estimate is written as ``null``."""
    return None if math.isnan(x) else x


def percentile_interval(samples: NDArray[np.float64], level: float) -> ConfidenceInterval:
    """Percentile interval of a 1-d array of bootstrap estimates (NaNs left out)."""
    low, high = percentile_bounds(samples, level)
    return ConfidenceInterval(float(low[0]), float(high[0]), level)
