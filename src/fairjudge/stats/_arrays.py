"""Array type aliases shared by the statistics modules, and the logistic function."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["BoolArray", "FloatArray", "IntArray", "expit"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.intp]
BoolArray = NDArray[np.bool_]


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
