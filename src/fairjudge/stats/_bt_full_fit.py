"""Full-data Bradley-Terry and Davidson fits from zero: L-BFGS to get close, Newton to finish.

The bootstrap rounds start from these fits and need only Newton (:mod:`._bt_solvers`).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from fairjudge.stats._arrays import FloatArray, IntArray
from fairjudge.stats._bt_solvers import bt_newton, to_models

__all__ = ["LBFGS_MIN_MODELS", "bt_lbfgs", "davidson_lbfgs"]

LBFGS_MIN_MODELS = 64
"""From this many models on, the full-data fit starts with L-BFGS (see :func:`bt_lbfgs`)."""


def bt_lbfgs(
    first: IntArray,
    second: IntArray,
    counts: FloatArray,
    n: int,
    l2: float,
) -> FloatArray:
    """Full-data maximum-likelihood fit: L-BFGS with the analytic gradient, then Newton.

    With many models, L-BFGS (at FastChat's tolerance) gets close from zero at a cost
    linear in the number of pairs, where Newton would pay for dense ``n x n`` solves
    from a poor start. Newton steps then take the gradient to machine precision, so
    the point estimate is the exact maximum rather than wherever an optimizer's
    stopping rule fired. Up to ``LBFGS_MIN_MODELS`` models, Newton alone (with its
    step halving) is cheaper than L-BFGS's setup and reaches the same maximum.

    Args:
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        counts: ``(P, 3)`` wins of first, wins of second, ties.
        n: Number of models.
        l2: Ridge strength.

    Returns:
        ``(n,)`` ratings with mean zero.
    """
    if n < LBFGS_MIN_MODELS:
        theta, _ = bt_newton(first, second, counts[None], np.zeros(n), l2=l2)
        small: FloatArray = theta[0] - theta[0].mean()
        return small
    score = counts[:, 0] + 0.5 * counts[:, 2]
    total = counts.sum(axis=1)
    norm = max(float(total.sum()), 1.0)

    def fun(theta: FloatArray) -> tuple[float, FloatArray]:
        d = theta[first] - theta[second]
        ll = score * log_expit(d) + (total - score) * log_expit(-d)
        resid = score - total * expit(d)
        grad = -to_models(resid, first, second, n) + l2 * theta
        value = -float(ll.sum()) + 0.5 * l2 * float(theta @ theta)
        return value / norm, np.asarray(grad, dtype=np.float64) / norm

    res = minimize(
        fun,
        np.zeros(n),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 200, "gtol": 1e-6},
    )
    x = np.asarray(res.x, dtype=np.float64)
    theta, _ = bt_newton(first, second, counts[None], x - x.mean(), l2=l2)
    out: FloatArray = theta[0] - theta[0].mean()
    return out


def davidson_lbfgs(
    first: IntArray,
    second: IntArray,
    counts: FloatArray,
    n: int,
    l2: float,
) -> FloatArray:
    """Fit Davidson's (1970) tie model by L-BFGS with the analytic gradient.

    ``P(i beats j) = pi_i / Z``, ``P(tie) = nu sqrt(pi_i pi_j) / Z`` with
    ``Z = pi_i + pi_j + nu sqrt(pi_i pi_j)``. With ``theta = log pi`` and
    ``kappa = log nu``, dividing through by ``sqrt(pi_i pi_j)`` gives
    ``P(i) = e^{d/2} / (e^{d/2} + e^{-d/2} + e^kappa)`` with ``d = theta_i -
    theta_j``: ties no longer count as half a win, they inform ``nu`` instead.

    Args:
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        counts: ``(P, 3)`` wins of first, wins of second, ties.
        n: Number of models.
        l2: Ridge strength on ``theta`` (not on ``kappa``).

    Returns:
        ``(n + 1,)``: ratings with mean zero, then ``kappa``. L-BFGS gets close;
        Newton steps finish the job, as in :func:`bt_lbfgs`.
    """
    w1, w2, ties = counts[:, 0], counts[:, 1], counts[:, 2]
    tot = w1 + w2 + ties
    norm = max(float(tot.sum()), 1.0)

    def fun(x: FloatArray) -> tuple[float, FloatArray]:
        theta, kappa = x[:n], x[n]
        d = theta[first] - theta[second]
        log_z = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), kappa)
        ll = 0.5 * d * (w1 - w2) + ties * kappa - tot * log_z
        p1 = np.exp(0.5 * d - log_z)
        p2 = np.exp(-0.5 * d - log_z)
        pt = np.exp(kappa - log_z)
        g_d = 0.5 * (w1 - w2) - 0.5 * tot * (p1 - p2)
        grad = np.empty(n + 1)
        grad[:n] = -to_models(g_d, first, second, n) + l2 * theta
        grad[n] = -(float(ties.sum()) - float((tot * pt).sum()))
        value = -float(ll.sum()) + 0.5 * l2 * float(theta @ theta)
        return value / norm, grad / norm

    res = minimize(
        fun,
        np.zeros(n + 1),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 500, "gtol": 1e-6},
    )
    x = np.asarray(res.x, dtype=np.float64)
    x[:n] -= x[:n].mean()
    polished, _ = bt_newton(first, second, counts[None], x, l2=l2, davidson=True)
    out: FloatArray = polished[0]
    out[:n] -= out[:n].mean()
    return out
