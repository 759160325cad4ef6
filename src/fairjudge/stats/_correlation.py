"""Rank correlations between a judge and humans: per item, and per system.

- :func:`score_correlation`: Spearman and Kendall correlations of judge and human
  scores with bootstrap intervals, and a pass/fail gate (Spearman >= 0.7 by default,
  the usual bar for trusting a judge prompt before running it at scale).
- :func:`system_agreement`: Bradley-Terry ratings fitted on the judge's verdicts
  and on the humans' verdicts over the same battles, and the correlation of the two
  rankings, with battles (or questions) resampled jointly so that the interval
  carries both fits' uncertainty.

Both bootstraps are reweightings (see :mod:`._resample`): a resample is a vector of
draw counts, so Spearman's midranks and Kendall's concordance are computed for all
resamples at once from the weights.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.stats import kendalltau, rankdata

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._bradley_terry import ELO_SCALE
from fairjudge.stats._bt_data import check_identified, encode_battles, pair_data
from fairjudge.stats._bt_solvers import bt_lbfgs, bt_newton
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._resample import chunk_sizes, cluster_draws, nan_to_none, percentile_bounds
from fairjudge.stats._validate import (
    check_clusters,
    check_finite,
    check_level,
    check_n_resamples,
    check_non_negative,
    check_outcomes,
    check_same_length,
    check_seed,
)

__all__ = [
    "CorrelationResult",
    "SystemAgreementResult",
    "score_correlation",
    "system_agreement",
]

FloatArray = NDArray[np.float64]


def _ci(low: float, high: float, level: float) -> ConfidenceInterval:
    return ConfidenceInterval(float(low), float(high), level)


def _weighted_midranks(x: FloatArray, w: FloatArray) -> FloatArray:
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


def _weighted_pearson(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    tot = w.sum(axis=1, keepdims=True)
    mx = (w * x).sum(axis=1, keepdims=True) / tot
    my = (w * y).sum(axis=1, keepdims=True) / tot
    dx, dy = x - mx, y - my
    cov = (w * dx * dy).sum(axis=1)
    var = (w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, cov / np.sqrt(var), np.nan)


def _spearman(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    """Spearman's rho of each resample (rows of ``w``); NaN if either side is constant."""
    return _weighted_pearson(_weighted_midranks(x, w), _weighted_midranks(y, w), w)


