"""Confidence intervals, and the seeded (optionally clustered) bootstrap of a mean.

Why clustered: when several items share a question (say, two turns of one
conversation, or several model pairs on one prompt), their verdicts are correlated.
Resampling items independently would pretend to more information than there is and
give intervals that are too narrow. Resampling whole clusters keeps the correlation.

An interval can also be *not estimable*: from a single cluster every resample is
the same data, so the bootstrap cannot vary and a zero-width interval would claim a
certainty that does not exist. Such an interval carries the reason instead of
bounds, and prints as ``cannot be estimated: <reason>``.

A proportion (a win rate) whose clusters all have the same mean, every item won,
lost or tied, is the other case where the bootstrap cannot vary, from any number of
clusters. :func:`bootstrap_mean` with ``proportion=True`` then gives
:func:`alike_interval` instead of the zero-width one, with a ``note`` that says so: the
Wilson score interval on the clusters when every cluster's share is 0 or every one's
is 1 (a binomial count), and the bound from "0 of ``n`` clusters off the share" when the
share lies between (every question 1/2), where Wilson's interval would not apply.
"""

from __future__ import annotations

import math
import os
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import Future

    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "ConfidenceInterval",
    "Estimable",
    "bootstrap_mean",
    "prefetch_resamples",
    "shared_resamples",
    "single_cluster_reason",
]

# numpy is imported where a bootstrap runs, not here: ConfidenceInterval is in every
# result type, and a command's --help should not pay for numpy.

_SHARED_BYTES = 256 << 20  # at most this much of kept resampling plans per scope
_shared: ContextVar[dict[tuple[int, int, int], NDArray[np.float64]] | None] = ContextVar(
    "fairjudge_shared_resamples", default=None
)
# Plans being drawn in the background (``prefetch_resamples``).
_pending: ContextVar[dict[tuple[int, int, int], Future[NDArray[np.float64]]] | None] = ContextVar(
    "fairjudge_pending_resamples", default=None
)


class Estimable:
    """A value that means something unless it carries the reason it does not.

    The base of every figure that can be refused (an interval, a rating, a style
    coefficient): ``reason`` is ``None`` when the figure can be estimated.
    """

    __slots__ = ()
    reason: str | None

    @property
    def estimable(self) -> bool:
        """Whether the figure means anything: it has no reason why not."""
        return self.reason is None


@dataclass(frozen=True, slots=True)
class ConfidenceInterval(Estimable):
    """A two-sided confidence interval, or the reason there is none.

    Attributes:
        low: Lower bound (NaN when not estimable).
        high: Upper bound (NaN when not estimable).
        level: Nominal coverage, e.g. 0.95.
        reason: Why the interval cannot be estimated; ``None`` when it can.
        note: How an estimable interval was formed when it is not the percentile
            bootstrap (:func:`alike_interval`, for a bootstrap that could not vary);
            ``None`` for the usual one. Its head, up to the first colon, is printed
            after the bounds; the whole note is written to JSON as ``"note"``, only
            when set.
    """

    low: float
    high: float
    level: float = 0.95
    reason: str | None = None
    note: str | None = field(default=None, repr=False)

    @classmethod
    def not_estimable(cls, reason: str, level: float = 0.95) -> ConfidenceInterval:
        """An interval that cannot be estimated, with NaN bounds and the reason."""
        return cls(math.nan, math.nan, level, reason)

    @classmethod
    def alike_point(cls, value: float, level: float, why: str) -> ConfidenceInterval:
        """The point ``[value, value]`` of a bootstrap that could not vary, marked so.

        Every resample gave ``value`` (``why`` says what made them alike: every
        question's mean the same, every member's scores the same), so the bounds rule
        nothing out. The ``note`` (head :data:`ALIKE_HEAD`) says so, and
        :attr:`cannot_vary` is true: no verdict is to be read from it.
        """
        note = (
            f"{ALIKE_HEAD}: {why}; this point is no measured certainty, and no verdict rests on it"
        )
        return cls(value, value, level, note=note)

    @property
    def cannot_vary(self) -> bool:
        """Whether the bounds are a point no resample could move (:meth:`alike_point`).

        Read from the note's head, which only :meth:`alike_point` writes, so the fact
        survives ``to_dict`` and a report that reads the interval back. A measured
        interval, and a bound built for alike data (:func:`alike_interval`), are not.
        """
        return self.note is not None and self.note.startswith(f"{ALIKE_HEAD}:")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: bounds are ``null`` when not estimable, and the reason says why."""
        out: dict[str, Any] = {
            "low": self.low if self.estimable else None,
            "high": self.high if self.estimable else None,
            "level": self.level,
            "estimable": self.estimable,
            "reason": self.reason,
        }
        if self.note is not None:
            out["note"] = self.note
        return out

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int | float) and self.low <= value <= self.high

    def __format__(self, spec: str) -> str:
        # ``f"{ci:.1f}"`` formats both bounds, so every summary prints intervals, and
        # the reason when there are none, the same way.
        if self.reason is not None:
            return f"cannot be estimated: {self.reason}"
        spec = spec or ".3f"
        bounds = f"[{self.low:{spec}}, {self.high:{spec}}]"
        # A note's head, before its colon, follows the bounds (a table cell is narrow).
        return bounds if self.note is None else f"{bounds} ({self.note.split(':', 1)[0]})"

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


def wilson_interval(p: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` observed on ``n`` units.

    ``center ± half`` with ``center = (p + z²/2n) / (1 + z²/n)`` and
    ``half = z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)``; for ``p = 0`` that is
    ``[0, z²/(n + z²)]``, and for ``p = 1`` its mirror. Unlike the percentile
    bootstrap it has width when every unit went the same way.
    """
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1.0 - p), 0.0) / n + z2 / (4.0 * n * n))
    low = 0.0 if p <= 0.0 else max(0.0, center - half)
    high = 1.0 if p >= 1.0 else min(1.0, center + half)
    return low, high


