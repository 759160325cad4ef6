"""Rank correlations computed for many bootstrap resamples at once, and their result shape.

Bootstraps here are reweightings (see :mod:`._resample`): a resample is a vector of
draw counts, so Spearman's midranks and Kendall's concordance are computed for all
resamples at once from the weights. Shared by the item-level correlation of scores
(:mod:`._correlation`) and the system-level one (:mod:`._system_agreement`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.stats import kendalltau, rankdata

from fairjudge.stats._arrays import FloatArray
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._resample import BootstrapPlan, Resampled, ResamplingRecord, nan_to_none

__all__ = [
    "DENSE_KENDALL_MAX",
    "CorrelationFields",
    "RankCorrelation",
    "correlation_fields",
    "kendall",
    "kendall_loop",
    "rank_corr_rows",
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
"""Above this many distinct (judge, human) pairs, Kendall's tau is computed round by
round with scipy (O(n log n)) instead of the O(n^2) quadratic forms."""


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
