"""Length-controlled win rate, AlpacaEval 2's way.

LLM judges prefer longer answers. AlpacaEval 2 (Dubois et al. 2024, "Length-Controlled
AlpacaEval") answers the counterfactual question "what would the win rate be if the
two answers had the same length?" with a regression: fit a logistic model of the
judge's preference on the normalised length difference, then predict with that
difference set to zero.

What we fit, per item ``i``, with ``y_i`` = 1 (system 1 won), 0.5 (tie), 0 (lost)::

    P(system 1 preferred) = sigmoid(theta + beta * tanh((len1_i - len2_i) / sd))

where ``sd`` is the standard deviation (``ddof=1``) of the length differences, as in
AlpacaEval's ``np.tanh(std_delta_len)`` term. The length-controlled win rate is
``sigmoid(theta)``: the prediction at zero length difference. Ties enter as soft
labels (0.5), as AlpacaEval's preference of 1.5 does.

Where this differs from AlpacaEval 2, on purpose:

- AlpacaEval also has a per-instruction difficulty term, fitted once on its fixed
  805 instructions, and regularises toward the baseline with "gamed" (deliberately
  verbose or concise) outputs of the baseline model. Neither exists for an
  arbitrary dataset, so this fits only ``theta`` and ``beta``, without penalty.
- AlpacaEval reports a standard error; this reports a bootstrap interval, which
  refits the model (``sd`` included) on every resample, clustered by question
  when questions are given.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

from fairjudge._errors import InputError
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._resample import chunk_sizes, cluster_draws, percentile_bounds
from fairjudge.stats._validate import (
    check_clusters,
    check_finite,
    check_level,
    check_n_resamples,
    check_outcomes,
    check_same_length,
    check_seed,
)

__all__ = ["LengthControlledWinRate", "length_controlled_win_rate"]

FloatArray = NDArray[np.float64]

# Over the tanh range [-1, 1], a coefficient of 15 already means odds of e^30: a fit
# past it is running off to infinity, not estimating anything.
_MAX_LENGTH_COEFFICIENT = 15.0

_SCORE = np.array([1.0, 0.0, 0.5])  # outcome codes "1", "2", "tie" -> score of system 1


@dataclass(frozen=True, slots=True)
class LengthControlledWinRate:
    """The win rate of system 1 over system 2, raw and at equal length.

    Attributes:
        estimate: Length-controlled win rate, ``sigmoid(intercept)``.
        ci: Its bootstrap interval.
        raw_win_rate: Plain win rate (ties count half).
        raw_ci: Its bootstrap interval (same resamples).
        length_coefficient: ``beta``: log-odds gained by going from equal length
            to "much longer" (``tanh`` saturates at 1).
        length_coefficient_ci: Its bootstrap interval.
        intercept: ``theta``.
        length_scale: ``sd`` of the length differences (input units).
        n: Items.
        n_wins: Items system 1 won.
        n_losses: Items it lost.
        n_ties: Tied items.
        n_questions: Clusters resampled, when questions were given.
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap.
        level: Nominal coverage.
    """

    estimate: float
    ci: ConfidenceInterval
    raw_win_rate: float
    raw_ci: ConfidenceInterval
    length_coefficient: float
    length_coefficient_ci: ConfidenceInterval
    intercept: float
    length_scale: float
    n: int
    n_wins: int
    n_losses: int
    n_ties: int
    n_questions: int | None
    n_resamples: int
    seed: int
    level: float

    def summary(self) -> str:
        """One paragraph: both win rates and the length effect."""
        pct = round(self.level * 100)
        return (
            f"Length-controlled win rate {self.estimate:.1%} ({pct}% CI {self.ci.low:.1%} to "
            f"{self.ci.high:.1%}); raw {self.raw_win_rate:.1%} ({self.raw_ci.low:.1%} to "
            f"{self.raw_ci.high:.1%}). Length coefficient {self.length_coefficient:+.3f} "
            f"({self.length_coefficient_ci.low:+.3f} to {self.length_coefficient_ci.high:+.3f}) "
            f"log-odds. n={self.n} ({self.n_wins} wins, {self.n_losses} losses, {self.n_ties} "
            f"ties), {self.n_resamples} resamples, seed {self.seed}."
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "estimate": self.estimate,
            "ci": self.ci.to_dict(),
            "raw_win_rate": self.raw_win_rate,
            "raw_ci": self.raw_ci.to_dict(),
            "length_coefficient": self.length_coefficient,
            "length_coefficient_ci": self.length_coefficient_ci.to_dict(),
            "intercept": self.intercept,
            "length_scale": self.length_scale,
            "n": self.n,
            "n_wins": self.n_wins,
            "n_losses": self.n_losses,
            "n_ties": self.n_ties,
            "n_questions": self.n_questions,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "level": self.level,
        }


def _weighted_sd(x: FloatArray, w: FloatArray) -> FloatArray:
    """Per-row standard deviation (``ddof=1`` in draw counts) of ``x`` under weights ``w``."""
    tot = w.sum(axis=1)
    mean = (w @ x) / np.maximum(tot, 1.0)
    var = (w @ (x * x) - tot * mean * mean) / np.maximum(tot - 1.0, 1.0)
    out: FloatArray = np.sqrt(np.maximum(var, 0.0))
    return out


def _fit(
    y: FloatArray,
    delta: FloatArray,
    w: FloatArray,
    start: tuple[float, float] = (0.0, 0.0),
    max_iter: int = 100,
) -> tuple[FloatArray, FloatArray]:
    """Weighted fits of ``y ~ sigmoid(theta + beta tanh(delta / sd))``, one per row of ``w``.

    Newton's method on the two parameters, all rows at once, from ``start``. A step
    larger than 0.5 (where the quadratic model may mislead) is halved until the
    row's objective does not increase. Rows whose lengths do not vary get
    ``beta = 0``.

    Returns:
        ``theta`` and ``beta``, each ``(B,)``.
    """
    sd = _weighted_sd(delta, w)
    flat = sd <= 1e-12 * max(1.0, float(np.abs(delta).max()))
    z = np.tanh(delta[None, :] / np.where(flat, 1.0, sd)[:, None])
    z[flat] = 0.0
    b = w.shape[0]
    theta = np.full(b, start[0])
    beta = np.full(b, start[1])
    tot = np.maximum(w.sum(axis=1), 1.0)

    def objective(t: FloatArray, s: FloatArray, rows: NDArray[np.intp]) -> FloatArray:
        eta = t[:, None] + s[:, None] * z[rows]
        ll = y * -np.logaddexp(0.0, -eta) + (1.0 - y) * -np.logaddexp(0.0, eta)
        out: FloatArray = -(w[rows] * ll).sum(axis=1)
        return out

    active = np.arange(b)
    for _ in range(max_iter):
        zr, wr = z[active], w[active]
        p = expit(theta[active, None] + beta[active, None] * zr)
        r = wr * (y - p)
        g0, g1 = r.sum(axis=1), (r * zr).sum(axis=1)
        h = wr * p * (1.0 - p)
        h00, h01, h11 = h.sum(axis=1), (h * zr).sum(axis=1), (h * zr * zr).sum(axis=1)
        h11 = h11 + 1e-12 * np.maximum(h00, 1e-300)  # keeps flat rows solvable (beta stays 0)
        det = np.maximum(h00 * h11 - h01 * h01, 1e-300)
        d0 = (h11 * g0 - h01 * g1) / det
        d1 = (h00 * g1 - h01 * g0) / det
        t_new, s_new = theta[active] + d0, beta[active] + d1
        big = np.flatnonzero(np.maximum(np.abs(d0), np.abs(d1)) > 0.5)
        if big.size:
            rows = active[big]
            f0 = objective(theta[rows], beta[rows], rows)
            frac = np.ones(big.size)
            for _ in range(40):
                worse = objective(t_new[big], s_new[big], rows) > f0 + 1e-12 * np.abs(f0)
                if not worse.any():
                    break
                frac[worse] *= 0.5
                t_new[big[worse]] = theta[rows[worse]] + frac[worse] * d0[big[worse]]
                s_new[big[worse]] = beta[rows[worse]] + frac[worse] * d1[big[worse]]
        theta[active], beta[active] = t_new, s_new
        done = (np.abs(g0) + np.abs(g1) <= 1e-10 * tot[active]) | (
            np.maximum(np.abs(d0), np.abs(d1)) <= 1e-10
        )
        active = active[~done]
        if active.size == 0:
            break
    return theta, beta


def length_controlled_win_rate(
    outcomes: Sequence[str],
    lengths_1: Sequence[float],
    lengths_2: Sequence[float],
    *,
    questions: Sequence[Hashable] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> LengthControlledWinRate:
    """Win rate of system 1 over system 2 at equal answer length, with bootstrap CIs.

    Args:
        outcomes: Per item, ``"1"`` (system 1 won), ``"2"`` or ``"tie"`` (half a win),
            typically the debiased verdicts.
        lengths_1: Length of system 1's answer per item (characters, as AlpacaEval,
            or tokens: the model only sees the normalised difference).
        lengths_2: Length of system 2's answer per item.
        questions: Optional question per item; resampled as clusters.
        n_resamples: Bootstrap rounds.
        seed: Seed of the bootstrap.
        level: Nominal coverage.

    Returns:
        Raw and length-controlled win rates with intervals, and the length effect.

    Raises:
        InputError: Mismatched lengths, a bad outcome, a non-finite or negative
            length, or fewer than 2 items.
        ConfigError: A bad option.
    """
    n = check_same_length(outcomes=outcomes, lengths_1=lengths_1, lengths_2=lengths_2)
    if n < 2:
        raise InputError(f"outcomes has {n} items; a length-controlled win rate needs at least 2")
    codes = check_outcomes("outcomes", outcomes)
    len1 = check_finite("lengths_1", lengths_1)
    len2 = check_finite("lengths_2", lengths_2)
    for name, arr in (("lengths_1", len1), ("lengths_2", len2)):
        if (arr < 0).any():
            i = int(np.flatnonzero(arr < 0)[0])
            raise InputError(f"{name}[{i}] must be a length >= 0; got {float(arr[i])!r}")
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    level = check_level(level)

    y = _SCORE[codes]
    delta = len1 - len2
    theta, beta = _fit(y, delta, np.ones((1, n)))
    sd = float(_weighted_sd(delta, np.ones((1, n)))[0])
    if abs(float(beta[0])) > _MAX_LENGTH_COEFFICIENT:
        # Perfect (or quasi-perfect) separation: the likelihood keeps rising as beta
        # grows, so theta, and the win rate at equal length, are not identified.
        raise InputError(
            "the verdicts are (almost) perfectly separated by answer length "
            f"(length coefficient {float(beta[0]):.1f} and still growing): the judge's "
            "preference is explained by length alone, so the win rate at equal length "
            "is not identified"
        )

    if questions is None:
        clusters, k = np.arange(n), n
    else:
        clusters, k = check_clusters("questions", questions, n)
    rng = np.random.default_rng(seed)
    boot_lc: list[FloatArray] = []
    boot_raw: list[FloatArray] = []
    boot_beta: list[FloatArray] = []
    for size in chunk_sizes(n_resamples, 8 * n):
        w = cluster_draws(k, size, rng)[:, clusters]
        t_b, s_b = _fit(y, delta, w, start=(float(theta[0]), float(beta[0])))
        boot_lc.append(expit(t_b))
        boot_beta.append(s_b)
        boot_raw.append((w @ y) / np.maximum(w.sum(axis=1), 1.0))
    samples = np.stack(
        [np.concatenate(boot_lc), np.concatenate(boot_raw), np.concatenate(boot_beta)], 1
    )
    low, high = percentile_bounds(samples, level)

    def ci(j: int) -> ConfidenceInterval:
        return ConfidenceInterval(float(low[j]), float(high[j]), level)

    return LengthControlledWinRate(
        estimate=float(expit(theta[0])),
        ci=ci(0),
        raw_win_rate=float(y.mean()),
        raw_ci=ci(1),
        length_coefficient=float(beta[0]),
        length_coefficient_ci=ci(2),
        intercept=float(theta[0]),
        length_scale=sd,
        n=n,
        n_wins=int((codes == 0).sum()),
        n_losses=int((codes == 1).sum()),
        n_ties=int((codes == 2).sum()),
        n_questions=None if questions is None else k,
        n_resamples=n_resamples,
        seed=seed,
        level=level,
    )