def _kendall(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
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


@dataclass(frozen=True, slots=True)
class CorrelationResult:
    """Rank correlation between judge and human scores, and the gate.

    Attributes:
        spearman: Spearman's rho (NaN if either side is constant).
        spearman_ci: Its bootstrap interval.
        kendall: Kendall's tau-b.
        kendall_ci: Its bootstrap interval.
        min_spearman: The gate's threshold.
        passed: ``spearman >= min_spearman``.
        passed_at_lower_bound: Whether even the interval's lower end clears it.
        n: Items.
        n_questions: Clusters resampled, when questions were given.
        n_degenerate_resamples: Resamples where a side was constant (left out).
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap.
        level: Nominal coverage.
    """

    spearman: float
    spearman_ci: ConfidenceInterval
    kendall: float
    kendall_ci: ConfidenceInterval
    min_spearman: float
    passed: bool
    passed_at_lower_bound: bool
    n: int
    n_questions: int | None
    n_degenerate_resamples: int
    n_resamples: int
    seed: int
    level: float

    def summary(self) -> str:
        """The correlations and the verdict of the gate."""
        verdict = "PASS" if self.passed else "FAIL"
        s, k = self.spearman_ci, self.kendall_ci
        note = (
            " (the interval's lower end clears it too)"
            if self.passed_at_lower_bound
            else " (the interval's lower end does not)"
        )
        return "\n".join(
            [
                f"Judge-human score correlation on {self.n} items ({self.n_resamples} resamples, "
                f"seed {self.seed})",
                f"  Spearman  {self.spearman:.3f} [{s.low:.3f}, {s.high:.3f}]",
                f"  Kendall   {self.kendall:.3f} [{k.low:.3f}, {k.high:.3f}]",
                f"  {verdict}: Spearman {self.spearman:.3f} vs threshold "
                f"{self.min_spearman:.2f}{note}",
            ]
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "spearman": nan_to_none(self.spearman),
            "spearman_ci": self.spearman_ci.to_dict(),
            "kendall": nan_to_none(self.kendall),
            "kendall_ci": self.kendall_ci.to_dict(),
            "min_spearman": self.min_spearman,
            "passed": self.passed,
            "passed_at_lower_bound": self.passed_at_lower_bound,
            "n": self.n,
            "n_questions": self.n_questions,
            "n_degenerate_resamples": self.n_degenerate_resamples,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "level": self.level,
        }


_DENSE_KENDALL_MAX = 2000
"""Above this many distinct (judge, human) pairs, Kendall's tau is computed round by
round with scipy (O(n log n)) instead of the O(n^2) quadratic forms."""


def _kendall_loop(x: FloatArray, y: FloatArray, w: FloatArray) -> FloatArray:
    out = np.full(w.shape[0], np.nan)
    counts = np.rint(w).astype(np.intp)
    for b in range(w.shape[0]):
        xs, ys = np.repeat(x, counts[b]), np.repeat(y, counts[b])
        with warnings.catch_warnings():
            # A constant resample has no tau: it is reported as NaN and counted.
            warnings.simplefilter("ignore")
            out[b] = kendalltau(xs, ys).statistic
    return out


def _correlations(
    x: FloatArray,
    y: FloatArray,
    clusters: NDArray[np.intp],
    k: int,
    n_resamples: int,
    rng: np.random.Generator,
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
    kendall = _kendall if u <= _DENSE_KENDALL_MAX else _kendall_loop
    ones: FloatArray = np.asarray(merge.sum(axis=0), dtype=np.float64).reshape(1, u)
    point = np.array([_spearman(xu, yu, ones)[0], kendall(xu, yu, ones)[0]])
    by_cluster = sp.csr_array((np.ones(x.size), (clusters, inv)), shape=(k, u))
    out: list[FloatArray] = []
    for size in chunk_sizes(n_resamples, k + 4 * u + u * u // 8):
        w = np.asarray((by_cluster.T @ cluster_draws(k, size, rng).T).T)
        out.append(np.stack([_spearman(xu, yu, w), kendall(xu, yu, w)], axis=1))
    return point, np.concatenate(out)


def score_correlation(
    judge_scores: Sequence[float],
    human_scores: Sequence[float],
    *,
    min_spearman: float = 0.7,
    questions: Sequence[Hashable] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
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
        questions: Optional question per item; resampled as clusters.
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap.
        level: Nominal coverage.

    Returns:
        The correlations, their intervals and the gate's verdict.

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
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    level = check_level(level)
    if questions is None:
        clusters, k = np.arange(n), n
    else:
        clusters, k = check_clusters("questions", questions, n)
    point, boot = _correlations(x, y, clusters, k, n_resamples, np.random.default_rng(seed))
    rho, tau = float(point[0]), float(point[1])
    low, high = percentile_bounds(boot, level)
    return CorrelationResult(
        spearman=rho,
        spearman_ci=_ci(low[0], high[0], level),
        kendall=tau,
        kendall_ci=_ci(low[1], high[1], level),
        min_spearman=float(min_spearman),
        passed=bool(rho >= min_spearman),
        passed_at_lower_bound=bool(low[0] >= min_spearman),
        n=n,
        n_questions=None if questions is None else k,
        n_degenerate_resamples=int(np.isnan(boot[:, 0]).sum()),
        n_resamples=n_resamples,
        seed=seed,
        level=level,
    )


# --- system level ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SystemAgreementResult:
    """How well the judge's ranking of systems matches the humans' ranking.

    Attributes:
        spearman: Spearman's rho between the two sets of Bradley-Terry ratings.
        spearman_ci: Its bootstrap interval.
        kendall: Kendall's tau-b between them.
        kendall_ci: Its bootstrap interval.
        judge_ratings: ``(model, rating)`` from the judge's verdicts, Elo scale,
            mean 1000, best first.
        human_ratings: The same from the human labels.
        n_models: Systems ranked.
        n_battles: Battles with both a judge verdict and a human label.
        n_questions: Clusters resampled, when questions were given.
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap.
        level: Nominal coverage.
    """

    spearman: float
    spearman_ci: ConfidenceInterval
    kendall: float
    kendall_ci: ConfidenceInterval
    judge_ratings: tuple[tuple[str, float], ...]
    human_ratings: tuple[tuple[str, float], ...]
    n_models: int
    n_battles: int
    n_questions: int | None
    n_resamples: int
    seed: int
    level: float

    def summary(self) -> str:
        """The two rankings side by side and their correlations."""
        s, k = self.spearman_ci, self.kendall_ci
        width = max(5, *(len(m) for m, _ in self.judge_ratings))
        human = dict(self.human_ratings)
        lines = [
            f"System-level agreement: {self.n_models} systems, {self.n_battles} battles "
            f"({self.n_resamples} resamples, seed {self.seed})",
            f"  Spearman {self.spearman:.3f} [{s.low:.3f}, {s.high:.3f}]; "
            f"Kendall {self.kendall:.3f} [{k.low:.3f}, {k.high:.3f}]",
            f"  {'model':<{width}}  {'judge':>7}  {'human':>7}",
        ]
        lines += [f"  {m:<{width}}  {r:7.1f}  {human[m]:7.1f}" for m, r in self.judge_ratings]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "spearman": nan_to_none(self.spearman),
            "spearman_ci": self.spearman_ci.to_dict(),
            "kendall": nan_to_none(self.kendall),
            "kendall_ci": self.kendall_ci.to_dict(),
            "judge_ratings": [{"model": m, "rating": r} for m, r in self.judge_ratings],
            "human_ratings": [{"model": m, "rating": r} for m, r in self.human_ratings],
            "n_models": self.n_models,
            "n_battles": self.n_battles,
            "n_questions": self.n_questions,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "level": self.level,
        }


def _rank_corr_rows(u: FloatArray, v: FloatArray) -> FloatArray:
    """Spearman and Kendall tau-b between matching rows of ``u`` and ``v``, ``(B, 2)``."""
    ru = rankdata(u, axis=1)
    rv = rankdata(v, axis=1)
    rho = _weighted_pearson(ru, rv, np.ones_like(ru))
    su = np.sign(u[:, :, None] - u[:, None, :])
    sv = np.sign(v[:, :, None] - v[:, None, :])
    num = (su * sv).sum(axis=(1, 2))
    den = np.abs(su).sum(axis=(1, 2)) * np.abs(sv).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(den > 0, num / np.sqrt(den), np.nan)
    return np.stack([rho, tau], axis=1)


def system_agreement(
    model_a: Sequence[str],
    model_b: Sequence[str],
    judge: Sequence[str],
    human: Sequence[str],
    *,
    questions: Sequence[Hashable] | None = None,
    l2: float = 0.0,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> SystemAgreementResult:
    """Correlate the system ranking implied by the judge with the one implied by humans.

    Both rankings are Bradley-Terry fits (ties as half a win) on the same battles;
    each bootstrap round resamples battles (or questions) once and refits both. A
    system that draws no battle in a round keeps its full-data rating there.

    Args:
        model_a: The first system of each battle.
        model_b: The second system of each battle.
        judge: The judge's verdict per battle: ``"1"``, ``"2"`` or ``"tie"``.
        human: The human label per battle, same vocabulary.
        questions: Optional question per battle; resampled as clusters.
        l2: Ridge strength of both fits (needed when a system never lost).
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap.
        level: Nominal coverage.

    Returns:
        The correlations with their intervals, and both sets of ratings.

    Raises:
        InputError: Bad battles, fewer than 3 systems, or ratings that are not
            identified (see :func:`bradley_terry`).
        ConfigError: A bad option.
    """
    models, a, b, j_codes = encode_battles(model_a, model_b, judge)
    check_same_length(model_a=model_a, human=human)
    h_codes = check_outcomes("human", human)
    if len(models) < 3:
        raise InputError(f"model_a/model_b name {len(models)} systems; a ranking needs at least 3")
    l2 = check_non_negative("l2", l2)
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    level = check_level(level)
    n, m = len(models), a.size
    fits = []
    for name, codes in (("judge", j_codes), ("human", h_codes)):
        data = pair_data(n, a, b, codes)
        check_identified(data, models, 0, l2, name=name)
        fits.append((data, bt_lbfgs(data.first, data.second, data.counts, n, l2)))
    point = _rank_corr_rows(fits[0][1][None], fits[1][1][None])[0]

    if questions is None:
        clusters, k = np.arange(m), m
    else:
        clusters, k = check_clusters("questions", questions, m)
    cells = [
        sp.csr_array((np.ones(m), (clusters, data.cells)), shape=(k, data.n_cells))
        for data, _ in fits
    ]
    rng = np.random.default_rng(seed)
    boot: list[FloatArray] = []
    for size in chunk_sizes(n_resamples, 2 * k + 2 * n * n):
        draws = cluster_draws(k, size, rng)
        thetas = []
        for (data, start), c in zip(fits, cells, strict=True):
            counts = np.asarray((c.T @ draws.T).T).reshape(size, -1, 3)
            theta, _ = bt_newton(data.first, data.second, counts, start, l2=l2)
            thetas.append(theta)
        boot.append(_rank_corr_rows(thetas[0], thetas[1]))
    low, high = percentile_bounds(np.concatenate(boot), level)

    def board(theta: FloatArray) -> tuple[tuple[str, float], ...]:
        elo = 1000.0 + ELO_SCALE * (theta - theta.mean())
        order = sorted(range(n), key=lambda i: (-elo[i], models[i]))
        return tuple((models[i], float(elo[i])) for i in order)

    return SystemAgreementResult(
        spearman=float(point[0]),
        spearman_ci=_ci(low[0], high[0], level),
        kendall=float(point[1]),
        kendall_ci=_ci(low[1], high[1], level),
        judge_ratings=board(fits[0][1]),
        human_ratings=board(fits[1][1]),
        n_models=n,
        n_battles=m,
        n_questions=None if questions is None else k,
        n_resamples=n_resamples,
        seed=seed,
        level=level,
    )
