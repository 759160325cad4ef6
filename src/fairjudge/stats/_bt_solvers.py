"""Numerical core of the Bradley-Terry fits: pair tables and batched Newton.

The full-data fits that start from zero (L-BFGS, then Newton) are in :mod:`._bradley_terry`.

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

from dataclasses import dataclass
from functools import partial

import numpy as np
from scipy.special import expit, log_expit

from fairjudge.stats._logistic import backtrack
from fairjudge.stats._validate import BoolArray, FloatArray, IntArray

__all__ = ["MAX_NEWTON_ITER", "NewtonLayout", "bt_newton", "bt_objective", "to_models"]

GRAD_TOL = 1e-10
"""Newton stops when max |gradient| <= GRAD_TOL * (number of battles in the round)."""

STEP_TOL = 1e-9
"""A Newton step this small (log-odds units) is taken and the round declared converged:
by quadratic convergence the error left after it is of order STEP_TOL**2."""

MAX_NEWTON_ITER = 100
"""Enough for rounds whose maximum lies at infinity to settle at a large finite value."""


def to_models(values: FloatArray, first: IntArray, second: IntArray, n: int) -> FloatArray:
    """Per-model sums of per-pair values: ``+v`` to ``first``, ``-v`` to ``second``.

    ``values`` is ``(P,)``; the result is ``(n,)``. Many rounds at once:
    :meth:`NewtonLayout.per_model`.
    """
    out = np.bincount(first, values, n) - np.bincount(second, values, n)
    return np.asarray(out, dtype=np.float64)


def _rows_index(index: IntArray, n: int, b: int) -> IntArray:
    """``index`` for each of ``b`` rows, offset by ``n`` per row and flattened."""
    out: IntArray = (index[None, :] + n * np.arange(b)[:, None]).ravel()
    return out


def _pair_sums(counts: FloatArray, davidson: bool) -> tuple[FloatArray, ...]:
    """What Newton and the objective read of the counts.

    Half-win ties: each pair's score ``w1 + ties / 2`` and total. Davidson's: both
    sides' wins and the ties, as views of ``counts`` (C-contiguous), and the total.
    Their memory layout decides the order in which numpy sums over pairs, so it stays
    what it always was, and so do the results, bit for bit.
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
    sums = _pair_sums(counts, davidson)
    d = x[:, first] - x[:, second]
    if not davidson:
        s, tot = sums
        ll = s * log_expit(d) + (tot - s) * log_expit(-d)
    else:
        w1, w2, ties, tot = sums
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
    layout: NewtonLayout | None = None,
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

    Every operation acts on each round alone (elementwise, per-row sums and
    ``bincount`` bins, one LAPACK solve per round), so a round's result does not
    depend on which other rounds share its batch: solving a chunk in parts gives
    the same numbers, bit for bit.

    Args:
        first: ``(P,)`` first model of each pair.
        second: ``(P,)`` second model of each pair.
        counts: ``(B, P, 3)`` wins of first, wins of second, ties, per round.
        x0: ``(m,)`` or ``(B, m)`` starting point; ``m = n`` or ``n + 1``.
        l2: Ridge strength on the ratings.
        davidson: Fit Davidson's tie model instead of half-win ties.
        layout: The index arrays of these pairs (:meth:`NewtonLayout.of`), for at
            least ``B`` rounds: a caller solving many batches builds them once.

    Returns:
        ``(B, m)`` solutions and a ``(B,)`` mask of the rounds that converged
        (:data:`GRAD_TOL`, or a step under :data:`STEP_TOL`).
    """
    b_total = counts.shape[0]
    m = x0.shape[-1]
    n = m - (1 if davidson else 0)
    x = np.array(np.broadcast_to(x0, (b_total, m)), dtype=np.float64)
    converged = np.zeros(b_total, dtype=bool)
    scale = np.maximum(counts.sum(axis=(1, 2)), 1.0)
    counts = np.ascontiguousarray(counts)
    sums = _pair_sums(counts, davidson)
    if layout is None or layout.rounds < b_total or layout.m != m:
        layout = NewtonLayout.of(first, second, n, m, b_total)

    # From a shared start, every round's pair differences (and probabilities) are
    # the same at the first iteration: computed once, for one row, and broadcast.
    shared = x0.ndim == 1
    active = np.arange(b_total)
    for iteration in range(MAX_NEWTON_ITER):
        everyone = active.size == b_total  # no row gathered while all rounds are active
        xa = x if everyone else x[active]
        sa = sums if everyone else tuple(s[active] for s in sums)  # see _pair_sums
        at = xa[:1] if shared and iteration == 0 else xa
        g_d, g_k, parts = _gradient_terms(at, first, second, sa, n, davidson)
        parts = tuple(np.broadcast_to(q, g_d.shape) for q in parts)
        grad = np.empty_like(xa)
        g_first, g_second = layout.per_model(g_d)
        grad[:, :n] = g_first - g_second - l2 * xa[:, :n]  # to_models(g_d), then the penalty
        if davidson:
            grad[:, n] = g_k.sum(axis=1)
        done = np.abs(grad).max(axis=1) <= GRAD_TOL * scale[active]
        converged[active[done]] = True
        keep = ~done
        if not keep.any():
            break
        # The Hessian only for rounds that go on (a converged one needs none).
        if not keep.all():
            active, xa, grad = active[keep], xa[keep], grad[keep]
            parts, sa = tuple(q[keep] for q in parts), tuple(s[keep] for s in sa)
        hess = layout.systems(_hessian_terms(parts, sa[-1], davidson), l2)
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


@dataclass(frozen=True, slots=True)
class NewtonLayout:
    """Index arrays :func:`bt_newton` reuses in every iteration (and a caller across calls).

    Attributes:
        n: Number of ratings.
        m: Parameters per round (``n``, or ``n + 1`` with Davidson's ``kappa``).
        rounds: How many rounds the flat indices cover.
        flat_first: ``first`` offset by ``n`` per round, for ``B`` rounds; the first
            ``b * P`` entries are the index for any ``b <= B`` rounds.
        flat_second: The same for ``second``.
        source: ``(m * m,)`` column of :meth:`entries`' table that each position of
            a flattened ``(m, m)`` Hessian copies.
    """

    n: int
    m: int
    rounds: int
    flat_first: IntArray
    flat_second: IntArray
    source: IntArray

    @classmethod
    def of(cls, first: IntArray, second: IntArray, n: int, m: int, b: int) -> NewtonLayout:
        """The layout of ``b`` rounds of the pairs ``(first, second)``."""
        p = first.size
        source = np.full((m, m), p + n, dtype=np.intp)  # the zero entry
        source[first, second] = source[second, first] = np.arange(p)
        source[np.arange(n), np.arange(n)] = p + np.arange(n)
        if m > n:  # Davidson's kappa: the cross terms, then its own diagonal entry
            source[:n, n] = source[n, :n] = p + n + 1 + np.arange(n)
            source[n, n] = p + 2 * n + 1
        return cls(n, m, b, _rows_index(first, n, b), _rows_index(second, n, b), source.ravel())

    def per_model(self, values: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(B, P)`` values summed per model, over ``first`` and over ``second`` (``(B, n)``).

        One ``bincount`` over row-offset indices for all rounds at once.
        """
        return self._sum_by(self.flat_first, values), self._sum_by(self.flat_second, values)

    def _sum_by(self, flat_index: IntArray, values: FloatArray) -> FloatArray:
        b, p = values.shape
        out = np.bincount(flat_index[: b * p], values.ravel(), b * self.n)
        return np.asarray(out, dtype=np.float64).reshape(b, self.n)

    def systems(self, terms: tuple[FloatArray, FloatArray, FloatArray], l2: float) -> FloatArray:
        """The ``(B, m, m)`` Newton matrices, made solvable, from :func:`_hessian_terms`.

        Entry for entry the matrix that writing the terms into zeros and then
        :func:`._logistic.stabilise` gave, but gathered in one pass from a table of
        the distinct entries, on which the gauge term and the ridge are added.
        """
        table = self.entries(terms, l2)
        hess: FloatArray = np.take(table, self.source, axis=1).reshape(-1, self.m, self.m)
        return hess

    def entries(self, terms: tuple[FloatArray, FloatArray, FloatArray], l2: float) -> FloatArray:
        """``(B, K)`` table: each pair's entry, the diagonal, zero, then Davidson's.

        The gauge term ``mean_diag / n`` goes on the ratings-block entries (zero
        included) and the tiny ridge on the diagonal ones, in that order, as
        :func:`._logistic.stabilise` adds them to the matrix.
        """
        h_dd, h_dk, h_kk = terms
        b, p = h_dd.shape
        n = self.n
        h_first, h_second = self.per_model(h_dd)
        hdiag = h_first + h_second + l2
        table = np.empty((b, p + n + 1 + (self.m - n) * (n + 1)))
        np.negative(h_dd, out=table[:, :p])
        table[:, p : p + n] = hdiag
        table[:, p + n] = 0.0
        if self.m > n:
            cross_first, cross_second = self.per_model(h_dk)
            table[:, p + n + 1 : p + 2 * n + 1] = cross_first - cross_second  # to_models
            table[:, p + 2 * n + 1] = np.ascontiguousarray(h_kk).sum(axis=1)  # as it always was
        mean_diag = np.maximum(hdiag.mean(axis=1), 1e-300)
        if l2 == 0.0:
            table[:, : p + n + 1] += (mean_diag / n)[:, None]
        ridge = 1e-12 * mean_diag[:, None]
        table[:, p : p + n] += ridge
        if self.m > n:
            table[:, p + 2 * n + 1 :] += ridge
        return table
