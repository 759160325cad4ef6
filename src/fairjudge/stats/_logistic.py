"""What the logistic fits share (Bradley-Terry, style control, length control).

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
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fairjudge.stats._arrays import BoolArray, FloatArray

__all__ = ["MAX_LOG_ODDS", "backtrack", "beyond_bound", "separation_reason", "stabilise"]

MAX_LOG_ODDS = 15.0
"""Largest log-odds one term of an identified fit may add to an item (odds of e^15)."""


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