ALIKE_HEAD = "all alike, the bootstrap cannot vary"
"""The head of the note on a figure's point interval whose clusters all have one mean."""


def _alike(means: NDArray[np.float64]) -> bool:
    """Whether a proportion's cluster means are all equal: the bootstrap cannot vary."""
    return bool(means.size) and float(means.max() - means.min()) <= 1e-12


def alike_interval(
    p: float, n: int, level: float, clustered: bool, *, span: tuple[float, float] | None = None
) -> ConfidenceInterval:
    """The interval of a proportion ``p`` that every one of its ``n`` clusters shares.

    Every cluster (question; item when not clustered) has the same share, so the
    percentile bootstrap cannot vary and would give ``[p, p]``. Then:

    - ``p`` 0 or 1 (every unit a failure, or a success): a binomial count, ``0`` or
      ``n`` of ``n``, and the interval is Wilson's on the ``n`` units.
    - ``p`` between (every question's share 1/2, say: a consistent judge chooses the
      first slot on half of each item's calls): no count of successes, and Wilson at
      ``p`` would treat each unit as a coin toss. What was seen is that 0 of the ``n``
      units is off ``p``. So at most ``u`` of all units are, ``u`` the Wilson upper
      bound of 0 of ``n`` at ``level``, and each of those moves the share at most to
      0 or to 1: the share lies in ``[p (1 - u), p + (1 - p) u]`` (``1/2 ± u/2`` at
      ``p = 1/2``). At ``p`` 0 or 1 this is Wilson's interval itself.

    ``span=(lo, hi)``: ``p`` is no share but a mean of per-pair values in
    ``[lo, hi]`` (preference fairness: second-position minus first-position, each
    pair -1, 0 or +1), a linear function of the share ``s = (p - lo) / (hi - lo)``.
    The bound above, on ``s``, is mapped back: ``[p - (p - lo) u, p + (hi - p) u]``
    (``±u`` for fairness 0), at every ``p``, since the value is no count.

    Questions of similar size are assumed: "``u`` of the questions" bounds the share
    that counts each question once, while ``p`` counts items, so a question larger
    than the rest moves it further; the note says so. Unclustered, each unit is one
    item and the bound is as stated.

    Its ``note`` says which, its head (printed after the bounds) ``Wilson, all alike``
    or ``bound from 0/n off p``. ``n`` is at least 2 (one cluster: not estimable).
    """
    unit = "question" if clustered else "item"
    what = "a share" if span is None else "a value"
    seen = f"all {n} {unit}s have {what} of {p:.3g}, so the bootstrap cannot vary"
    if span is None and (p <= 1e-12 or p >= 1.0 - 1e-12):  # every unit 0, or 1: a count
        note = (
            f"Wilson, all alike: {seen}; this is the Wilson score interval of {round(p) * n} of {n}"
        )
        return ConfidenceInterval(*wilson_interval(float(round(p)), n, level), level, note=note)
    lo, hi = span or (0.0, 1.0)
    u = wilson_interval(0.0, n, level)[1]
    off = f"None of the {n} {unit}s is off {p:.3g}, so at most {u:.3f} of all {unit}s are"
    off += f" (the Wilson upper bound of 0 of {n})"
    if span is None:
        note = (
            f"bound from 0/{n} off {p:.3g}: {seen}. A share between 0 and 1 is no count of "
            f"successes, so Wilson's interval does not apply to it. {off}, and each of those "
            f"moves the share at most to 0 or 1: the share lies in [{p:.3g} x (1 - {u:.3f}), "
            f"{p:.3g} + {1 - p:.3g} x {u:.3f}]"
        )
    else:
        note = (
            f"bound from 0/{n} off {p:.3g}: {seen}. A mean of values from {lo:g} to {hi:g} "
            f"is no count of successes, so Wilson's interval does not apply to it. {off}, and "
            f"each of those moves the value at most to {lo:g} or {hi:g}: the value lies in "
            f"[{p:.3g} - {p - lo:.3g} x {u:.3f}, {p:.3g} + {hi - p:.3g} x {u:.3f}]"
        )
    if clustered:  # the bound counts questions, p items (F5): say what it assumes
        note += f". This assumes questions of similar size: the {what[2:]} weighs each by its items"
    s = (p - lo) / (hi - lo)  # p itself for a share
    low, high = s * (1.0 - u), s + (1.0 - s) * u
    return ConfidenceInterval(lo + (hi - lo) * low, lo + (hi - lo) * high, level, note=note)


