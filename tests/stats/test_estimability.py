"""A figure that cannot be estimated says so, with the reason, instead of printing numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairjudge._errors import ConfigError, InputError
from fairjudge.cli._flags import to_flags
from fairjudge.stats._agreement import judge_agreement
from fairjudge.stats._bradley_terry import bradley_terry
from fairjudge.stats._intervals import ConfidenceInterval, bootstrap_mean
from fairjudge.stats._logistic import length_controlled_win_rate
from fairjudge.stats._position_bias import position_bias
from fairjudge.stats._rank_stats import score_correlation
from fairjudge.stats._resample import unstable_reason
from fairjudge.stats._style_control import StyleFeatures, style_controlled_bradley_terry
from tests.stats._sim import battles

ONE_QUESTION = "one question: the bootstrap cannot vary"


def test_a_not_estimable_interval_prints_and_serialises_its_reason() -> None:
    ci = ConfidenceInterval.not_estimable("too few items", 0.9)
    assert not ci.estimable
    assert math.isnan(ci.low)
    assert math.isnan(ci.high)
    assert 0.5 not in ci
    assert str(ci) == "cannot be estimated: too few items"
    assert f"{ci:.1f}" == "cannot be estimated: too few items"
    assert ci.to_dict() == {
        "low": None,
        "high": None,
        "level": 0.9,
        "estimable": False,
        "reason": "too few items",
    }
    ok = ConfidenceInterval(0.25, 0.5)
    assert ok.estimable
    assert str(ok) == "[0.250, 0.500]"
    assert f"{ok:+.1f}" == "[+0.2, +0.5]"
    assert ok.to_dict() == {
        "low": 0.25,
        "high": 0.5,
        "level": 0.95,
        "estimable": True,
        "reason": None,
    }


# (a) Length control on a small set: most resamples separate -------------------------------

SMALL_OUTCOMES = ["1"] * 11 + ["2"]
SMALL_LENGTHS_1 = [120, 300, 80, 200, 150, 90, 400, 260, 100, 180, 220, 140]
SMALL_LENGTHS_2 = [100, 310, 60, 190, 170, 95, 350, 240, 130, 160, 200, 150]


def test_length_control_on_a_small_set_refuses_the_interval() -> None:
    # Before: "0.930 [0.767, 1.000]", the upper end set by resamples whose fit ran to 1.
    r = length_controlled_win_rate(
        SMALL_OUTCOMES, SMALL_LENGTHS_1, SMALL_LENGTHS_2, n_resamples=200, seed=0
    )
    assert math.isclose(r.estimate, 0.9302577360212392, rel_tol=1e-9)  # the fit itself exists
    assert r.n_degenerate_resamples == 89
    reason = (
        "89 of 200 bootstrap resamples are separated (verdicts all one way, or explained by "
        "length alone), so the fit has no finite maximum in them"
    )
    assert r.ci.reason == reason
    assert r.length_coefficient_ci.reason == reason
    assert r.raw_ci.estimable  # a mean of verdicts is always defined
    assert r.to_dict()["ci"] == {
        "low": None,
        "high": None,
        "level": 0.95,
        "estimable": False,
        "reason": reason,
    }
    assert f"95% CI cannot be estimated: {reason})" in r.summary()
    assert "[0.0%, 100.0%]" not in r.summary()


def test_length_control_interval_spanning_all_of_zero_to_one_is_refused() -> None:
    # Only 1 of 200 resamples separates, yet the interval runs from (nearly) 0 to 1.
    r = length_controlled_win_rate(
        ["tie", "tie", "2", "tie", "tie", "1", "tie"],
        [466, 40, 98, 273, 59, 426, 50],
        [310, 194, 22, 418, 211, 400, 203],
        n_resamples=200,
        seed=0,
    )
    assert r.n_degenerate_resamples == 1
    assert r.ci.reason == (
        "the interval spans essentially all of [0, 1]: too few items to bound it"
    )
    assert r.length_coefficient_ci.estimable
    assert r.raw_ci.estimable


def test_length_control_with_a_model_that_won_everything_is_refused() -> None:
    with pytest.raises(InputError, match="system 1 won every item"):
        length_controlled_win_rate(
            ["1"] * 12, SMALL_LENGTHS_1, SMALL_LENGTHS_2, n_resamples=20, seed=0
        )


def test_length_control_on_enough_items_keeps_its_interval() -> None:
    rng = np.random.default_rng(4)
    out = rng.choice(["1", "2", "tie"], 400, p=[0.5, 0.4, 0.1]).tolist()
    l1 = rng.normal(500, 100, 400).clip(10).tolist()
    l2 = rng.normal(500, 100, 400).clip(10).tolist()
    r = length_controlled_win_rate(out, l1, l2, n_resamples=200, seed=0)
    assert r.n_degenerate_resamples == 0
    assert r.ci.estimable
    assert r.ci.low < r.estimate < r.ci.high


# (b) Style control: a feature that never varies --------------------------------------------


def _style_data() -> tuple[
    list[str], list[str], list[str], list[StyleFeatures], list[StyleFeatures]
]:
    # No answer has headers or bold: those two features are constant (zero) throughout.
    fa = [StyleFeatures(100, 0, 2, 0), StyleFeatures(50, 0, 1, 0), StyleFeatures(80, 0, 0, 0)]
    fb = [StyleFeatures(60, 0, 1, 0), StyleFeatures(90, 0, 0, 0), StyleFeatures(70, 0, 2, 0)]
    a = ["x", "y", "z", "x"] * 5
    b = ["y", "z", "x", "z"] * 5
    o = ["1", "2", "tie", "1", "2", "1", "1", "tie", "2", "1"] * 2
    return a, b, o, (fa * 7)[:20], (fb * 7)[:20]


def test_a_constant_style_feature_is_reported_not_estimable_and_left_out() -> None:
    a, b, o, fa, fb = _style_data()
    r = style_controlled_bradley_terry(a, b, o, fa, fb, l2=0.1, n_resamples=50, seed=1)
    coef = {c.name: c for c in r.coefficients}
    for name in ("headers", "bold"):
        c = coef[name]
        assert not c.estimable
        assert c.reason == "constant in the data"
        assert math.isnan(c.estimate)
        assert c.ci.reason == "constant in the data"
        assert str(c) == f"style coefficient of {name} cannot be estimated: constant in the data"
        assert (
            f"  style coefficient of {name} cannot be estimated: constant in the data"
            in r.summary()
        )
    assert r.to_dict()["coefficients"][1] == {
        "name": "headers",
        "estimate": None,
        "ci": {
            "low": None,
            "high": None,
            "level": 0.95,
            "estimable": False,
            "reason": "constant in the data",
        },
        "estimable": False,
        "reason": "constant in the data",
    }
    assert "nan" not in r.summary()
    # Left out of the fit: the other coefficients and the ratings are as without it.
    without = style_controlled_bradley_terry(
        a, b, o, fa, fb, controls=["length", "lists"], l2=0.1, n_resamples=50, seed=1
    )
    assert coef["length"] == without.coefficients[0]
    assert coef["lists"] == without.coefficients[1]
    assert r.ratings == without.ratings


# (c) Bradley-Terry: resamples where the maximum does not exist ----------------------------

SEPARABLE = (
    ["x", "x", "y", "y", "z", "x"],
    ["y", "z", "z", "x", "x", "z"],
    ["1", "1", "1", "1", "2", "2"],
)


def test_bradley_terry_refuses_intervals_resting_on_separated_rounds() -> None:
    a, b, o = SEPARABLE
    r = bradley_terry(a, b, o, n_resamples=200, seed=0)
    boot = r.bootstrap_ratings
    # What used to be printed: percentile bounds of ratings that ran off to infinity.
    low, high = np.nanpercentile(boot[:, r.models.index("y")], [2.5, 97.5])
    assert low < -2000
    assert high > 5000
    fix = "pass l2 > 0 or add battles"  # the CLI adds "(--l2 on the command line)"
    y, z, x = r.rating("y"), r.rating("z"), r.rating("x")
    assert y.ci.reason == (
        "96 of 200 bootstrap resamples have no finite maximum for this rating (a group of "
        f"models never lost in them); {fix}"
    )
    assert y.rank_ci.reason == y.ci.reason
    assert z.ci.reason is not None
    assert z.ci.reason.startswith("74 of 200 bootstrap resamples have no finite maximum")
    assert x.ci.estimable  # the anchor is pinned: its interval is the point 1000
    assert (x.ci.low, x.ci.high) == (1000.0, 1000.0)
    assert r.n_degenerate_resamples == 139
    assert y.to_dict()["ci"]["reason"] == y.ci.reason
    assert y.to_dict()["ci"]["low"] is None
    summary = r.summary()
    assert f"  y: interval cannot be estimated: {y.ci.reason}" in summary
    assert "nan" not in summary
    # With a penalty every maximum is finite, and every interval estimable.
    pen = bradley_terry(a, b, o, l2=0.5, n_resamples=200, seed=0)
    for row in pen.ratings:
        assert row.ci.estimable
        assert row.rank_ci.estimable
        assert row.ci.low <= row.rating <= row.ci.high
        assert row.ci.high - row.ci.low < 1000


def test_a_few_separated_rounds_leave_the_interval_as_it_was() -> None:
    # One degenerate round in 300 fills less than half a tail: the bounds are proper fits.
    a, b, o = battles(np.array([0.0, 0.5, -0.3, 1.0]), 60, seed=3)
    r = bradley_terry(a, b, o, n_resamples=300, seed=2)
    assert r.n_degenerate_resamples == 1
    for row in r.ratings:
        assert row.ci.estimable
        assert row.ci.low <= row.rating <= row.ci.high
    assert math.isclose(r.rating("m3").ci.high, 1573.7257882206118, rel_tol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    n_bad=st.integers(0, 1000),
    n_resamples=st.integers(1, 1000),
    level=st.floats(0.5, 0.99),
)
def test_unstable_reason_refuses_beyond_half_a_tail(
    n_bad: int, n_resamples: int, level: float
) -> None:
    reason = unstable_reason(n_bad, n_resamples, level, "failed")
    assert (reason is None) == (n_bad <= (1 - level) / 4 * n_resamples)
    if reason is not None:
        assert reason == f"{n_bad} of {n_resamples} bootstrap resamples failed"


# Task: an unbeaten model -------------------------------------------------------------------

UNBEATEN = (
    ["top", "top", "mid", "low", "mid", "low"],
    ["mid", "low", "low", "mid", "top", "top"],
    ["1", "1", "1", "2", "2", "2"],
)


def test_an_unbeaten_model_needs_l2_and_the_error_names_the_flag() -> None:
    a, b, o = UNBEATEN
    with pytest.raises(InputError, match=r"toward each other \(l2=0\.1\), or add") as info:
        bradley_terry(a, b, o)
    assert "--l2 0.1 on the command line, l2=0.1 in Python" in to_flags(
        str(info.value), info.value.params
    )
    r = bradley_terry(a, b, o, l2=0.1, n_resamples=100, seed=0)
    assert [row.model for row in r.ratings] == ["top", "mid", "low"]
    for row in r.ratings:
        assert math.isfinite(row.rating)
        assert row.rank_ci.estimable  # the battles do order them
    assert np.isfinite(r.win_rate_matrix).all()
    # Issue 21: only the ridge keeps top and mid finite relative to the anchor (low never
    # beat or tied them): their intervals would measure the ridge, so they are refused.
    assert r.held_by_ridge == ("mid", "top")
    assert not r.l2_fallback
    assert r.rating("top").ci.reason == (
        "no finite maximum-likelihood rating: the group of 'low' never beat or tied it "
        "(directly or through other models), so without a ridge it runs off to plus infinity; "
        "the rating shown is where the ridge (l2=0.1) holds it, not an estimate from the "
        "battles, and an interval would measure the ridge"
    )
    assert (r.rating("low").ci.low, r.rating("low").ci.high) == (1000.0, 1000.0)


def test_an_unbeaten_model_falls_back_to_a_ridge_that_is_said() -> None:
    a, b, o = UNBEATEN
    r = bradley_terry(a, b, o, anchor="mid", fallback_l2=0.1, n_resamples=100, seed=0)
    asked = bradley_terry(a, b, o, anchor="mid", l2=0.1, n_resamples=100, seed=0)
    assert (r.l2, r.l2_fallback, asked.l2_fallback) == (0.1, True, False)
    assert [row.rating for row in r.ratings] == [row.rating for row in asked.ratings]
    assert r.held_by_ridge == ("low", "top")
    assert "runs off to minus infinity" in (r.rating("low").ci.reason or "")
    assert "runs off to plus infinity" in (r.rating("top").ci.reason or "")
    assert r.rating("mid").ci.estimable
    assert r.to_dict()["held_by_ridge"] == ["low", "top"]
    assert r.to_dict()["l2_fallback"] is True
    assert "fitted with the fallback ridge l2=0.1: without a ridge the ratings of low, top" in (
        r.summary()
    )
    # Battles with a finite maximum never fall back, and nothing is held.
    fine = bradley_terry(*battles(np.array([0.0, 0.5, -0.3]), 60, seed=3), fallback_l2=0.1)
    assert (fine.l2, fine.l2_fallback, fine.held_by_ridge) == (0.0, False, ())
    with pytest.raises(ConfigError, match="fallback_l2 must be > 0"):
        bradley_terry(a, b, o, fallback_l2=0.0)


# (d) One question: the cluster bootstrap cannot vary ---------------------------------------


def test_two_items_of_one_question_give_no_interval() -> None:
    # Before: "0.750 [0.750, 0.750]", a zero-width interval from a bootstrap that cannot vary.
    r = length_controlled_win_rate(
        ["1", "tie"], [10, 10], [5, 5], questions=["q", "q"], n_resamples=50
    )
    assert r.estimate == 0.75
    for ci in (r.ci, r.raw_ci, r.length_coefficient_ci):
        assert ci.reason == ONE_QUESTION
    assert r.to_dict()["raw_ci"]["reason"] == ONE_QUESTION
    assert f"95% CI cannot be estimated: {ONE_QUESTION}" in r.summary()
    assert bootstrap_mean([1.0, 0.5], ["q", "q"]).reason == ONE_QUESTION
    assert bootstrap_mean([1.0]).reason == "one item: the bootstrap cannot vary"
    assert bootstrap_mean([1.0, 0.5], ["q", "r"]).estimable


def test_every_figure_of_a_single_question_is_not_estimable() -> None:
    q = ["only"] * 6
    agreement = judge_agreement(["1", "2", "tie"] * 2, ["1", "1", "tie"] * 2, questions=q)
    assert {agreement.s1.ci.reason, agreement.kappa_ci.reason} == {ONE_QUESTION}
    assert f"S1 (with ties)   0.667 cannot be estimated: {ONE_QUESTION} (4/6)" in (
        agreement.summary()
    )
    bias = position_bias(["A", "B", "A"] * 2, ["B", "B", "A"] * 2, questions=q)
    assert bias.consistency.ci.reason == ONE_QUESTION
    assert bias.preference_fairness_ci.reason == ONE_QUESTION
    corr = score_correlation([1, 2, 3, 4, 5, 6], [1, 3, 2, 4, 6, 5], questions=q)
    assert corr.spearman_ci.reason == ONE_QUESTION
    assert not corr.passed_at_lower_bound
    a, b, o = UNBEATEN
    board = bradley_terry(a, b, o, questions=q, l2=0.1, n_resamples=20)
    assert {row.ci.reason for row in board.ratings} == {ONE_QUESTION}


@settings(max_examples=30, deadline=None)
@given(
    # All wins (or all losses) and no tie has no finite fit at all: that is refused.
    st.lists(st.sampled_from(["1", "2", "tie"]), min_size=2, max_size=30).filter(
        lambda v: len(set(v)) > 1 or v[0] == "tie"
    ),
    st.sampled_from(["q", 0, ("conversation", 7)]),
)
def test_a_single_question_never_yields_an_interval(outcomes: list[str], label: object) -> None:
    n = len(outcomes)
    r = length_controlled_win_rate(
        outcomes, [100.0] * n, [80.0] * n, questions=[label] * n, n_resamples=20
    )
    assert r.raw_ci.reason == ONE_QUESTION
    assert r.ci.reason == ONE_QUESTION
    # With two questions the bootstrap varies, and that reason never appears.
    two = [i % 2 for i in range(n)]
    r2 = length_controlled_win_rate(
        outcomes, [100.0] * n, [80.0] * n, questions=two, n_resamples=20
    )
    assert r2.raw_ci.reason != ONE_QUESTION


def test_a_misspelt_bootstrap_option_is_an_error_not_ignored() -> None:
    a, b, o = UNBEATEN
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_resample'"):
        bradley_terry(a, b, o, l2=0.1, n_resample=10)  # type: ignore[call-arg]


def test_with_every_style_feature_constant_style_control_is_plain_bradley_terry() -> None:
    a, b, o = battles(np.array([0.0, 0.4, -0.2]), 300, seed=8)
    same = [StyleFeatures(10)] * len(a)
    styled = style_controlled_bradley_terry(a, b, o, same, same, n_resamples=20, seed=0)
    assert all(c.reason == "constant in the data" for c in styled.coefficients)
    plain = bradley_terry(a, b, o, n_resamples=20, seed=0)
    for row in plain.ratings:
        assert math.isclose(styled.rating(row.model).rating, row.rating, abs_tol=1e-6)


def test_which_way_a_rating_runs_off_is_said() -> None:
    # a beats y; z beats y; z never meets a. Anchored on a: y never beat or tied a's
    # group (minus infinity); z is ordered against a only through y, whose own rating
    # runs off, so it is bounded neither way.
    r = bradley_terry(["a", "z"], ["y", "y"], ["1", "1"], fallback_l2=0.1, n_resamples=20)
    assert r.held_by_ridge == ("y", "z")
    assert "runs off to minus infinity" in (r.rating("y").ci.reason or "")
    assert "bounded neither way" in (r.rating("z").ci.reason or "")
    assert r.rating("a").ci.estimable
