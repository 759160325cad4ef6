"""Shortcuts taken for speed give the numbers of the long way.

Bit for bit where both ways run the same floating-point operations on the same
machine; within a stated number of ulp where the other way is another library whose
rounding may differ from numpy's CPU-dependent SIMD kernels (see ``tests/stats/_ulp``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit as scipy_expit

from fairjudge.stats._intervals import (
    _draw,
    _pending,
    bootstrap_mean,
    prefetch_resamples,
    shared_resamples,
)
from fairjudge.stats._logistic import expit
from tests.stats._ulp import ulp_distance

# numpy's vectorised exp rounds differently on AVX-512, AVX2 and baseline CPUs (up to
# 2 ulp apart on 800,000 draws measured on an AVX-512 machine); scipy's expit is scalar
# C code. The contract is therefore "scipy's value to within a few ulp" on every CPU,
# and exact where the answer is exact.
EXPIT_ULP = 4


def _expit_inputs() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate(
        [rng.normal(0, s, 20_000) for s in (1e-3, 1.0, 10.0, 300.0)]
        + [np.array([-800.0, -745.2, -709.8, -36.0, 0.0, 36.0, 709.8, 800.0])]
    )


def test_expit_is_scipys_value_within_a_few_ulp_without_overflow_warnings() -> None:
    x = _expit_inputs()
    with np.errstate(all="raise"):  # an overflow would raise here
        ours = expit(x)
    assert int(ulp_distance(ours, scipy_expit(x)).max()) <= EXPIT_ULP
    assert int(ulp_distance(expit(np.float64(0.3)), scipy_expit(0.3))) <= EXPIT_ULP
    # Exact where the answer is exact: the midpoint and both saturated ends.
    ends = expit(np.array([0.0, -800.0, -745.2, 800.0, 709.8]))
    assert ends.tolist() == [0.5, 0.0, 0.0, 1.0, 1.0]


def test_expit_is_the_same_on_the_same_machine() -> None:
    x = _expit_inputs()
    assert expit(x).tobytes() == expit(x.copy()).tobytes()  # a rerun is bit for bit


_SIMD_CHECK = """
import json, sys
import numpy as np
from scipy.special import expit as scipy_expit
from fairjudge.stats._logistic import expit
from tests.stats._ulp import ulp_distance
from tests.stats.test_fast_paths import _expit_inputs
x = _expit_inputs()
with np.errstate(all="raise"):
    ours = expit(x)
print(json.dumps({"ulp": int(ulp_distance(ours, scipy_expit(x)).max()),
                  "sha": __import__("hashlib").sha256(ours.tobytes()).hexdigest()}))
"""


def _dispatchable() -> list[str]:
    from numpy._core._multiarray_umath import __cpu_dispatch__

    return list(__cpu_dispatch__)


@pytest.mark.parametrize("path", ["default", "no-avx512", "baseline"])
def test_expit_holds_its_contract_on_every_simd_path_numpy_can_take(path: str) -> None:
    """Each SIMD path this CPU offers, forced in a fresh process (numpy picks at import).

    On an AVX-512 machine this runs the AVX-512, AVX2 and baseline kernels; elsewhere
    the paths the CPU lacks are simply the ones it takes anyway.
    """
    wide = [f for f in _dispatchable() if f.startswith(("AVX512", "X86_V4"))]
    disabled = {"default": [], "no-avx512": wide, "baseline": _dispatchable()}[path]
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(disabled)}
    if not disabled:
        env.pop("NPY_DISABLE_CPU_FEATURES", None)
    done = subprocess.run(
        [sys.executable, "-c", _SIMD_CHECK],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ulp"] <= EXPIT_ULP


@pytest.mark.parametrize("clusters", [None, "one_each", "shared"])
def test_bootstrap_mean_is_the_ratio_of_the_plans_sums(clusters: str | None) -> None:
    rng = np.random.default_rng(1)
    values = rng.random(60)
    labels = {
        None: None,
        "one_each": [f"q{i}" for i in range(60)],
        "shared": [f"q{i % 17}" for i in range(60)],
    }[clusters]
    ci = bootstrap_mean(values, labels, n_resamples=500, seed=3)
    # The long way: per-cluster sums and sizes, the plan, their ratio, the quantiles.
    keys = list(dict.fromkeys(labels)) if labels else list(range(60))
    inverse = np.array([keys.index(c) for c in labels]) if labels else np.arange(60)
    sums = np.bincount(inverse, weights=values).astype(np.float64)
    sizes = np.bincount(inverse).astype(np.float64)
    counts = _draw(len(keys), 500, 3)
    low, high = np.quantile((counts @ sums) / (counts @ sizes), [0.025, 0.975])
    assert (ci.low, ci.high) == (float(low), float(high))


def test_a_plan_drawn_in_the_background_gives_the_same_interval() -> None:
    values = np.random.default_rng(2).random(40)
    alone = bootstrap_mean(values, n_resamples=300, seed=5)
    with shared_resamples():
        prefetch_resamples([40, 7], 300, 5)  # 7: a plan nobody uses
        pending = _pending.get()
        assert pending is not None
        assert set(pending) == {(40, 300, 5), (7, 300, 5)}
        shared = bootstrap_mean(values, n_resamples=300, seed=5)
        assert set(pending) == {(7, 300, 5)}  # the used one was taken, the other left
    assert shared == alone
    assert _pending.get() is None  # dropped with the block


def test_prefetch_outside_a_block_does_nothing() -> None:
    prefetch_resamples([50], 100, 0)
    assert _pending.get() is None


def test_ulp_distance_counts_representable_values_across_zero() -> None:
    tiny = np.nextafter(0.0, 1.0)
    assert ulp_distance(1.0, np.nextafter(1.0, 2.0)).tolist() == 1
    assert ulp_distance(0.0, -0.0).tolist() == 0
    assert ulp_distance(-tiny, tiny).tolist() == 2
    assert ulp_distance([0.5, 2.0], [0.5, 2.0]).tolist() == [0, 0]
    with pytest.raises(ValueError, match="finite"):
        ulp_distance(np.inf, 1.0)
