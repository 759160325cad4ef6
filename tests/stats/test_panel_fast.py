"""The fast paths of the panel diagnostics (issue 25) against the long way they replace.

Each shortcut is compared with the computation it replaced, on seeded random data
with ties, zero weights and missing readings: bit for bit where both run exact
whole-number sums, within 1e-12 against scipy's Kendall (another library).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from fairjudge.evaluation._panel import aggregate_scores, leave_one_out, leave_one_out_means
from fairjudge.evaluation._scores_stats import _resampled_medians, median_interval
from fairjudge.stats._agreement import _alphas
from fairjudge.stats._panel import Metric, alpha_value, coincidences
from fairjudge.stats._rank_stats import kendall, kendall_grid, kendall_loop
from fairjudge.stats._resample import plan_bootstrap


@pytest.mark.parametrize("seed", range(12))
def test_kendall_on_the_grid_is_the_quadratic_forms_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 200))
    x = rng.integers(1, 6, n).astype(float)  # rubric levels
    y = np.round(rng.normal(3.0, 1.0, n), int(rng.integers(0, 3)))  # means of the others
    if seed == 0:
        y[:] = 2.0  # one side constant: no tau
    w = rng.integers(0, 4, (40, n)).astype(float)
    w[0] = 0.0  # nothing drawn: no tau
    dense, grid = kendall(x, y, w), kendall_grid(x, y, w)
    assert np.array_equal(np.isnan(dense), np.isnan(grid))
    assert np.array_equal(dense[~np.isnan(dense)], grid[~np.isnan(grid)])
    assert np.isnan(grid[0])


def test_kendall_on_the_grid_is_scipys_where_scipy_was_used() -> None:
    # more than DENSE_KENDALL_MAX distinct pairs: the old path called scipy per resample
    rng = np.random.default_rng(3)
    x = rng.integers(1, 6, 3000).astype(float)
    y = np.round(rng.normal(0.0, 1.0, 3000), 3)
    w = rng.integers(0, 3, (5, 3000)).astype(float)
    np.testing.assert_allclose(kendall_grid(x, y, w), kendall_loop(x, y, w), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_resampled_medians_are_numpys_medians_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 30))
    members = [np.round(rng.normal(3.0, 1.0, int(rng.integers(1, 6))), 1) for _ in range(k)]
    draws = rng.integers(0, k, size=(50, k))
    slow = [np.median(np.concatenate([members[i] for i in row])) for row in draws]
    assert np.array_equal(_resampled_medians(members, draws), np.asarray(slow))


@pytest.mark.parametrize("seed", range(8))
def test_leave_one_out_means_are_the_rules_means(seed: int) -> None:
    rng = random.Random(seed)
    m = rng.randint(2, 6)
    weights = [rng.choice([1.0, 1.25, 0.3, 2.0, 1 / 3]) for _ in range(m)]
    rows = [[None if rng.random() < 0.25 else rng.randint(1, 5) for _ in range(m)]
            for _ in range(rng.randint(0, 80))]  # fmt: skip

    def mean(scores: list[int | None], w: list[float]) -> float | None:
        return aggregate_scores(scores, w, "mean")

    for k in range(m):
        assert leave_one_out_means(k, rows, weights) == leave_one_out(k, rows, weights, mean)


def test_coincidences_are_each_units_matrix() -> None:
    rng = random.Random(4)
    data = [[None if rng.random() < 0.3 else rng.choice([1, 2, 3, 4.5]) for _ in range(4)]
            for _ in range(60)]  # fmt: skip
    per_unit, values, rows = coincidences(data)
    assert rows == [k for k, row in enumerate(data) if sum(v is not None for v in row) >= 2]
    assert values.tolist() == sorted({float(v) for k in rows for v in data[k] if v is not None})
    for matrix, k in zip(per_unit, rows, strict=True):
        unit = [float(v) for v in data[k] if v is not None]
        counts = np.array([unit.count(v) for v in values], dtype=float)
        expected = (np.outer(counts, counts) - np.diag(counts)) / (len(unit) - 1)
        assert np.array_equal(matrix, expected)


@pytest.mark.parametrize("n_clusters", [3, 7, 2500])
def test_a_plans_draws_are_one_stream_however_they_are_chunked(n_clusters: int) -> None:
    # the rank correlations size their chunks by the path they take (the grid needs
    # fewer cells than the quadratic forms): the same seed must give the same resamples
    plan = plan_bootstrap(n_clusters, {"n_resamples": 301, "seed": 5})
    whole = np.concatenate(list(plan.draws(1)))  # every chunk as large as memory allows
    for cells in (n_clusters * 150, n_clusters * 1000 + 7, 1 << 22):  # 1 << 22: chunks of 2
        assert np.array_equal(np.concatenate(list(plan.draws(cells))), whole)


@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
def test_alpha_of_many_resamples_at_once_is_alpha_of_each(metric: Metric) -> None:
    rng = np.random.default_rng(2)
    for _ in range(40):
        size = int(rng.integers(1, 7))
        values = np.sort(rng.choice(np.arange(1, 20) / 2, size, replace=False))
        m = rng.integers(0, 5, (20, size, size)).astype(float)
        m = (m + m.transpose(0, 2, 1)) / 3.0
        m[0] = 0.0  # nothing drawn: no alpha
        m[1] = 0.0
        m[1, 0, 0] = 4.0  # one value only: no disagreement expected, no alpha
        one_by_one = [alpha_value(x, values, metric, floor=1e-12) for x in m]
        assert np.array_equal(_alphas(m, values, metric), np.asarray(one_by_one), equal_nan=True)


@pytest.mark.parametrize(("n_clusters", "per_cluster"), [(3000, 1), (900, 3), (5, 2)])
def test_the_medians_interval_is_the_one_drawn_whole(n_clusters: int, per_cluster: int) -> None:
    # 3,000 clusters: the draws come in two blocks of rows, one stream as before
    rng = np.random.default_rng(1)
    values = [round(float(v), 2) for v in rng.normal(3.0, 1.0, n_clusters * per_cluster)]
    clusters = [f"c{i // per_cluster}" for i in range(len(values))]
    members = [np.asarray(values[c * per_cluster : (c + 1) * per_cluster])
               for c in range(n_clusters)]  # fmt: skip
    draws = np.random.default_rng(3).integers(0, n_clusters, size=(1500, n_clusters))
    slow = [np.median(np.concatenate([members[i] for i in row])) for row in draws]
    low, high = np.quantile(slow, [0.025, 0.975])
    ci = median_interval(values, clusters, seed=3, level=0.95, n_resamples=1500)
    assert (ci.low, ci.high) == (float(low), float(high))
