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


def _scatter(
    values: FloatArray, index: IntArray, n: int, flat: IntArray | None = None
) -> FloatArray:
    """``out[..., i] = sum of values[..., p] over p with index[p] == i`` (``flat``: cached)."""
    if values.ndim == 1:
        return np.bincount(index, values, n).astype(np.float64)
    b = values.shape[0]
    if flat is None:
        flat = _rows_index(index, n, b)
    out: FloatArray = np.bincount(flat, values.ravel(), b * n).astype(np.float64).reshape(b, n)
    return out


def _rows_index(index: IntArray, n: int, b: int) -> IntArray:
    """``index`` for each of ``b`` rows, offset by ``n`` per row and flattened."""
    out: IntArray = (index[None, :] + n * np.arange(b)[:, None]).ravel()
    return out


def _pair_sums(counts: FloatArray, davidson: bool) -> tuple[FloatArray, ...]:
    """What Newton reads of the counts: each pair's score ``w1 + ties / 2`` and total.

    Davidson's: both sides' wins and the ties, as views of ``counts`` (C-contiguous),
    and the total. Their memory layout decides the order in which numpy sums over
    pairs, so it stays what it always was, and so do the results, bit for bit.
    """
    w1, w2, ties = counts[..., 0], counts[..., 1], counts[..., 2]
    tot = w1 + w2 + ties
    if not davidson:
        return w1 + 0.5 * ties, tot
    return w1, w2, ties, tot


def _gradient_terms(
    x: FloatArray,
    first: IntArray,
    second: IntArray,
    sums: tuple[FloatArray, ...],
    n: int,
    davidson: bool,
) -> tuple[FloatArray, FloatArray, tuple[FloatArray, ...]]:
    """Per-pair derivatives of the log-likelihood, from :func:`_pair_sums`' sums.

    ``x`` is ``(B, n)`` ratings, or ``(B, n + 1)`` with Davidson's ``kappa`` last.

    Returns:
        ``g_d`` (B, P): the derivative in ``d = theta_first - theta_second``; for
        Davidson ``g_k`` (B, P), in ``kappa`` (zero-size otherwise); and the
        probabilities :func:`_hessian_terms` needs.
    """
    d = x[:, first] - x[:, second]
    if not davidson:
        s, tot = sums
        q = expit(d)
        return s - tot * q, np.empty((0,)), (q,)
    w1, w2, ties, tot = sums
    kappa = x[:, n : n + 1]
    log_z = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), kappa)
    p1 = np.exp(0.5 * d - log_z)
    p2 = np.exp(-0.5 * d - log_z)
    pt = np.exp(kappa - log_z)
    return 0.5 * (w1 - w2) - 0.5 * tot * (p1 - p2), ties - tot * pt, (p1, p2, pt)


def _hessian_terms(
    parts: tuple[FloatArray, ...], tot: FloatArray, davidson: bool
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Minus the second derivatives: ``h_dd`` (B, P); for Davidson ``h_dk``, ``h_kk``.

    Computed apart from the gradient, for the rounds that have not converged only.
    """
    if not davidson:
        (q,) = parts
        return tot * q * (1.0 - q), np.empty((0,)), np.empty((0,))
    p1, p2, pt = parts
    h_dd = 0.25 * tot * ((p1 + p2) - (p1 - p2) ** 2)
    return h_dd, -0.5 * tot * (p1 - p2) * pt, tot * pt * (1.0 - pt)


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
    w1, w2, ties = counts[..., 0], counts[..., 1], counts[..., 2]
    tot = w1 + w2 + ties
    d = x[:, first] - x[:, second]
    if not davidson:
        s = w1 + 0.5 * ties
        ll = s * log_expit(d) + (tot - s) * log_expit(-d)
    else:
        kappa = x[:, n : n + 1]
        log_z = np.logaddexp(np.logaddexp(0.5 * d, -0.5 * d), kappa)
        ll = 0.5 * d * (w1 - w2) + ties * kappa - tot * log_z
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
    counts = np.ascontiguousarray(counts)
    sums = _pair_sums(counts, davidson)
    upper, lower = first * m + second, second * m + first  # flat (m, m) positions
    diag = np.arange(n)
    index: dict[int, tuple[IntArray, IntArray]] = {}  # bincount indices by number of rounds

    def per_model(values: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``values`` summed per model, over ``first`` and over ``second`` (:func:`_scatter`)."""
        b = values.shape[0]
        if b not in index:
            index[b] = (_rows_index(first, n, b), _rows_index(second, n, b))
        return _scatter(values, first, n, index[b][0]), _scatter(values, second, n, index[b][1])

    active = np.arange(b_total)
    for _ in range(max_iter):
        everyone = active.size == b_total  # no row gathered while all rounds are active
        xa = x if everyone else x[active]
        sa = sums if everyone else _pair_sums(counts[active], davidson)  # views: see there
        g_d, g_k, parts = _gradient_terms(xa, first, second, sa, n, davidson)
        grad = np.empty_like(xa)
        g_first, g_second = per_model(g_d)
        grad[:, :n] = g_first - g_second - l2 * xa[:, :n]  # to_models(g_d), then the penalty
        if davidson:
            grad[:, n] = g_k.sum(axis=1)
        done = np.abs(grad).max(axis=1) <= tol * scale[active]
        converged[active[done]] = True
        keep = ~done
        if not keep.any():
            break
        # The Hessian only for rounds that go on (a converged one needs none).
        if not keep.all():
            active, xa, grad = active[keep], xa[keep], grad[keep]
            parts, sa = tuple(q[keep] for q in parts), tuple(s[keep] for s in sa)
        h_dd, h_dk, h_kk = _hessian_terms(parts, sa[-1], davidson)
        h_first, h_second = per_model(h_dd)
        hdiag = h_first + h_second + l2
        hess = np.zeros((active.size, m * m))
        hess[:, upper] = hess[:, lower] = -h_dd
        hess[:, diag * (m + 1)] = hdiag
        hess = hess.reshape(active.size, m, m)
        if davidson:
            cross = to_models(h_dk, first, second, n)
            hess[:, :n, n] = cross
            hess[:, n, :n] = cross
            hess[:, n, n] = np.ascontiguousarray(h_kk).sum(axis=1)  # summed as it always was
        # Gauge term and tiny ridge (see docstring and :func:`._newton.stabilise`).
        stabilise(hess, n, l2, np.maximum(hdiag.mean(axis=1), 1e-300))
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        new = xa + step
        size = np.abs(step).max(axis=1)
        big = size > 0.5
        if big.any():
            objective = partial(
                bt_objective, first=first, second=second, counts=counts[active[big]], l2=l2,
                davidson=davidson,
            )  # fmt: skip
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
