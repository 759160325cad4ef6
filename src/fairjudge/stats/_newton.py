"""Pieces shared by the Newton solvers (Bradley-Terry, style control, length control).

Each solver builds its own gradient and Hessian; what they share is how a step is
made safe:

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
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fairjudge.stats._arrays import FloatArray

__all__ = ["backtrack", "stabilise"]


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
