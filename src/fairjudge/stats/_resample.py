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

Every public function starts the same way: check the options, decide what a
resample draws (items or questions), and record the options in its result. That is
:func:`plan_bootstrap`, :class:`BootstrapPlan` and the :class:`Resampled` base of
the results, so the checks, the draws and the not-estimable rules are written once.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypedDict

import numpy as np

from fairjudge.stats._intervals import ConfidenceInterval, single_cluster_reason
from fairjudge.stats._validate import (
    FloatArray,
    IntArray,
    check_clusters,
    check_level,
    check_n_resamples,
    check_seed,
)

__all__ = [
    "BootstrapOptions",
    "BootstrapPlan",
    "Resampled",
    "ResamplingRecord",
    "chunk_sizes",
    "cluster_draws",
    "nan_to_none",
    "percentile_bounds",
    "plan_bootstrap",
    "unstable_reason",
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


def cluster_draws(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> FloatArray:
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


def weighted_means(draws: FloatArray, sums: FloatArray, sizes: FloatArray) -> FloatArray:
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
    samples: FloatArray, level: float, *, method: str = "linear"
) -> tuple[FloatArray, FloatArray]:
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


def unstable_reason(n_bad: int, n_resamples: int, level: float, what: str) -> str | None:
    """Why an interval is not estimable when ``n_bad`` resamples were degenerate.

    A degenerate resample (a fit with no finite maximum) gives an arbitrary extreme
    value, which lands in a tail. While such values fill at most half of one tail,
    ``(1 - level) / 4`` of the resamples, the percentile bound still lies among
    proper fits; beyond that it may be one of the arbitrary values.

    Args:
        n_bad: Degenerate resamples.
        n_resamples: All resamples.
        level: Nominal coverage.
        what: What went wrong in them, completing "N of B bootstrap resamples ...".

    Returns:
        The reason, or ``None`` when few enough resamples were degenerate.
    """
    if n_bad <= (1.0 - level) / 4.0 * n_resamples:
        return None
    return f"{n_bad} of {n_resamples} bootstrap resamples {what}"


class ResamplingRecord(TypedDict):
    """The options a bootstrap result records (see :class:`Resampled`)."""

    n_questions: int | None
    n_resamples: int
    seed: int
    level: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Resampled:
    """What every bootstrap result records, so that it can be redone exactly.

    Attributes:
        n_questions: Clusters resampled, when questions were given.
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap.
        level: Nominal coverage of the intervals.
    """

    n_questions: int | None
    n_resamples: int
    seed: int
    level: float

    def resampling_dict(self) -> dict[str, Any]:
        """The recorded options, JSON-ready: the tail of every result's ``to_dict``."""
        return {f.name: getattr(self, f.name) for f in fields(Resampled)}


@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapPlan(Resampled):
    """The checked options of one bootstrap and what each resample draws.

    The options its result records are :class:`Resampled`'s (``n_questions`` is
    ``n_clusters`` when questions were given, else ``None``).

    Attributes:
        clusters: ``(n_items,)`` cluster code of each item (its own index when no
            questions were given).
        n_clusters: Number of clusters.
    """

    clusters: IntArray
    n_clusters: int

    @property
    def reason(self) -> str | None:
        """Why no interval can be estimated at all (a single cluster), or ``None``."""
        return single_cluster_reason(self.n_clusters, self.n_questions is not None)

    def record(self) -> ResamplingRecord:
        """The options for the result (``Result(..., **plan.record())``)."""
        return ResamplingRecord(
            n_questions=self.n_questions,
            n_resamples=self.n_resamples,
            seed=self.seed,
            level=self.level,
        )

    def draws(self, cells_per_resample: int) -> Iterator[FloatArray]:
        """Cluster draw counts, ``(chunk, n_clusters)`` per chunk, from a fresh seeded stream.

        Args:
            cells_per_resample: Float cells one resample needs, to size the chunks.
        """
        rng = np.random.default_rng(self.seed)
        for size in chunk_sizes(self.n_resamples, cells_per_resample):
            yield cluster_draws(self.n_clusters, size, rng)

    def intervals(
        self,
        samples: FloatArray,
        *,
        method: str = "linear",
        reasons: Sequence[str | None] | None = None,
    ) -> list[ConfidenceInterval]:
        """Percentile intervals of the columns of ``samples``, or why there are none.

        A column is not estimable when the plan is (a single cluster), when
        ``reasons`` gives it a reason, or when no resample defined it.

        Args:
            samples: ``(B,)`` or ``(B, m)`` bootstrap estimates; NaN where undefined.
            method: Passed to :func:`percentile_bounds`.
            reasons: Per column, a caller's reason (degenerate fits), or ``None``.
        """
        low, high = percentile_bounds(samples, self.level, method=method)
        out: list[ConfidenceInterval] = []
        for j in range(low.size):
            reason = self.reason or (reasons[j] if reasons is not None else None)
            if reason is None and (math.isnan(low[j]) or math.isnan(high[j])):
                reason = "undefined in every bootstrap resample"
            if reason is None:
                out.append(ConfidenceInterval(float(low[j]), float(high[j]), self.level))
            else:
                out.append(ConfidenceInterval.not_estimable(reason, self.level))
        return out


class BootstrapOptions(TypedDict, total=False):
    """The bootstrap options every statistics function takes, by keyword.

    Written once here, with their defaults and checks (:func:`plan_bootstrap`), as
    ``**options: Unpack[BootstrapOptions]`` in each function's signature.

    Attributes:
        questions: The question (any hashable label) of each item. When given,
            each resample draws whole questions with all their items: the honest
            choice when one question yields several correlated items. With a single
            question there is nothing to resample, and the intervals are not
            estimable. Default ``None``: items are resampled one by one.
        n_resamples: Bootstrap rounds; default 1000.
        seed: Seed of the bootstrap; the same seed and data give the same result.
            Default 0.
        level: Nominal coverage of the intervals; default 0.95.
    """

    questions: Sequence[Hashable] | None
    n_resamples: int
    seed: int
    level: float


def plan_bootstrap(n_items: int, options: BootstrapOptions) -> BootstrapPlan:
    """Check the bootstrap options (filling in the defaults) and the question labels.

    Args:
        n_items: Items (battles, calls) the question labels must match.
        options: The caller's ``**options``.

    Raises:
        TypeError: An option that is not a bootstrap option (a misspelling would
            otherwise be ignored silently).
        InputError: Wrong number of question labels, or an unhashable one.
        ConfigError: A bad ``n_resamples``, ``seed`` or ``level``.
    """
    unknown = sorted(set(options) - BootstrapOptions.__optional_keys__)
    if unknown:
        raise TypeError(
            f"unexpected keyword argument {unknown[0]!r}; the bootstrap options are "
            "questions, n_resamples, seed and level"
        )
    n_resamples = check_n_resamples(options.get("n_resamples", 1000))
    seed = check_seed(options.get("seed", 0))
    level = check_level(options.get("level", 0.95))
    questions = options.get("questions")
    if questions is None:
        clusters, k = np.arange(n_items, dtype=np.intp), n_items
    else:
        clusters, k = check_clusters(questions, n_items)
    return BootstrapPlan(
        clusters=clusters,
        n_clusters=k,
        n_questions=None if questions is None else k,
        n_resamples=n_resamples,
        seed=seed,
        level=level,
    )
