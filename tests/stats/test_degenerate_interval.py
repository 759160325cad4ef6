"""A win rate whose items all went one way: the Wilson interval, not a zero-width bootstrap.

A percentile bootstrap over questions that all scored the same cannot vary, so it
gives ``[p, p]`` at any size (QA40 F9: two items to model 2 printed ``[0.000, 0.000]``
and "Model 2 is better"). ``bootstrap_mean(..., proportion=True)`` gives the Wilson
score interval on the clusters instead, and leaves every other interval alone.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest
from scipy.stats import binomtest

from fairjudge.stats import ConfidenceInterval, bootstrap_mean
from fairjudge.stats._intervals import wilson_interval


def textbook_wilson(p: float, n: int, level: float) -> tuple[float, float]:
    """Wilson (1927), as written in Agresti & Coull (1998), eq. 2."""
    z = NormalDist().inv_cdf((1 + level) / 2)
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)


@pytest.mark.parametrize("n", [2, 3, 5, 10, 20, 137])
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
def test_wilson_matches_scipy_and_the_textbook(n: int, level: float, share: float) -> None:
    k = round(share * n)
    p = k / n
    low, high = wilson_interval(p, n, level)
    ref = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    assert low == pytest.approx(ref.low, abs=1e-12)
    assert high == pytest.approx(ref.high, abs=1e-12)
    book = textbook_wilson(p, n, level)
    assert (low, high) == pytest.approx(book, abs=1e-12)


def test_no_wins_is_zero_to_z2_over_n_plus_z2() -> None:
    z2 = NormalDist().inv_cdf(0.975) ** 2
    for n in (2, 20):
        assert wilson_interval(0.0, n, 0.95) == (0.0, pytest.approx(z2 / (n + z2), abs=1e-15))
        assert wilson_interval(1.0, n, 0.95) == (pytest.approx(n / (n + z2), abs=1e-15), 1.0)


@pytest.mark.parametrize(
    ("values", "clusters", "n"),
    [
        ([0.0, 0.0], None, 2),
        ([1.0] * 20, None, 20),
        ([0.5] * 7, None, 7),  # every item a tie
        ([0.0] * 6, ["a", "a", "b", "b", "c", "c"], 3),  # questions are the units
        ([0.0, 1.0, 0.5, 0.5], ["a", "a", "b", "b"], 2),  # equal question means
    ],
)
def test_a_proportion_that_cannot_vary_gets_the_wilson_interval(
    values: list[float], clusters: list[str] | None, n: int
) -> None:
    ci = bootstrap_mean(values, clusters, proportion=True)
    p = sum(values) / len(values)
    assert ci.estimable
    assert (ci.low, ci.high) == wilson_interval(p, n, 0.95)
    assert ci.high - ci.low > 0.1
    assert ci.note is not None
    assert f"the {n} " in ci.note
    assert "Wilson score interval" in ci.note
    assert ci.to_dict()["note"] == ci.note
    assert format(ci) == f"[{ci.low:.3f}, {ci.high:.3f}] (Wilson, all alike)"
    # Without proportion=True the mean's bootstrap is what it was.
    plain = bootstrap_mean(values, clusters)
    assert plain.high - plain.low < 1e-12
    assert plain.note is None


def test_the_level_is_kept() -> None:
    ci = bootstrap_mean([0.0] * 4, proportion=True, level=0.8)
    assert ci.level == 0.8
    assert (ci.low, ci.high) == wilson_interval(0.0, 4, 0.8)


@pytest.mark.parametrize(
    ("values", "clusters"),
    [
        ([0.0, 1.0, 1.0, 0.5, 0.0], None),
        ([0.0] * 19 + [1.0], None),
        ([0.0, 0.0, 1.0, 0.5], ["a", "a", "b", "b"]),
        ([0.25, 0.75, 0.6, 0.6, 0.1], None),
    ],
)
def test_an_interval_that_varies_is_unchanged(
    values: list[float], clusters: list[str] | None
) -> None:
    for seed in (0, 7):
        plain = bootstrap_mean(values, clusters, seed=seed)
        assert bootstrap_mean(values, clusters, seed=seed, proportion=True) == plain
        assert plain.note is None
        assert "note" not in plain.to_dict()


def test_one_cluster_is_still_not_estimable() -> None:
    ci = bootstrap_mean([1.0], proportion=True)
    assert not ci.estimable
    assert ci.note is None


def test_the_note_is_kept_out_of_the_repr_and_old_dicts() -> None:
    ci = ConfidenceInterval(0.1, 0.2)
    assert list(ci.to_dict()) == ["low", "high", "level", "estimable", "reason"]
    assert repr(ci) == "ConfidenceInterval(low=0.1, high=0.2, level=0.95, reason=None)"
