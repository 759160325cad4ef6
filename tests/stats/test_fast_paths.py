"""Shortcuts taken for speed give the very numbers of the long way, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit as scipy_expit

from fairjudge.stats._arrays import expit
from fairjudge.stats._intervals import (
    _draw,
    _pending,
    bootstrap_mean,
    prefetch_resamples,
    shared_resamples,
)


def test_expit_is_scipys_value_for_value_without_overflow_warnings() -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [rng.normal(0, s, 20_000) for s in (1e-3, 1.0, 10.0, 300.0)]
        + [np.array([-800.0, -745.2, -709.8, -36.0, 0.0, 36.0, 709.8, 800.0])]
    )
    with np.errstate(all="raise"):  # an overflow would raise here
        ours = expit(x)
    assert np.array_equal(ours, scipy_expit(x))
    assert float(expit(np.float64(0.3))) == float(scipy_expit(0.3))


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
