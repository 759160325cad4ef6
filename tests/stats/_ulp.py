"""Distances between floats in units in the last place (ulp).

Why this exists: numpy picks a SIMD path for ``exp``, ``log`` and friends by the CPU
it runs on (AVX-512, AVX2 or the baseline), and the paths round differently in the
last bit. A test that compares one of those functions with another implementation
(scipy's scalar C code, say) bit for bit therefore passes on one CPU and fails on
another. Such comparisons state their contract as "within N ulp"; comparisons of a
computation with itself (a seeded rerun, a cache hit) stay bit for bit.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def ulp_distance(a: ArrayLike, b: ArrayLike) -> NDArray[np.int64]:
    """How many representable float64 values lie between ``a`` and ``b``, elementwise.

    Finite values only. The bit patterns are mapped onto one monotone integer line
    (negative floats mirrored below zero), so the distance is exact across zero and
    ``0.0`` and ``-0.0`` are 0 apart.
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("ulp_distance compares finite values only")

    def line(v: NDArray[np.float64]) -> NDArray[np.int64]:
        bits = v.view(np.int64)
        return np.where(bits < 0, np.int64(np.iinfo(np.int64).min) - bits, bits)

    # Python ints: the mirrored line spans more than int64 near the extremes.
    diff = [abs(int(p) - int(q)) for p, q in zip(line(x).ravel(), line(y).ravel(), strict=True)]
    return np.array(diff, dtype=np.int64).reshape(np.broadcast(x, y).shape)
