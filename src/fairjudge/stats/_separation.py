"""When a logistic fit of the verdicts has run off to infinity: separation.

Length control and style control both regress the judge's verdicts on the style of
the two answers. When style (or, for length control, the intercept) predicts the
verdicts (almost) perfectly, the likelihood keeps rising as that coefficient grows:
its maximum is at infinity, or so far out that the fitted probabilities are all
within a hair of 0 or 1. Whatever value the optimiser stops at then says where it
stopped, not what the data say; and the quantity of interest (a win rate, or
ratings, at equal style) is not identified.

The test is shared, so that both say "separated" for the same reason: a fit is
separated when one term of its linear predictor can add more than
:data:`MAX_LOG_ODDS` to some item's log-odds. Past that bound every item the term
touches is predicted with certainty better than 1 - 3e-7, so the likelihood's
curvature along the term is below ``3e-7`` per item: no data set short of millions
of items can tell that value from infinity. An identified fit on real data stays
far below it (a judge whose preference is 100:1 from style alone is at 4.6).
"""

from __future__ import annotations

import numpy as np

from fairjudge.stats._arrays import BoolArray, FloatArray

__all__ = ["MAX_LOG_ODDS", "beyond_bound", "separation_reason"]

MAX_LOG_ODDS = 15.0
"""Largest log-odds one term of an identified fit may add to an item (odds of e^15)."""


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
