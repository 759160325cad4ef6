"""Simulators shared by the statistics tests."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

ELO = 400.0 / np.log(10.0)


def battles(
    theta: NDArray[np.float64],
    n: int,
    seed: int,
    *,
    tie: float = 0.1,
    names: list[str] | None = None,
) -> tuple[list[str], list[str], list[str]]:
    """Random pairs; outcomes whose expected score is exactly sigmoid(theta_a - theta_b).

    A tie takes probability ``tie`` (capped where the win probability is extreme) out
    of the win and loss probabilities equally, so ties-as-half-a-win Bradley-Terry is
    correctly specified and its estimate converges to ``theta``.
    """
    rng = np.random.default_rng(seed)
    k = theta.size
    names = names or [f"m{i}" for i in range(k)]
    a = rng.integers(0, k, n)
    b = rng.integers(0, k - 1, n)
    b = b + (b >= a)
    s = expit(theta[a] - theta[b])
    t = np.minimum(tie, 2 * np.minimum(s, 1 - s))
    u = rng.random(n)
    out = np.where(u < s - t / 2, "1", np.where(u < s + t / 2, "tie", "2"))
    return [names[i] for i in a], [names[i] for i in b], out.tolist()
