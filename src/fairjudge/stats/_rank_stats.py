"""Rank correlations for many bootstrap resamples at once, their result shape, and a gate.

Bootstraps here are reweightings (see :mod:`._resample`): a resample is a vector of
draw counts, so Spearman's midranks and Kendall's concordance are computed for all
resamples at once from the weights. Shared by the item-level correlation of scores
(:func:`score_correlation`, here) and the system-level one (:mod:`._system_agreement`).

:func:`score_correlation` correlates judge and human scores, Spearman and Kendall with
bootstrap intervals, and applies a gate (Spearman >= 0.7 by default, the usual bar for
trusting a judge prompt before running it at scale). The bootstrap resamples items,
or questions when given.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import scipy.sparse as sp
from scipy.stats import kendalltau, rankdata

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._resample import (
    BootstrapOptions,
    BootstrapPlan,
    Resampled,
    ResamplingRecord,
    nan_to_none,
    plan_bootstrap,
)
from fairjudge.stats._validate import FloatArray, check_finite, check_same_length

__all__ = [
    "DENSE_KENDALL_MAX",
    "GRID_KENDALL_MAX",
    "CorrelationFields",
    "CorrelationResult",
    "RankCorrelation",
    "correlation_fields",
    "kendall",
    "kendall_grid",
    "kendall_loop",
    "rank_corr_rows",
    "score_correlation",
    "spearman",
    "weighted_pearson",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class RankCorrelation(Resampled):
    """Spearman's and Kendall's correlations with their bootstrap intervals.

    Attributes:
        spearman: Spearman's rho (NaN if either side is constant).
        spearman_ci: Its bootstrap interval, or why there is none.
        kendall: Kendall's tau-b.
        kendall_ci: Its bootstrap interval, or why there is none.
    """

    spearman: float
    spearman_ci: ConfidenceInterval
    kendall: float
    kendall_ci: ConfidenceInterval

    def correlation_lines(self) -> list[str]:
        """One summary line per coefficient."""
        return [
            f"  Spearman  {self.spearman:.3f} {self.spearman_ci}",
            f"  Kendall   {self.kendall:.3f} {self.kendall_ci}",
        ]

    def correlation_dict(self) -> dict[str, Any]:
        """The shared fields, JSON-ready (NaN becomes ``None``)."""
        return {
            "spearman": nan_to_none(self.spearman),
            "spearman_ci": self.spearman_ci.to_dict(),
            "kendall": nan_to_none(self.kendall),
            "kendall_ci": self.kendall_ci.to_dict(),
            **self.resampling_dict(),
        }


class CorrelationFields(ResamplingRecord):
    """The fields of :class:`RankCorrelation`, for ``Result(**correlation_fields(...))``."""

    spearman: float
    spearman_ci: ConfidenceInterval
    kendall: float
    kendall_ci: ConfidenceInterval


def correlation_fields(
    point: FloatArray, boot: FloatArray, plan: BootstrapPlan
) -> CorrelationFields:
    """Spearman and Kendall with their intervals.

    Args:
        point: ``(2,)`` Spearman and Kendall on the data.
        boot: ``(B, 2)`` the same per resample; NaN where undefined.
        plan: The bootstrap's options.
    """
    spearman_ci, kendall_ci = plan.intervals(boot)
    return CorrelationFields(
        spearman=float(point[0]),
        spearman_ci=spearman_ci,
        kendall=float(point[1]),
        kendall_ci=kendall_ci,
        **plan.record(),
    )


def weighted_midranks(x: FloatArray, w: FloatArray) -> FloatArray:
    """Midranks each item would have in each resample, ``(B, n)``.

    In a resample, item ``i`` appears ``w[b, i]`` times; its midrank counts the
    drawn items with smaller values plus half of those with equal values.
    """
    uniq, inv = np.unique(x, return_inverse=True)
    onehot = sp.csr_array((np.ones(x.size), (np.arange(x.size), inv)), shape=(x.size, uniq.size))
    per_value = np.asarray((onehot.T @ w.T).T)
    below = np.cumsum(per_value, axis=1) - per_value
    mid = below + (per_value + 1.0) / 2.0
    out: FloatArray = mid[:, inv]
    return out


def weighted_pearson(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    """Pearson's r of each resample (rows of ``w``); NaN where either side is constant."""
    tot = w.sum(axis=1, keepdims=True)
    mx = (w * x).sum(axis=1, keepdims=True) / tot
    my = (w * y).sum(axis=1, keepdims=True) / tot
    dx, dy = x - mx, y - my
    cov = (w * dx * dy).sum(axis=1)
    var = (w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, cov / np.sqrt(var), np.nan)