def did_not_vary(samples: NDArray[np.float64]) -> bool:
    """Whether a bootstrap's defined resample values are all one value (NaNs left out).

    Then its percentile interval is a point that no resample could move. The
    tolerance, ``1e-9`` of the values' size, is the iterative fits' round-off (a
    logistic fit converges to ``1e-10``), far below any real spread.
    """
    import numpy as np

    finite = samples[np.isfinite(samples)]
    if not finite.size:
        return False
    spread = float(finite.max() - finite.min())
    return spread <= 1e-9 * max(1.0, float(np.abs(finite).max()))


def wilson_when_alike(
    ci: ConfidenceInterval,
    shares: NDArray[np.float64],
    p: float,
    clustered: bool,
    span: tuple[float, float] | None = None,
) -> ConfidenceInterval:
    """``ci``, or :func:`alike_interval` on the clusters when their ``shares`` are all alike.

    For a proportion resampled by another path than :func:`bootstrap_mean` (the
    position-bias shares, judge-human agreement): the same rule as its
    ``proportion=True``, with ``n`` the clusters whose shares are given. ``span``: the
    values are means over ``[lo, hi]``, not shares (preference fairness, in [-1, 1]).
    One such cluster (S2's decided items all in one question) is not estimable, for
    the reason a run of one question is.
    """
    if not ci.estimable or not _alike(shares):
        return ci
    if (reason := single_cluster_reason(shares.size, clustered)) is not None:
        return ConfidenceInterval.not_estimable(reason, ci.level)
    return alike_interval(p, shares.size, ci.level, clustered, span=span)


@contextmanager
def shared_resamples() -> Iterator[None]:
    """Draw each resampling plan once for the bootstraps inside this block.

    A bootstrap of ``k`` clusters with ``n_resamples`` and ``seed`` draws the same
    multinomial counts whatever the values are, and drawing them is most of its cost
    (about 0.6 s for 5,000 clusters and 2,000 resamples). Inside this block the first
    draw of each ``(k, n_resamples, seed)`` is kept and reused, so a summary's
    intervals (win rate, single order, consistency, first position, and the same
    calls under another rule) cost one draw instead of one each. The intervals are
    the same, bit for bit. Blocks nest (the outermost one keeps the plans), and the
    plans are dropped when it ends; at most 256 MB of them are kept at a time.

    Example:
        >>> with shared_resamples():
        ...     wins = bootstrap_mean([0.0, 1.0, 1.0, 0.5], seed=1)
        ...     ties = bootstrap_mean([0.0, 0.0, 0.0, 1.0], seed=1)  # wins' plan, reused
    """
    if _shared.get() is not None:
        yield
        return
    token, pending = _shared.set({}), _pending.set({})
    try:
        yield
    finally:
        _pending.reset(pending)  # a draw still running finishes unused
        _shared.reset(token)


