"""Numerical core of the Bradley-Terry fits: pair tables, L-BFGS, batched Newton.

Why batched Newton: Chatbot Arena's modern code (FastChat ``rating_systems.py``)
merges identical battles into weighted rows and fits every bootstrap round with its
own L-BFGS run. After merging, though, 200,000 battles among 50 models are only
about 1,225 pairs times 3 outcomes, so one round is a tiny problem and the cost is
all Python and optimizer overhead, paid 1,000 times. Here all rounds of a chunk are
solved together: each Newton iteration evaluates every round's gradient and its
``n x n`` Hessian with array operations and solves the ``B`` linear systems with
one batched ``numpy.linalg.solve``. Warm-started at the full-data maximum, two or
three iterations reach a gradient norm near machine precision, so the bootstrap
ratings are exact maxima, not approximations.

Conventions: ratings ``theta`` are on the natural log-odds scale (``P(i beats j) =
sigmoid(theta_i - theta_j)``); the Elo scale and the anchor are applied by the
caller. A pair table lists each unordered pair ``(first < second)`` once.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from fairjudge.stats._arrays import BoolArray, FloatArray, IntArray
from fairjudge.stats._newton import backtrack, stabilise

__all__ = ["bt_lbfgs", "bt_newton", "bt_objective", "davidson_lbfgs", "to_models"]

GRAD_TOL = 1e-10
"""Newton stops when max |gradient| <= GRAD_TOL * (number of battles in the round)."""

STEP_TOL = 1e-9
"""A Newton step this small (log-odds units) is taken and the round declared converged:
by quadratic convergence the error left after it is of order STEP_TOL**2."""

LBFGS_MIN_MODELS = 64
"""From this many models on, the full-data fit starts with L-BFGS (see :func:`bt_lbfgs`)."""

MAX_NEWTON_ITER = 100
"""Enough for rounds whose maximum lies at infinity to settle at a large finite value."""


def to_models(values: FloatArray, first: IntArray, second: IntArray, n: int) -> FloatArray:
    """Per-model sums of per-pair values: ``+v`` to ``first``, ``-v`` to ``second``.

    ``values`` is ``(P,)`` or ``(B, P)``; the result is ``(n,)`` or ``(B, n)``. One
    ``bincount`` over row-offset indices handles all rounds at once.
    """
    return _scatter(values, first, n) - _scatter(values, second, n)


def _scatter(values: FloatArray, index: IntArray, n: int) -> FloatArray:
    """``out[..., i] = sum of values[..., p] over p with index[p] == i``."""
    if values.ndim == 1:
        return np.bincount(index, values, n).astype(np.float64)
    b = values.shape[0]
    flat = (index[None, :] + n * np.arange(b)[:, None]).ravel()
    out: FloatArray = np.bincount(flat, values.ravel(), b * n).astype(np.float64).reshape(b, n)
    return out


def _pair_terms(
    x: FloatArray,
    first: IntArray,
    second: IntArray,
    counts: FloatArray,
    n: int,
    davidson: bool,
    want_ll: bool = False,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Per-pair pieces of the log-likelihood, its gradient and Hessian.

    ``x`` is ``(B, n)`` ratings, or ``(B, n + 1)`` with Davidson's ``kappa`` last;
    ``counts`` is ``(B, P, 3)``: wins of first, wins of second, ties.

    Returns:
        ``ll`` (B, P) log-likelihood terms (zero-size unless ``want_ll``; the
        logarithms cost as much as the rest); ``g_d`` (B, P) its derivative in
        ``d = theta_first - theta_second``; ``h_dd`` (B, P) minus the second
        derivative; and for Davidson ``g_k``, ``h_dk``, ``h_kk`` (B, P), the
        ``kappa`` counterparts (zero-size arrays otherwise).
    """
    w1, w2, ties = counts[..., 0], counts[..., 1], counts[..., 2]
    tot = w1 + w2 + ties
    d = x[:, first] - x[:, second]
    empty = np.empty((0,))
    if not davidson:
        s = w1 + 0.5 * ties
        q = expit(d)
        ll = s * log_expit(d) + (tot - s) * log_expit(-d) if want_ll else empty
        return ll, s - tot * q, tot * q * (1.0 - q), empty, empty, empty
    kappa = x[:, n : n + 1]
    log_z = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), kappa)
    p1 = np.exp(0.5 * d - log_z)
    p2 = np.exp(-0.5 * d - log_z)
    pt = np.exp(kappa - log_z)
    ll = 0.5 * d * (w1 - w2) + ties * kappa - tot * log_z if want_ll else empty
    g_d = 0.5 * (w1 - w2) - 0.5 * tot * (p1 - p2)
    h_dd = 0.25 * tot * ((p1 + p2) - (p1 - p2) ** 2)
    g_k = ties - tot * pt
    h_dk = -0.5 * tot * (p1 - p2) * pt
    h_kk = tot * pt * (1.0 - pt)
    return ll, g_d, h_dd, g_k, h_dk, h_kk