def spearman(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    """Spearman's rho of each resample (rows of ``w``); NaN if either side is constant."""
    return weighted_pearson(weighted_midranks(x, w), weighted_midranks(y, w), w)


def kendall(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    """Kendall's tau-b of each resample.

    With item ``i`` drawn ``w_i`` times, concordant minus discordant pairs are
    ``w^T S w / 2`` with ``S_ij = sign(x_i - x_j) sign(y_i - y_j)``, and the pairs
    untied in x are ``w^T T_x w / 2`` with ``T_x,ij = [x_i != x_j]``: three
    quadratic forms per resample, all resamples at once.
    """
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    num = ((w @ (sx * sy)) * w).sum(axis=1)
    den = ((w @ np.abs(sx)) * w).sum(axis=1) * ((w @ np.abs(sy)) * w).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.sqrt(den), np.nan)


DENSE_KENDALL_MAX = 2000
"""Above this many distinct (judge, human) pairs, and when the pairs do not fit
:data:`GRID_KENDALL_MAX`, Kendall's tau is computed round by round with scipy
(O(n log n)) instead of the O(n^2) quadratic forms."""

GRID_KENDALL_MAX = 1 << 16
"""At most this many cells (distinct x values times distinct y values), Kendall's
tau is counted on the grid of weights (:func:`kendall_grid`)."""

_GRID_BLOCK = 1 << 22  # float cells of one block of resamples on the grid (32 MiB)


def kendall_grid(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    """Kendall's tau-b of each resample, counted on the grid of distinct (x, y) values.

    The same coefficient as :func:`kendall`, in O(distinct x * distinct y) per
    resample instead of O(pairs^2): the fast path for scores on a few levels (a
    rubric's 1-5 against a panel's mean of the others, with hundreds of values).
    Each resample's weights are summed into a grid ``M[a, c]`` (x's a-th value,
    y's c-th); a pair of cells is concordant when one lies below and left of the
    other, so with ``Q[a, c]`` the weight strictly below ``a`` in column ``c``,
    concordant minus discordant pairs (both orders) are
    ``2 Σ M[a, c] (Σ_{c'<c} Q[a, c'] - Σ_{c'>c} Q[a, c'])``; the pairs untied in x
    are ``T² - Σ_a (Σ_c M[a, c])²``, likewise in y. With whole draw counts every
    sum is an integer well below 2^53, so the result equals the quadratic forms'
    to the last bit.
    """
    xv, a = np.unique(x, return_inverse=True)
    yv, c = np.unique(y, return_inverse=True)
    cells = xv.size * yv.size
    onehot = sp.csr_array(
        (np.ones(x.size), (np.arange(x.size), a.ravel() * yv.size + c.ravel())),
        shape=(x.size, cells),
    )
    out = np.empty(w.shape[0])
    rows = max(1, _GRID_BLOCK // cells)
    for start in range(0, w.shape[0], rows):
        block = w[start : start + rows]
        grid = np.asarray((onehot.T @ block.T).T).reshape(-1, xv.size, yv.size)
        below = np.cumsum(grid, axis=1) - grid  # weight at smaller x, same y
        left = np.cumsum(below, axis=2) - below  # ... and smaller y
        right = below.sum(axis=2, keepdims=True) - left - below  # ... and larger y
        num = 2.0 * (grid * (left - right)).sum(axis=(1, 2))
        total = grid.sum(axis=(1, 2))
        untied_x = total * total - (grid.sum(axis=2) ** 2).sum(axis=1)
        untied_y = total * total - (grid.sum(axis=1) ** 2).sum(axis=1)
        den = untied_x * untied_y
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + rows] = np.where(den > 0, num / np.sqrt(den), np.nan)
    return out


def kendall_loop(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    """Kendall's tau-b of each resample, one scipy call each (for many distinct values)."""
    out = np.full(w.shape[0], np.nan)
    counts = np.rint(w).astype(np.intp)
    for b in range(w.shape[0]):
        xs, ys = np.repeat(x, counts[b]), np.repeat(y, counts[b])
        with warnings.catch_warnings():
            # A constant resample has no tau: it is reported as NaN and counted.
            warnings.simplefilter("ignore")
            out[b] = kendalltau(xs, ys).statistic
    return out


def rank_corr_rows(u: FloatArray, v: FloatArray) -> FloatArray:
    """Spearman and Kendall tau-b between matching rows of ``u`` and ``v``, ``(B, 2)``."""
    ru = rankdata(u, axis=1)
    rv = rankdata(v, axis=1)
    rho = weighted_pearson(ru, rv, np.ones_like(ru))
    su = np.sign(u[:, :, None] - u[:, None, :])
    sv = np.sign(v[:, :, None] - v[:, None, :])
    num = (su * sv).sum(axis=(1, 2))
    den = np.abs(su).sum(axis=(1, 2)) * np.abs(sv).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(den > 0, num / np.sqrt(den), np.nan)
    return np.stack([rho, tau], axis=1)


@dataclass(frozen=True, slots=True)
class CorrelationResult(RankCorrelation):
    """Rank correlation between judge and human scores, and the gate.

    The correlations and the bootstrap's options are described on
    :class:`RankCorrelation`.

    Attributes:
        min_spearman: The gate's threshold.
        passed: ``spearman >= min_spearman``.
        passed_at_lower_bound: Whether even the interval's lower end clears it
            (``False`` when the interval cannot be estimated).
        n: Items.
        n_degenerate_resamples: Resamples where a side was constant (left out).
    """

    min_spearman: float
    passed: bool
    passed_at_lower_bound: bool
    n: int
    n_degenerate_resamples: int

    def summary(self) -> str:
        """The correlations and the verdict of the gate."""
        verdict = "PASS" if self.passed else "FAIL"
        if not self.spearman_ci.estimable:
            note = " (no interval to check its lower end against)"
        elif self.passed_at_lower_bound:
            note = f" (the interval's lower end, {self.spearman_ci.low:.3f}, clears it too)"
        else:
            note = f" (the interval's lower end, {self.spearman_ci.low:.3f}, does not clear it)"
        return "\n".join(
            [
                f"Judge-human score correlation on {self.n} items ({self.n_resamples} resamples, "
                f"seed {self.seed})",
                *self.correlation_lines(),
                f"  {verdict}: Spearman {self.spearman:.3f} vs threshold "
                f"{self.min_spearman:.2f}{note}",
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            **self.correlation_dict(),
            "min_spearman": self.min_spearman,
            "passed": self.passed,
            "passed_at_lower_bound": self.passed_at_lower_bound,
            "n": self.n,
            "n_degenerate_resamples": self.n_degenerate_resamples,
        }


def _correlations(
    x: FloatArray,
    y: FloatArray,
    plan: BootstrapPlan,
) -> tuple[FloatArray, FloatArray]:
    """Point and cluster-bootstrap Spearman and Kendall: ``(2,)`` and ``(n_resamples, 2)``.

    Items with the same (judge, human) pair are merged first (scores are usually a
    handful of integers): identical pairs are tied on both sides, so merging them
    and adding their weights changes neither coefficient, and it turns the O(n^2)
    Kendall forms into O(distinct pairs^2).
    """
    pairs, inv = np.unique(np.column_stack([x, y]), axis=0, return_inverse=True)
    inv = inv.ravel()
    u = pairs.shape[0]
    xu, yu = pairs[:, 0], pairs[:, 1]
    merge = sp.csr_array((np.ones(x.size), (np.arange(x.size), inv)), shape=(x.size, u))
    k = plan.n_clusters
    # The grid blocks its own memory, the quadratic forms need u^2 cells per resample.
    # Chunks only size memory: the draws are one stream however it is cut.
    if np.unique(xu).size * np.unique(yu).size <= GRID_KENDALL_MAX:
        tau, cells = kendall_grid, k + 4 * u
    else:
        tau = kendall if u <= DENSE_KENDALL_MAX else kendall_loop
        cells = k + 4 * u + u * u // 8
    ones: FloatArray = np.asarray(merge.sum(axis=0), dtype=np.float64).reshape(1, u)
    point = np.array([spearman(xu, yu, ones)[0], tau(xu, yu, ones)[0]])
    by_cluster = sp.csr_array((np.ones(x.size), (plan.clusters, inv)), shape=(k, u))
    out: list[FloatArray] = []
    for draws in plan.draws(cells):
        w = np.asarray((by_cluster.T @ draws.T).T)
        out.append(np.stack([spearman(xu, yu, w), tau(xu, yu, w)], axis=1))
    return point, np.concatenate(out)


def score_correlation(
    judge_scores: Sequence[float],
    human_scores: Sequence[float],
    *,
    min_spearman: float = 0.7,
    **options: Unpack[BootstrapOptions],
) -> CorrelationResult:
    """Spearman and Kendall correlation of judge and human scores, with a gate.

    The gate passes when Spearman's rho is at least ``min_spearman`` (0.7 by
    default: the usual bar for trusting a judge prompt on 20-30 human-labelled
    samples before running it at scale). With that few samples the interval is
    wide; ``passed_at_lower_bound`` says whether it clears the bar too.

    Args:
        judge_scores: The judge's score per item.
        human_scores: The human score per item.
        min_spearman: Threshold of the gate, in [-1, 1].
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`).

    Returns:
        The correlations, their intervals and the gate's verdict. With a single
        question (or item) to resample, the intervals are not estimable.

    Raises:
        InputError: Mismatched lengths, a non-finite score, or fewer than 3 items.
        ConfigError: A bad option.
    """
    n = check_same_length(judge_scores=judge_scores, human_scores=human_scores)
    if n < 3:
        raise InputError(f"judge_scores has {n} items; a rank correlation needs at least 3")
    x = check_finite("judge_scores", judge_scores)
    y = check_finite("human_scores", human_scores)
    if (
        isinstance(min_spearman, bool)
        or not isinstance(min_spearman, int | float)
        or not -1.0 <= min_spearman <= 1.0
    ):
        raise ConfigError(f"min_spearman must be a number in [-1, 1]; got {min_spearman!r}")
    plan = plan_bootstrap(n, options)
    point, boot = _correlations(x, y, plan)
    fields = correlation_fields(point, boot, plan)
    rho = fields["spearman"]
    return CorrelationResult(
        **fields,
        min_spearman=float(min_spearman),
        passed=bool(rho >= min_spearman),
        passed_at_lower_bound=bool(fields["spearman_ci"].low >= min_spearman),
        n=n,
        n_degenerate_resamples=int(np.isnan(boot[:, 0]).sum()),
    )