def prefetch_resamples(ks: Iterable[int], n_resamples: int, seed: int) -> None:
    """Start drawing, in the background, the plans that bootstraps inside a block will need.

    numpy releases the GIL while it draws, so the plans (one thread per plan, up to one
    per core) are drawn while the caller goes on: a command that knows the likely
    cluster count before its calls (the number of questions) has the plan drawn while
    the calls run or are read from the store, and a summary has the plan over
    decisive calls drawn while it computes the other intervals. A bootstrap that needs
    a plan waits for it; one that needs another never sees it. Each plan is exactly
    the one :func:`bootstrap_mean` would draw. Outside a :func:`shared_resamples`
    block this does nothing, and a plan too large to keep is drawn where it is needed.

    Args:
        ks: The cluster counts of the bootstraps to come.
        n_resamples: Their number of resamples.
        seed: Their seed.
    """
    plans, pending = _shared.get(), _pending.get()
    if plans is None or pending is None:
        return
    keys = {(k, n_resamples, seed) for k in ks if k >= 2}
    missing = sorted(
        key
        for key in keys
        if key not in plans and key not in pending and 8 * key[0] * key[1] <= _SHARED_BYTES
    )
    if not missing:
        return
    from concurrent.futures import ThreadPoolExecutor

    workers = min(len(missing), os.cpu_count() or 1)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fairjudge-resample")
    pending.update({key: pool.submit(_draw, *key) for key in missing})
    pool.shutdown(wait=False)


def _draw(k: int, n_resamples: int, seed: int) -> NDArray[np.float64]:
    """How often each of ``k`` clusters is drawn in each resample (one row per resample)."""
    import numpy as np
    import numpy.ma  # np.quantile imports it on first use (50 ms): here, off the main thread

    rng = np.random.default_rng(seed)
    return rng.multinomial(k, np.full(k, 1.0 / k), size=n_resamples).astype(np.float64)


def _keep(
    plans: dict[tuple[int, int, int], NDArray[np.float64]],
    key: tuple[int, int, int],
    counts: NDArray[np.float64],
) -> None:
    if counts.nbytes > _SHARED_BYTES:
        return
    while plans and sum(c.nbytes for c in plans.values()) + counts.nbytes > _SHARED_BYTES:
        del plans[next(iter(plans))]  # the oldest plan goes first
    counts.flags.writeable = False  # shared: nobody may change it
    plans[key] = counts


def _resample_counts(k: int, n_resamples: int, seed: int) -> NDArray[np.float64]:
    """The plan for ``k`` clusters: the shared one when a block holds it, else a new draw."""
    plans, key = _shared.get(), (k, n_resamples, seed)
    counts = plans.get(key) if plans is not None else None
    if counts is None:
        drawing = (_pending.get() or {}).pop(key, None)  # being drawn in the background
        counts = drawing.result() if drawing is not None else _draw(k, n_resamples, seed)
        if plans is not None:
            _keep(plans, key, counts)
    return counts


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
    proportion: bool = False,
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
        proportion: The values are a proportion's (a win rate: 1, ½, 0, or a
            probability). When every cluster then has the same mean (every item won,
            or lost, or tied), the bootstrap cannot vary and its interval would have
            zero width at any size; :func:`alike_interval` on the clusters, at
            ``level``, is given instead (Wilson's at a mean of 0 or 1), with a
            ``note`` saying so. Any other interval is the percentile bootstrap's,
            unchanged.

    Any other figure whose clusters all have the same mean (a score difference of 0
    on every question) keeps the point interval, no bound is invented for it, but
    its ``note`` (head ``all alike, the bootstrap cannot vary``) says so: a verdict
    is not to be read from it.

    Raises:
        ValueError: Empty ``values``, mismatched ``clusters``, or a bad parameter.
    """
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values must be a non-empty 1-d sequence; got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("values must all be finite")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1; got {n_resamples!r}")
    _check_level(level)
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
    if _alike(sums / sizes):
        m = float(sums.sum() / sizes.sum())
        if proportion:
            return alike_interval(m, k, level, clusters is not None)
        # No bound invented: the point, marked as what it is.
        unit = "questions" if clusters is not None else "items"
        why = f"all {k} {unit} have a mean of {m:.4g}, so every resample gives it"
        return ConfidenceInterval.alike_point(m, level, why)
    counts = _resample_counts(k, n_resamples, seed)
    # A resample draws k clusters: with one item each, every size is k, exactly (the
    # sums of whole numbers below 2**53 are exact), without a pass over the plan.
    drawn = float(k) if sizes.max() == 1.0 else counts @ sizes
    means = (counts @ sums) / drawn
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return ConfidenceInterval(float(low), float(high), level)
