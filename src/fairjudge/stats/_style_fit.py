"""The style-controlled Bradley-Terry fit (Newton's method), and whether style separates it.

The model, per battle ``i`` between ``a_i`` and ``b_i`` with standardised style
differences ``f_i``::

    logit P(a_i beats b_i) = theta[a_i] - theta[b_i] + f_i . beta

Ties count as half a win. The fit is the exact (weighted, optionally ridge-penalised)
maximum likelihood. Whether that maximum means anything is a separate question,
answered with :mod:`._logistic` from :func:`style_reach`: a style term that adds
more than 15 log-odds to some battle has the verdicts (almost) separated by style
(:func:`separating` asks it of the full data, the caller of each bootstrap round).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from fairjudge.stats._arrays import BoolArray, FloatArray, IntArray
from fairjudge.stats._logistic import backtrack, beyond_bound, stabilise

__all__ = ["fit_style_bt", "separating", "style_reach"]


def fit_style_bt(
    a: IntArray,
    b: IntArray,
    feats: FloatArray,
    y: FloatArray,
    w: FloatArray,
    n: int,
    l2: float,
    x0: FloatArray,
    max_iter: int = 100,
) -> tuple[FloatArray, bool]:
    """Weighted maximum likelihood of BT + covariates by Newton's method.

    The Hessian has the Bradley-Terry Laplacian in the ratings block, as in
    :func:`._bt_solvers.bt_newton` (made solvable the same way, by
    :func:`._logistic.stabilise`), plus the covariate rows and columns. Steps above
    0.5 are halved until the objective does not increase.

    Args:
        a: ``(m,)`` model A of each battle.
        b: ``(m,)`` model B of each battle.
        feats: ``(m, k)`` standardised style differences.
        y: ``(m,)`` score of A: 1, 0.5 (tie) or 0.
        w: ``(m,)`` weight of each battle (its count in a bootstrap round).
        n: Number of models.
        l2: Ridge strength on all parameters.
        x0: ``(n + k,)`` starting point: ratings, then style coefficients.
        max_iter: Iteration cap.

    Returns:
        ``(n + k,)`` parameters, and whether Newton met its gradient or step
        tolerance before the cap (otherwise the point is not a maximum).
    """
    k = feats.shape[1]
    x = x0.copy()
    scale = max(float(w.sum()), 1.0)

    def objective(v: FloatArray) -> float:
        eta = v[a] - v[b] + feats @ v[n:]
        ll = y * -np.logaddexp(0.0, -eta) + (1.0 - y) * -np.logaddexp(0.0, eta)
        return -float(w @ ll) + 0.5 * l2 * float(v @ v)

    for _ in range(max_iter):
        eta = x[a] - x[b] + feats @ x[n:]
        p = expit(eta)
        r = w * (y - p)
        grad = np.concatenate([np.bincount(a, r, n) - np.bincount(b, r, n), feats.T @ r]) - l2 * x
        if np.abs(grad).max() <= 1e-10 * scale:
            return x, True
        h = w * p * (1.0 - p)
        hess = np.zeros((n + k, n + k))
        block = (
            np.bincount(a * n + a, h, n * n)
            + np.bincount(b * n + b, h, n * n)
            - np.bincount(a * n + b, h, n * n)
            - np.bincount(b * n + a, h, n * n)
        )
        hess[:n, :n] = block.reshape(n, n)
        hf = h[:, None] * feats
        # (n, k); with every feature constant k is 0 and this is plain Bradley-Terry.
        cross = np.zeros((n, k))
        for j in range(k):
            cross[:, j] = np.bincount(a, hf[:, j], n) - np.bincount(b, hf[:, j], n)
        hess[:n, n:] = cross
        hess[n:, :n] = cross.T
        hess[n:, n:] = feats.T @ hf
        hess[np.arange(n + k), np.arange(n + k)] += l2
        mean_diag = max(float(np.diag(hess).mean()), 1e-300)
        stabilise(hess[None], n, l2, np.array([mean_diag]))
        step = np.asarray(np.linalg.solve(hess, grad), dtype=np.float64)
        new = x + step
        if np.abs(step).max() > 0.5:
            new = backtrack(x[None], step[None], lambda v: np.array([objective(v[0])]))[0]
        x = new
        if np.abs(step).max() <= 1e-9:
            return x, True
    return x, False


def style_reach(beta: FloatArray, feats: FloatArray, w: FloatArray | None = None) -> FloatArray:
    """The largest log-odds each style term adds to a battle: ``|beta_k| max_i |f_ik|``.

    The analogue of length control's ``|beta|`` (whose covariate lies in [-1, 1]):
    standardised style differences are unbounded, so the reach is measured on the
    battles at hand.

    Args:
        beta: ``(k,)`` style coefficients.
        feats: ``(m, k)`` standardised style differences.
        w: ``(m,)`` battle weights; battles of weight zero (not drawn in a bootstrap
            round) are left out. ``None``: all battles.
    """
    used = feats if w is None else feats[w > 0]
    if used.shape[0] == 0:
        return np.zeros_like(beta)
    out: FloatArray = np.abs(beta) * np.abs(used).max(axis=0)
    return out


def separating(
    a: IntArray,
    b: IntArray,
    raw: FloatArray,
    feats: FloatArray,
    y: FloatArray,
    x_hat: FloatArray,
    l2: float,
) -> BoolArray:
    """Which style features (almost) perfectly separate the verdicts of the full data.

    Judged on the reported fit, and on the same fit of the differences scaled but not
    centred; either counts. Centring (Arena-Hard-Auto's) moves "equal style" off zero,
    so ties between answers of equal style sit where a growing coefficient would push
    them off one half: they hold it back, and can hide a judge whose verdicts style
    alone explains (one that always prefers the longer answer, with answers of equal
    length tied) behind a finite maximum. Uncentred, equal style is zero again.
    As for plain Bradley-Terry, a ridge is a cure the user may choose: both fits are
    penalised, so a ridge strong enough to hold style within the bound passes.

    Args:
        a: ``(m,)`` model A of each battle.
        b: ``(m,)`` model B of each battle.
        raw: ``(m, k)`` style differences of the varying features, before standardising.
        feats: ``(m, k)`` the same, standardised.
        y: ``(m,)`` score of A.
        x_hat: ``(n + k,)`` the reported fit.
        l2: Ridge strength.
    """
    n = x_hat.size - feats.shape[1]
    split = beyond_bound(style_reach(x_hat[n:], feats))
    if feats.shape[1] == 0:
        return split
    scaled = raw / raw.std(axis=0, ddof=1)
    x_raw, _ = fit_style_bt(a, b, scaled, y, np.ones(a.size), n, l2, x_hat)
    out: BoolArray = split | beyond_bound(style_reach(x_raw[n:], scaled))
    return out
