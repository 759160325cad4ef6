from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau, spearmanr

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._agreement import judge_agreement, system_agreement
from fairjudge.stats._rank_stats import score_correlation
from tests.stats._sim import battles


def test_agreement_by_hand() -> None:
    judge = ["1", "1", "2", "tie", "tie", "1", "2", "2"]
    human = ["1", "2", "2", "tie", "1", "1", "tie", "1"]
    r = judge_agreement(judge, human, n_resamples=200)
    # S1: agreement at items 0, 2, 3 and 5: 4 of 8.
    assert (r.s1.count, r.s1.n, r.s1.estimate) == (4, 8, 0.5)
    # S2: items where neither said tie are 0, 1, 2, 5 and 7; they agree at 0, 2, 5.
    assert (r.s2.count, r.s2.n, r.s2.estimate) == (3, 5, 0.6)
    # Rows are the human's label, columns the judge's, in the order 1, 2, tie.
    assert r.confusion.counts == ((2, 1, 1), (1, 1, 0), (0, 1, 1))
    # Kappa: p_o = 1/2; human marginals (4, 2, 2), judge marginals (3, 3, 2);
    # p_e = (4*3 + 2*3 + 2*2) / 64 = 22/64; kappa = (32 - 22) / (64 - 22) = 5/21.
    assert math.isclose(r.kappa, 5 / 21)
    assert r.kappa_ci.low <= r.kappa <= r.kappa_ci.high
    assert r.s1.ci.low <= 0.5 <= r.s1.ci.high


def test_kappa_and_agreement_by_hand_small() -> None:
    judge = ["1", "2", "tie", "1"]
    human = ["1", "1", "tie", "1"]
    r = judge_agreement(judge, human, n_resamples=100)
    # p_o = 3/4; human marginals (3, 0, 1), judge marginals (2, 1, 1);
    # p_e = (3*2 + 0*1 + 1*1) / 16 = 7/16; kappa = (12/16 - 7/16) / (9/16) = 5/9.
    assert r.s1.estimate == 0.75
    assert math.isclose(r.s2.estimate, 2 / 3)
    assert math.isclose(r.kappa, 5 / 9)
    perfect = judge_agreement(["1", "2", "tie"], ["1", "2", "tie"], n_resamples=50)
    assert perfect.kappa == 1.0
    assert perfect.s1.estimate == 1.0


def test_no_decided_items_makes_s2_undefined() -> None:
    r = judge_agreement(["tie", "1"], ["1", "tie"], n_resamples=20)
    assert r.s2.n == 0
    assert math.isnan(r.s2.estimate)
    assert r.to_dict()["s2"]["estimate"] is None


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 5), st.integers(1, 5)), min_size=4, max_size=40).filter(
        lambda v: len({a for a, _ in v}) > 1 and len({b for _, b in v}) > 1
    )
)
def test_correlations_match_scipy(pairs: list[tuple[int, int]]) -> None:
    x = [float(a) for a, _ in pairs]
    y = [float(b) for _, b in pairs]
    r = score_correlation(x, y, n_resamples=20)
    assert math.isclose(r.spearman, spearmanr(x, y).statistic, abs_tol=1e-12)
    assert math.isclose(r.kendall, kendalltau(x, y).statistic, abs_tol=1e-12)


def test_gate_passes_and_fails_at_the_threshold() -> None:
    rng = np.random.default_rng(0)
    human = rng.integers(1, 11, 40).astype(float)
    good = np.clip(human + rng.integers(-1, 2, 40), 1, 10)
    bad = rng.integers(1, 11, 40).astype(float)
    r_good = score_correlation(good.tolist(), human.tolist(), n_resamples=300)
    r_bad = score_correlation(bad.tolist(), human.tolist(), n_resamples=300)
    assert r_good.passed
    assert r_good.spearman > 0.9
    assert not r_bad.passed
    assert r_good.spearman_ci.low <= r_good.spearman <= r_good.spearman_ci.high
    strict = score_correlation(good.tolist(), human.tolist(), min_spearman=0.99, n_resamples=50)
    assert not strict.passed
    assert strict.min_spearman == 0.99
    assert "FAIL" in strict.summary()
    assert "PASS" in r_good.summary()


def test_constant_resamples_are_counted_not_fatal() -> None:
    r = score_correlation([1, 2, 3], [1, 2, 4], n_resamples=200, seed=1)
    assert r.spearman == 1.0
    assert r.n_degenerate_resamples > 0  # some resamples draw one item three times


def test_system_agreement_identical_labels_and_reversed() -> None:
    theta = np.array([0.0, 0.4, 0.8, 1.2])
    a, b, o = battles(theta, 2000, seed=3)
    same = system_agreement(a, b, o, o, n_resamples=100)
    assert same.spearman == 1.0
    assert same.kendall == 1.0
    assert same.spearman_ci.low == 1.0
    mirror = {"1": "2", "2": "1", "tie": "tie"}
    flipped = system_agreement(a, b, o, [mirror[x] for x in o], n_resamples=100)
    assert flipped.spearman == -1.0
    assert [m for m, _ in same.judge_ratings] == ["m3", "m2", "m1", "m0"]


def test_errors_name_parameter_and_value() -> None:
    with pytest.raises(InputError, match=r"human\[2\] must be one of '1', '2', 'tie'; got 3"):
        judge_agreement(["1", "2", "tie"], ["1", "2", 3])  # type: ignore[list-item]
    with pytest.raises(InputError, match="human has 2 entries but judge has 3"):
        judge_agreement(["1", "2", "tie"], ["1", "2"])
    with pytest.raises(InputError, match=r"judge_scores\[1\] must be a finite number; got inf"):
        score_correlation([1, float("inf"), 2], [1, 2, 3])
    with pytest.raises(ConfigError, match=r"min_spearman must be a number in \[-1, 1\]; got 7"):
        score_correlation([1, 2, 3], [1, 2, 3], min_spearman=7)
    with pytest.raises(ConfigError, match="seed must be a non-negative integer; got -1"):
        score_correlation([1, 2, 3], [1, 2, 3], seed=-1)
