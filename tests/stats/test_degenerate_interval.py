"""A win rate whose items all went one way: the Wilson interval, not a zero-width bootstrap.

A percentile bootstrap over questions that all scored the same cannot vary, so it
gives ``[p, p]`` at any size (QA40 F9: two items to model 2 printed ``[0.000, 0.000]``
and "Model 2 is better"). ``bootstrap_mean(..., proportion=True)`` gives the Wilson
score interval on the clusters instead, and leaves every other interval alone. Wilson's
only where every cluster's share is 0 or every one's is 1, a count of successes: a
share alike between (every question 1/2) gets the bound from none of the ``n`` off it,
``[p (1 - u), p + (1 - p) u]`` with ``u`` Wilson's upper bound of 0 of ``n``.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest
from scipy.stats import binomtest

from fairjudge.stats import ConfidenceInterval, bootstrap_mean
from fairjudge.stats._intervals import wilson_interval, wilson_when_alike


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
        ([0.0] * 6, ["a", "a", "b", "b", "c", "c"], 3),  # questions are the units
        ([1.0, 1.0, 1.0], ["a", "a", "b"], 2),
    ],
)
def test_a_proportion_that_cannot_vary_gets_the_wilson_interval(
    values: list[float], clusters: list[str] | None, n: int
) -> None:
    ci = bootstrap_mean(values, clusters, proportion=True)
    p = sum(values) / len(values)
    assert p in (0.0, 1.0)  # every unit a failure, or every one a success: a binomial count
    assert ci.estimable
    assert (ci.low, ci.high) == wilson_interval(p, n, 0.95)
    assert ci.high - ci.low > 0.1
    assert ci.note is not None
    unit = "items" if clusters is None else "questions"
    assert ci.note == (
        f"Wilson, all alike: all {n} {unit} have a share of {p:g}, so the bootstrap cannot "
        f"vary; this is the Wilson score interval of {round(p * n)} of {n}"
    )
    assert ci.to_dict()["note"] == ci.note
    assert format(ci) == f"[{ci.low:.3f}, {ci.high:.3f}] (Wilson, all alike)"
    # Without proportion=True: the point, marked as all alike (no bound invented).
    plain = bootstrap_mean(values, clusters)
    assert plain.high - plain.low < 1e-12
    assert plain.note is not None
    assert plain.note.startswith("all alike, the bootstrap cannot")


def none_off(n: int, level: float) -> float:
    """``u``: scipy's Wilson upper bound of 0 successes in ``n``."""
    return float(binomtest(0, n).proportion_ci(confidence_level=level, method="wilson").high)


@pytest.mark.parametrize(
    ("values", "clusters", "n"),
    [
        ([0.5] * 7, None, 7),  # every item a tie
        ([0.5] * 20, None, 20),
        ([0.0, 1.0, 0.5, 0.5], ["a", "a", "b", "b"], 2),  # equal question means, 1/2
        ([0.25, 0.25, 0.25], None, 3),  # probabilities: every one the same
    ],
)
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_a_share_alike_between_0_and_1_is_bounded_by_none_off_it_not_wilson(
    values: list[float], clusters: list[str] | None, n: int, level: float
) -> None:
    # Every question 1/2 is no count of successes: Wilson at 1/2 would treat each as a
    # coin toss (about [0.30, 0.70] on 20). What was seen: 0 of n questions off 1/2, so
    # at most u of all are (Wilson's upper bound of 0 of n), and each of those moves the
    # share at most to 0 or 1.
    ci = bootstrap_mean(values, clusters, proportion=True, level=level)
    p, u = sum(values) / len(values), none_off(n, level)
    assert (ci.low, ci.high) == pytest.approx((p * (1 - u), p + (1 - p) * u), abs=1e-12)
    assert (ci.low, ci.high) != pytest.approx(wilson_interval(p, n, level), abs=1e-3)
    assert ci.level == level
    assert ci.note is not None
    assert format(ci) == f"[{ci.low:.3f}, {ci.high:.3f}] (bound from 0/{n} off {p:g})"
    assert "Wilson score interval" not in ci.note
    assert f"at most {u:.3f} of all" in ci.note


def test_every_question_at_one_half_on_20_is_the_bound_not_a_coin_toss() -> None:
    ci = bootstrap_mean([0.5] * 20, [f"q{i}" for i in range(20)], proportion=True)
    assert (round(ci.low, 3), round(ci.high, 3)) == (0.419, 0.581)  # 1/2 ± u/2, u = 0.161
    assert ci.high - ci.low == pytest.approx(none_off(20, 0.95), abs=1e-12)
    assert str(ci) == "[0.419, 0.581] (bound from 0/20 off 0.5)"
    assert ci.note is not None
    assert ci.note.startswith("bound from 0/20 off 0.5: all 20 questions have a share of 0.5")


def test_at_0_and_1_the_bound_is_wilsons_interval() -> None:
    for n in (2, 20):
        u = none_off(n, 0.95)
        assert wilson_interval(0.0, n, 0.95) == pytest.approx((0.0, u), abs=1e-12)
        assert wilson_interval(1.0, n, 0.95) == pytest.approx((1 - u, 1.0), abs=1e-12)


@pytest.mark.parametrize(
    ("shares", "p", "head", "start"),
    [
        ([1.0, 1.0], 1.0, "Wilson, all alike", "all 2 questions have a share of 1, so"),
        ([0.5, 0.5], 0.5, "bound from 0/2 off 0.5", "all 2 questions have a share of 0.5, so"),
        ([0.0, 0.0], 0.0, "Wilson, all alike", "all 2 questions have a share of 0, so"),
    ],
)
def test_the_note_reads_right_for_flags(
    shares: list[float], p: float, head: str, start: str
) -> None:
    import numpy as np

    wide = ConfidenceInterval(0.0, 1.0, 0.9)
    ci = wilson_when_alike(wide, np.array(shares), p, clustered=True)
    assert ci.note is not None
    assert ci.note.startswith(f"{head}: {start}")
    assert "the 1 question" not in ci.note
    assert "score the same" not in ci.note  # flags score nothing: they are a share
    if p in (0.0, 1.0):
        ref = binomtest(round(p * len(shares)), len(shares)).proportion_ci(
            confidence_level=0.9, method="wilson"
        )
        assert (ci.low, ci.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
        assert ci.note.endswith(
            f"Wilson score interval of {round(p * len(shares))} of {len(shares)}"
        )
    else:
        u = none_off(2, 0.9)
        assert (ci.low, ci.high) == pytest.approx((p * (1 - u), p + (1 - p) * u), abs=1e-12)
        assert "None of the 2 questions is off 0.5" in ci.note


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


@pytest.mark.parametrize("share", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("clustered", [True, False])
def test_one_cluster_alike_is_not_estimable_as_a_run_of_one_is(
    share: float, clustered: bool
) -> None:
    # review41 F4: the clusters given are those with items (S2's: with a decided item).
    # One of them is one question, not "the Wilson score interval of 1 of 1": the same
    # reason a run of one question gets from bootstrap_mean.
    import numpy as np

    wide = ConfidenceInterval(0.0, 1.0, 0.9)
    ci = wilson_when_alike(wide, np.array([share]), share, clustered=clustered)
    one = bootstrap_mean([share, share], ["a", "a"] if clustered else None, level=0.9)
    if not clustered:  # a run of one item
        one = bootstrap_mean([share], level=0.9)
    assert not ci.estimable
    assert (
        ci.reason
        == one.reason
        == f"one {'question' if clustered else 'item'}: the bootstrap cannot vary"
    )
    assert ci.level == 0.9
    assert ci.note is None
