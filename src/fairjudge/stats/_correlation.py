"""Rank correlation between a judge's scores and human scores, with a pass/fail gate.

Spearman and Kendall correlations of judge and human scores with bootstrap
intervals, and a gate (Spearman >= 0.7 by default, the usual bar for trusting a
judge prompt before running it at scale). The bootstrap resamples items, or
questions when given, as draw counts (see :mod:`._rank_stats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import scipy.sparse as sp

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._arrays import FloatArray
from fairjudge.stats._rank_stats import (
    DENSE_KENDALL_MAX,
    RankCorrelation,
    correlation_fields,
    kendall,
    kendall_loop,
    spearman,
)
from fairjudge.stats._resample import BootstrapOptions, BootstrapPlan, plan_bootstrap
from fairjudge.stats._validate import check_finite, check_same_length

__all__ = ["CorrelationResult", "score_correlation"]


@dataclass(frozen=True, slots=True)
class CorrelationResult(RankCorrelation):
    """Rank correlation between judge and human scores, and the gate.

    The correlations and the bootstrap's options are described on
    :class:`._rank_stats.RankCorrelation`.

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
    tau = kendall if u <= DENSE_KENDALL_MAX else kendall_loop
    ones: FloatArray = np.asarray(merge.sum(axis=0), dtype=np.float64).reshape(1, u)
    point = np.array([spearman(xu, yu, ones)[0], tau(xu, yu, ones)[0]])
    k = plan.n_clusters
    by_cluster = sp.csr_array((np.ones(x.size), (plan.clusters, inv)), shape=(k, u))
    out: list[FloatArray] = []
    for draws in plan.draws(k + 4 * u + u * u // 8):
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