def bt_objective(
    x: FloatArray,
    first: IntArray,
    second: IntArray,
    counts: FloatArray,
    l2: float,
    davidson: bool = False,
) -> FloatArray:
    """Negative penalised log-likelihood of each round.

    Args:
        x: ``(B, n)`` ratings, or ``(B, n + 1)`` with Davidson's ``kappa`` last.
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        counts: ``(B, P, 3)`` wins of first, wins of second, ties.
        l2: Ridge strength on the ratings (not on ``kappa``).
        davidson: Whether ``x`` and the likelihood are Davidson's.

    Returns:
        ``(B,)`` objective values.
    """
    n = x.shape[1] - (1 if davidson else 0)
    ll = _pair_terms(x, first, second, counts, n, davidson, want_ll=True)[0]
    theta = x[:, :n]
    out: FloatArray = -ll.sum(axis=1) + 0.5 * l2 * np.einsum("bi,bi->b", theta, theta)
    return out


def bt_newton(
    first: IntArray,
    second: IntArray,
    counts: FloatArray,
    x0: FloatArray,
    *,
    l2: float,
    davidson: bool = False,
    tol: float = GRAD_TOL,
    max_iter: int = MAX_NEWTON_ITER,
) -> tuple[FloatArray, BoolArray]:
    """Maximise the (penalised) Bradley-Terry or Davidson likelihood of many rounds at once.

    With ties as half a win, a round's log-likelihood is ``sum_p s_p log sigmoid(d_p)
    + (t_p - s_p) log sigmoid(-d_p)`` with ``d_p = theta_first - theta_second``. Its
    Hessian in the ratings is a weighted graph Laplacian; without a penalty it is
    singular along the all-ones vector (only differences are identified), so the
    system is solved with ``c 1 1^T`` added to the ratings block, which picks the
    step that keeps the mean rating fixed. Davidson's model adds one parameter,
    ``kappa = log nu``, and one row and column to the same system.

    A full Newton step is taken when no rating moves by more than 0.5 (on the
    log-odds scale), where the quadratic model is accurate; larger steps, which
    only a resample far from its warm start produces, are halved until the
    objective decreases.

    Args:
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        counts: ``(B, P, 3)`` wins of first, wins of second, ties, per round.
        x0: ``(m,)`` or ``(B, m)`` starting point; ``m = n`` or ``n + 1``.
        l2: Ridge strength on the ratings.
        davidson: Fit Davidson's tie model instead of half-win ties.
        tol: Gradient tolerance relative to the round's number of battles.
        max_iter: Iteration cap.

    Returns:
        ``(B, m)`` solutions and a ``(B,)`` mask of the rounds that met ``tol``.
    """
    b_total = counts.shape[0]
    m = x0.shape[-1]
    n = m - (1 if davidson else 0)
    x = np.array(np.broadcast_to(x0, (b_total, m)), dtype=np.float64)
    converged = np.zeros(b_total, dtype=bool)
    scale = np.maximum(counts.sum(axis=(1, 2)), 1.0)
    diag = np.arange(n)
    active = np.arange(b_total)
    for _ in range(max_iter):
        xa, ca = x[active], counts[active]
        _, g_d, h_dd, g_k, h_dk, h_kk = _pair_terms(xa, first, second, ca, n, davidson)
        grad = np.empty_like(xa)
        grad[:, :n] = to_models(g_d, first, second, n) - l2 * xa[:, :n]
        if davidson:
            grad[:, n] = g_k.sum(axis=1)
        done = np.abs(grad).max(axis=1) <= tol * scale[active]
        converged[active[done]] = True
        keep = ~done
        if not keep.any():
            break
        active, xa, ca, grad, h_dd = active[keep], xa[keep], ca[keep], grad[keep], h_dd[keep]
        hess = np.zeros((active.size, m, m))
        hess[:, first, second] = -h_dd
        hess[:, second, first] = -h_dd
        hdiag = _scatter(h_dd, first, n) + _scatter(h_dd, second, n) + l2
        hess[:, diag, diag] = hdiag
        if davidson:
            cross = to_models(h_dk[keep], first, second, n)
            hess[:, :n, n] = cross
            hess[:, n, :n] = cross
            hess[:, n, n] = h_kk[keep].sum(axis=1)
        # Gauge term and tiny ridge (see docstring and :func:`._newton.stabilise`).
        stabilise(hess, n, l2, np.maximum(hdiag.mean(axis=1), 1e-300))
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        new = xa + step
        size = np.abs(step).max(axis=1)
        big = size > 0.5
        if big.any():
            objective = partial(
                bt_objective, first=first, second=second, counts=ca[big], l2=l2, davidson=davidson
            )
            new[big] = backtrack(xa[big], step[big], objective)
        x[active] = new
        tiny = size <= STEP_TOL
        converged[active[tiny]] = True
        active = active[~tiny]
        if active.size == 0:
            break
    return x, converged


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
    x0: FloatArray | None = None,
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
        x0: Starting point ``(n + 1,)``: ratings then ``kappa``.

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

    start = np.zeros(n + 1) if x0 is None else np.asarray(x0, dtype=np.float64)
    res = minimize(
        fun,
        start,
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
