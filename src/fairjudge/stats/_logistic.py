"""Logistic fits: what they share (Bradley-Terry, style and length control), and length control.

Each fit builds its own gradient and Hessian; what they share is how a Newton step is
made safe, and how a fit whose maximum ran off to infinity is told apart.

- :func:`stabilise`: without a penalty a Bradley-Terry Hessian is singular along
  the all-ones vector of the ratings (only differences are identified), and a
  resample that splits the models into unconnected groups makes it singular again.
  Adding ``c 1 1^T`` to the ratings block picks the step that keeps the mean
  rating fixed; a tiny ridge keeps the split case finite (those ratings are
  blanked by the caller). The batched Bradley-Terry Newton adds the same two terms,
  in the same order, to its table of distinct Hessian entries before assembling
  the matrices (:meth:`._bt_solvers.NewtonLayout.entries`): a change here belongs
  there too.
- :func:`backtrack`: a step larger than the quadratic model can be trusted with is
  halved until the objective does not increase.
- Separation (:func:`beyond_bound`, :func:`separation_reason`). Length control and
  style control regress the judge's verdicts on the style of the two answers. When
  style (or, for length control, the intercept) predicts the verdicts (almost)
  perfectly, the likelihood keeps rising as that coefficient grows: its maximum is
  at infinity, or so far out that the fitted probabilities are all within a hair
  of 0 or 1. Whatever value the optimiser stops at then says where it stopped, not
  what the data say; and the quantity of interest (a win rate, or ratings, at equal
  style) is not identified. Both say "separated" for the same reason: a fit is
  separated when one term of its linear predictor can add more than
  :data:`MAX_LOG_ODDS` to some item's log-odds. Past that bound every item the term
  touches is predicted with certainty better than 1 - 3e-7, so the likelihood's
  curvature along the term is below ``3e-7`` per item: no data set short of
  millions of items can tell that value from infinity. An identified fit on real
  data stays far below it (a judge whose preference is 100:1 from style alone is
  at 4.6).

**Length-controlled win rate**, AlpacaEval 2's way.

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

On a small set, many resamples can be *separated*: all their verdicts go one
way, or length alone explains them, so the fit has no finite maximum and its
win rate at equal length runs to 0 or 1. An interval resting on such resamples
(it then spans almost all of [0, 1]) is reported as not estimable, with the
reason, instead of as ``[0.000, 1.000]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Unpack

import numpy as np

from fairjudge._errors import InputError
from fairjudge.stats._intervals import ConfidenceInterval, did_not_vary, wilson_when_alike
from fairjudge.stats._resample import BootstrapOptions, Resampled, plan_bootstrap, unstable_reason
from fairjudge.stats._validate import (
    OUTCOME_SCORES,
    BoolArray,
    FloatArray,
    IntArray,
    check_finite,
    check_outcomes,
    check_same_length,
)

__all__ = [
    "MAX_LOG_ODDS",
    "LengthControlledWinRate",
    "backtrack",
    "beyond_bound",
    "expit",
    "length_controlled_win_rate",
    "separation_reason",
    "stabilise",
]


MAX_LOG_ODDS = 15.0
"""Largest log-odds one term of an identified fit may add to an item (odds of e^15)."""


def expit(x: FloatArray) -> FloatArray:
    """The logistic function ``1 / (1 + exp(-x))``, elementwise.

    The formula of ``scipy.special.expit``, for modules that need nothing else from
    ``scipy.special``, whose import alone costs about 0.3 s (a cached ``compare``
    rerun pays it for the length-controlled win rate).
    ``exp(-x)`` overflows to ``inf`` for ``x < -709``, giving 0, as scipy does, and
    underflows for large ``x``, giving 1: neither is an error here. The values are
    scipy's to within a few ulp, not bit for bit: numpy's vectorised ``exp`` rounds by
    the SIMD path the CPU takes (AVX-512 differs from AVX2 by up to 2 ulp), while
    scipy's is scalar C. On one machine a rerun gives the same bits.
    """
    with np.errstate(over="ignore", under="ignore"):
        out: FloatArray = 1.0 / (1.0 + np.exp(-x))
    return out


def stabilise(hess: FloatArray, n: int, l2: float, mean_diag: FloatArray) -> None:
    """Make each ``(m, m)`` Newton system of ``hess`` solvable, in place.

    Args:
        hess: ``(B, m, m)`` Hessians; the first ``n`` rows and columns are ratings.
        n: Number of ratings.
        l2: Ridge strength already on the diagonal; with ``l2 > 0`` the ratings
            block is not singular and needs no gauge term.
        mean_diag: ``(B,)`` scale of each Hessian (its mean diagonal).
    """
    if l2 == 0.0:
        hess[:, :n, :n] += (mean_diag / n)[:, None, None]
    diag = np.arange(hess.shape[-1])
    hess[:, diag, diag] += 1e-12 * mean_diag[:, None]


def backtrack(
    x: FloatArray, step: FloatArray, objective: Callable[[FloatArray], FloatArray]
) -> FloatArray:
    """Halve each row's step until that row's objective does not increase.

    Args:
        x: ``(B, m)`` current points.
        step: ``(B, m)`` proposed steps.
        objective: Maps ``(B, m)`` points to ``(B,)`` values to minimise.

    Returns:
        ``(B, m)`` new points (at most 40 halvings).
    """
    f0 = objective(x)
    frac = np.ones(x.shape[0])
    new = x + step
    for _ in range(40):
        worse = objective(new) > f0 + 1e-12 * np.abs(f0)
        if not worse.any():
            break
        frac[worse] *= 0.5
        new[worse] = x[worse] + frac[worse, None] * step[worse]
    return new


def beyond_bound(reach: FloatArray) -> BoolArray:
    """Which terms run past :data:`MAX_LOG_ODDS`.

    Args:
        reach: The largest absolute log-odds each term adds to any item of its
            data set (a coefficient times the largest magnitude of its covariate);
            any shape.

    Returns:
        A mask of the same shape.
    """
    out: BoolArray = np.abs(reach) > MAX_LOG_ODDS
    return out


def separation_reason(by: str, alone: str, target: str, detail: str = "") -> str:
    """Why a fit separated by a covariate identifies nothing at equal style.

    Args:
        by: What separates the verdicts (``"answer length"``, ``"length and bold"``).
        alone: What explains the judge's preference (``"length"``, ``"style"``).
        target: What is not identified, with its verb (``"the win rate at equal length
            is"``).
        detail: Said after ``by``, e.g. the coefficient, with a leading space.
    """
    return (
        f"the verdicts are (almost) perfectly separated by {by}{detail}: the judge's "
        f"preference is explained by {alone} alone, so {target} not identified"
    )


# An interval from (nearly) 0 to (nearly) 1 says only that the data cannot tell.
_WHOLE_RANGE = 0.01

_SEPARATED = (
    "are separated (verdicts all one way, or explained by length alone), so the fit has "
    "no finite maximum in them"
)


@dataclass(frozen=True, slots=True)
class LengthControlledWinRate(Resampled):
    """The win rate of system 1 over system 2, raw and at equal length.

    The bootstrap's options (``n_questions``, ``n_resamples``, ``seed``, ``level``)
    are described on :class:`._resample.Resampled`.

    Attributes:
        estimate: Length-controlled win rate, ``sigmoid(intercept)``.
        ci: Its bootstrap interval, or why there is none (too many separated
            resamples, an interval spanning essentially all of [0, 1], or a
            single question).
        raw_win_rate: Plain win rate (ties count half).
        raw_ci: Its bootstrap interval (same resamples).
        length_coefficient: ``beta``: log-odds gained by going from equal length
            to "much longer" (``tanh`` saturates at 1).
        length_coefficient_ci: Its bootstrap interval, or why there is none.
        intercept: ``theta``.
        length_scale: ``sd`` of the length differences (input units).
        n: Items.
        n_wins: Items system 1 won.
        n_losses: Items it lost.
        n_ties: Tied items.
        n_degenerate_resamples: Resamples whose fit was separated (no finite
            maximum); their extreme values are kept in the intervals, which are
            refused when there are too many of them.
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
    n_degenerate_resamples: int

    def summary(self) -> str:
        """One paragraph: both win rates and the length effect."""
        pct = round(self.level * 100)
        return (
            f"Length-controlled win rate {self.estimate:.1%} ({pct}% CI {self.ci:.1%}); "
            f"raw {self.raw_win_rate:.1%} ({pct}% CI {self.raw_ci:.1%}). Length coefficient "
            f"{self.length_coefficient:+.3f} log-odds ({pct}% CI "
            f"{self.length_coefficient_ci:+.3f}). n={self.n} ({self.n_wins} wins, "
            f"{self.n_losses} losses, {self.n_ties} ties), {self.n_resamples} resamples "
            f"({self.n_degenerate_resamples} separated), seed {self.seed}."
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
            "n_degenerate_resamples": self.n_degenerate_resamples,
            **self.resampling_dict(),
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

    def objective(v: FloatArray, rows: IntArray) -> FloatArray:
        eta = v[:, :1] + v[:, 1:] * z[rows]
        ll = y * -np.logaddexp(0.0, -eta) + (1.0 - y) * -np.logaddexp(0.0, eta)
        out: FloatArray = -(w[rows] * ll).sum(axis=1)
        return out

    active = np.arange(b)
    for _ in range(100):  # Newton's iteration cap
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
            new = backtrack(
                np.column_stack([theta[rows], beta[rows]]),
                np.column_stack([d0[big], d1[big]]),
                partial(objective, rows=rows),
            )
            t_new[big], s_new[big] = new[:, 0], new[:, 1]
        theta[active], beta[active] = t_new, s_new
        done = (np.abs(g0) + np.abs(g1) <= 1e-10 * tot[active]) | (
            np.maximum(np.abs(d0), np.abs(d1)) <= 1e-10
        )
        active = active[~done]
        if active.size == 0:
            break
    return theta, beta


def _check_point_fit(theta: float, beta: float) -> None:
    """Refuse a full-data fit with no finite maximum: its win rate means nothing.

    Raises:
        InputError: The verdicts are separated by length, or all go one way.
    """
    # Over the tanh range [-1, 1] the length term adds at most |beta| to the log-odds,
    # and the intercept |theta| (see :mod:`._logistic` for the bound).
    if abs(beta) > MAX_LOG_ODDS:
        # The likelihood keeps rising as beta grows, so theta, and the win rate at
        # equal length, are not identified.
        raise InputError(
            separation_reason(
                "answer length",
                "length",
                "the win rate at equal length is",
                f" (length coefficient {beta:.1f} and still growing)",
            )
        )
    if abs(theta) > MAX_LOG_ODDS:
        side = "won" if theta > 0 else "lost"
        raise InputError(
            f"system 1 {side} every item (no ties): the win rate at equal length runs off "
            "to the boundary and is not identified; judge more items, or report the raw "
            "win rate"
        )


def length_controlled_win_rate(
    outcomes: Sequence[str],
    lengths_1: Sequence[float],
    lengths_2: Sequence[float],
    **options: Unpack[BootstrapOptions],
) -> LengthControlledWinRate:
    """Win rate of system 1 over system 2 at equal answer length, with bootstrap CIs.

    Args:
        outcomes: Per item, ``"1"`` (system 1 won), ``"2"`` or ``"tie"`` (half a win),
            typically the debiased verdicts.
        lengths_1: Length of system 1's answer per item (characters, as AlpacaEval,
            or tokens: the model only sees the normalised difference).
        lengths_2: Length of system 2's answer per item.
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`).

    Returns:
        Raw and length-controlled win rates with intervals, and the length effect.
        The length-controlled interval (and the coefficient's) is not estimable when
        more than ``(1 - level) / 4`` of the resamples are separated, or when it
        spans essentially all of [0, 1]; every interval is, with a single question.

    Raises:
        InputError: Mismatched lengths, a bad outcome, a non-finite or negative
            length, fewer than 2 items, or verdicts with no finite fit (separated
            by length, or all one way without a tie).
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
    plan = plan_bootstrap(n, options)

    y = OUTCOME_SCORES[codes]
    delta = len1 - len2
    theta, beta = _fit(y, delta, np.ones((1, n)))
    sd = float(_weighted_sd(delta, np.ones((1, n)))[0])
    _check_point_fit(float(theta[0]), float(beta[0]))

    boot_lc: list[FloatArray] = []
    boot_raw: list[FloatArray] = []
    boot_beta: list[FloatArray] = []
    n_separated = 0
    for draws in plan.draws(8 * n):
        w = draws[:, plan.clusters]
        t_b, s_b = _fit(y, delta, w, start=(float(theta[0]), float(beta[0])))
        n_separated += int(beyond_bound(np.column_stack([t_b, s_b])).any(axis=1).sum())
        boot_lc.append(expit(t_b))
        boot_beta.append(s_b)
        boot_raw.append((w @ y) / np.maximum(w.sum(axis=1), 1.0))
    samples = np.stack(
        [np.concatenate(boot_lc), np.concatenate(boot_raw), np.concatenate(boot_beta)], 1
    )
    separated = unstable_reason(n_separated, plan.n_resamples, plan.level, _SEPARATED)
    lc_ci, raw_ci, beta_ci = plan.intervals(samples, reasons=[separated, None, separated])
    # Every question alike (all ties, say): the raw rate is a share alike on every
    # question, and the fits no resample moved keep their point, marked as such.
    sums = np.bincount(plan.clusters, weights=y, minlength=plan.n_clusters)
    shares = sums / np.bincount(plan.clusters, minlength=plan.n_clusters)
    raw_ci = wilson_when_alike(raw_ci, shares, float(y.mean()), plan.n_questions is not None)
    why = (
        "every verdict is a tie, so every resample refits"
        if (codes == 2).all()
        else "every question gives the same verdicts at the same lengths, so every resample refits"
    )
    if lc_ci.estimable and did_not_vary(samples[:, 0]):
        lc_ci = ConfidenceInterval.alike_point(
            float(expit(theta[0])), plan.level, f"{why} the same win rate"
        )
    if beta_ci.estimable and did_not_vary(samples[:, 2]):
        beta_ci = ConfidenceInterval.alike_point(
            float(beta[0]), plan.level, f"{why} the same coefficient"
        )
    if lc_ci.estimable and lc_ci.low <= _WHOLE_RANGE and lc_ci.high >= 1.0 - _WHOLE_RANGE:
        whole = "the interval spans essentially all of [0, 1]: too few items to bound it"
        lc_ci = ConfidenceInterval.not_estimable(whole, plan.level)

    return LengthControlledWinRate(
        estimate=float(expit(theta[0])),
        ci=lc_ci,
        raw_win_rate=float(y.mean()),
        raw_ci=raw_ci,
        length_coefficient=float(beta[0]),
        length_coefficient_ci=beta_ci,
        intercept=float(theta[0]),
        length_scale=sd,
        n=n,
        n_wins=int((codes == 0).sum()),
        n_losses=int((codes == 1).sum()),
        n_ties=int((codes == 2).sum()),
        n_degenerate_resamples=n_separated,
        **plan.record(),
    )
