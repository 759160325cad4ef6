"""Style control when style (almost) explains the verdicts: said, not printed as numbers."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.special import expit

from fairjudge.stats._bradley_terry import bradley_terry, bt_lbfgs
from fairjudge.stats._bt_data import encode_battles, pair_data
from fairjudge.stats._logistic import MAX_LOG_ODDS
from fairjudge.stats._style_control import StyleFeatures, style_controlled_bradley_terry
from tests.stats._bootstrap import bootstrap_thetas
from tests.stats._sim import battles

SEPARATED = (
    "the verdicts are (almost) perfectly separated by length: the judge's preference is "
    "explained by style alone, so ratings at equal style are not identified"
)

# Words per answer, per question (16) and model: examples/rank_answers.jsonl.
WORDS = {
    "alpha": [9, 12, 8, 15, 10, 8, 10, 12, 10, 16, 17, 15, 16, 16, 8, 9],
    "beta": [14, 10, 6, 6, 15, 11, 10, 10, 10, 11, 14, 13, 12, 14, 8, 11],
    "gamma": [11, 10, 12, 8, 13, 13, 4, 6, 6, 10, 5, 13, 7, 9, 11, 11],
    "delta": [4, 9, 6, 9, 2, 5, 4, 4, 2, 3, 5, 6, 7, 7, 6, 8],
}

Battles = tuple[list[str], list[str], list[str], list[str], list[str], list[str]]


def _longer_judge(*, alternate: bool = False, against: tuple[int, ...] = ()) -> Battles:
    """Every pair on every question, judged by a judge that prefers the longer answer.

    Answers of equal length tie. ``alternate`` swaps A and B in every other battle;
    the battles in ``against`` get the opposite verdict.
    """
    a, b, o, text_a, text_b, q = [], [], [], [], [], []
    for k in range(16):
        for x, y in itertools.combinations(WORDS, 2):
            if alternate and len(a) % 2:
                x, y = y, x
            lx, ly = WORDS[x][k], WORDS[y][k]
            verdict = "1" if lx > ly else "2" if lx < ly else "tie"
            if len(a) in against:
                verdict = {"1": "2", "2": "1", "tie": "tie"}[verdict]
            a.append(x)
            b.append(y)
            o.append(verdict)
            text_a.append(" ".join(["detail"] * lx))
            text_b.append(" ".join(["detail"] * ly))
            q.append(f"q{k}")
    return a, b, o, text_a, text_b, q


def test_a_judge_that_always_prefers_the_longer_answer_identifies_no_rating() -> None:
    # Before: "delta -1296.3 [-3775.5, -813.4]" and "beta[length] = +6.680 [+5.364, +12.476]".
    a, b, o, text_a, text_b, q = _longer_judge()
    r = style_controlled_bradley_terry(a, b, o, text_a, text_b, questions=q, n_resamples=200)
    assert r.reason == SEPARATED
    length = r.coefficients[0]
    assert length.name == "length"
    assert not length.estimable
    assert math.isnan(length.estimate)
    assert length.reason == SEPARATED
    assert length.ci.reason == SEPARATED
    assert str(length) == f"style coefficient of length cannot be estimated: {SEPARATED}"
    # The anchor is pinned (its rating and interval are the point 1000); every other
    # rating and interval, every rank and every rank interval carries the reason, and the
    # ratings with none come after the anchor by name: they have no order.
    assert [row.model for row in r.ratings] == ["alpha", "beta", "delta", "gamma"]
    alpha = r.rating("alpha")
    assert (alpha.rating, alpha.ci.low, alpha.ci.high) == (1000.0, 1000.0, 1000.0)
    assert alpha.estimable
    for row in r.ratings:
        assert row.rank is None
        assert row.rank_ci.reason == SEPARATED
        if row.model != "alpha":
            assert row.ci.reason == SEPARATED
            assert row.reason == SEPARATED
            assert not row.estimable
            assert math.isnan(row.rating)
    # Most rounds are near-separated too (finite, but a style term past 15 log-odds).
    assert r.n_degenerate_resamples == 108
    assert [row.n_degenerate_resamples for row in r.ratings] == [0, 107, 108, 107]
    d = r.to_dict()
    assert d["reason"] == SEPARATED
    assert d["coefficients"][0] == {
        "name": "length",
        "estimate": None,
        "ci": {
            "low": None,
            "high": None,
            "level": 0.95,
            "estimable": False,
            "reason": SEPARATED,
        },
        "estimable": False,
        "reason": SEPARATED,
    }
    assert d["ratings"][3]["ci"] == d["coefficients"][0]["ci"]
    assert d["ratings"][0]["rank_ci"]["reason"] == SEPARATED
    assert d["ratings"][0]["rating"] == 1000.0
    for row in d["ratings"][1:]:
        assert (row["rating"], row["rank"], row["estimable"]) == (None, None, False)
        assert row["reason"] == SEPARATED
    summary = r.summary()
    assert f"  beta, delta, gamma: rating and interval cannot be estimated: {SEPARATED}" in summary
    assert f"  style coefficient of length cannot be estimated: {SEPARATED}" in summary
    assert "nan" not in summary
    # No rating, interval or rank is printed but the anchor's pinned point.
    table = summary.splitlines()[2:6]
    assert table[0] == " n/a  alpha   1000.0  [ 1000.0,  1000.0]      n/a       48"
    for line, model in zip(table[1:], ("beta", "delta", "gamma"), strict=True):
        assert line.split() == ["n/a", model, "n/a", "n/a", "n/a", "48"]


@pytest.mark.parametrize("l2", [0.0, 0.1])
def test_separation_does_not_depend_on_which_answer_is_a(l2: float) -> None:
    # With the longer answer first about half the time (as in the example's battles),
    # the length differences barely need centring, and the centred fit itself runs off
    # (its length term reaches 28 log-odds). Consistently oriented (above), centring
    # lets the ties hold it at 14.8, and only the uncentred fit shows the separation.
    # A weak ridge does not hold it within the bound either.
    a, b, o, text_a, text_b, q = _longer_judge(alternate=True)
    r = style_controlled_bradley_terry(a, b, o, text_a, text_b, questions=q, l2=l2, n_resamples=200)
    assert r.reason == SEPARATED
    assert r.coefficients[0].reason == SEPARATED
    assert r.n_degenerate_resamples == {0.0: 200, 0.1: 124}[l2]
    assert all(row.rank_ci.reason == SEPARATED for row in r.ratings)


def test_a_ridge_that_holds_style_within_the_bound_is_reported() -> None:
    # As with an unbeaten model in plain Bradley-Terry, l2 > 0 is a cure the user may
    # choose: here it holds the length term to 10 log-odds, and the penalised fit stands.
    a, b, o, text_a, text_b, q = _longer_judge(alternate=True)
    r = style_controlled_bradley_terry(
        a, b, o, text_a, text_b, questions=q, l2=0.5, n_resamples=200
    )
    assert r.reason is None
    assert r.n_degenerate_resamples == 0
    assert math.isclose(r.coefficients[0].estimate, 4.136747005638567, rel_tol=1e-9)
    assert all(row.ci.estimable for row in r.ratings)


def test_rounds_separated_by_style_count_as_degenerate() -> None:
    # Three verdicts go against length: the full-data fit is identified, but four rounds
    # draw none of those battles and run off. Before, none of them counted, and the
    # intervals were printed: "delta 384.0 [-1358.4, 710.6]", "beta[length] = +2.070
    # [+1.168, +6.377]".
    a, b, o, text_a, text_b, q = _longer_judge(against=(3, 20, 50))
    r = style_controlled_bradley_terry(a, b, o, text_a, text_b, questions=q, n_resamples=200)
    assert r.reason is None
    length = r.coefficients[0]
    assert length.estimable
    assert math.isclose(length.estimate, 2.0699, abs_tol=1e-4)
    assert length.ci.reason == (
        "4 of 200 bootstrap resamples are (almost) perfectly separated by style (a style term "
        "past 15 log-odds) or did not converge, so their fit is where Newton stopped, not an "
        "estimate"
    )
    assert r.n_degenerate_resamples == 4
    reason = (
        "4 of 200 bootstrap resamples have no finite maximum for this rating (a group of "
        "models never lost in them) or are (almost) perfectly separated by style, so it is "
        "where Newton stopped, not an estimate"
    )
    for row in r.ratings:
        if row.model != "alpha":
            assert row.ci.reason == reason
            assert row.n_degenerate_resamples == 4
    assert f"  beta, gamma, delta: interval cannot be estimated: {reason}" in r.summary()


def _mildly_length_biased() -> tuple[
    list[str], list[str], list[str], list[StyleFeatures], list[StyleFeatures]
]:
    rng = np.random.default_rng(7)
    theta = np.array([0.0, 0.4, -0.2, 0.2])
    m = 600
    a = rng.integers(0, 4, m)
    b = (a + rng.integers(1, 4, m)) % 4
    la = rng.integers(50, 400, m)
    lb = rng.integers(50, 400, m)
    rel = (la - lb) / (la + lb)
    p = expit(theta[a] - theta[b] + 0.5 * rel / rel.std())
    out = np.where(rng.random(m) < p, "1", "2").tolist()
    names = ["m0", "m1", "m2", "m3"]
    fa = [StyleFeatures(int(x)) for x in la]
    fb = [StyleFeatures(int(x)) for x in lb]
    return [names[i] for i in a], [names[i] for i in b], out, fa, fb


def test_a_mildly_length_biased_judge_keeps_every_figure_unchanged() -> None:
    a, b, o, fa, fb = _mildly_length_biased()
    r = style_controlled_bradley_terry(a, b, o, fa, fb, controls=["length"], n_resamples=200)
    assert r.reason is None
    assert r.n_degenerate_resamples == 0
    length = r.coefficients[0]
    assert length.estimable
    # The figures from before separation was checked for.
    expected = (0.47473891416993075, 0.30958450556127415, 0.6822284956537034)
    for got, want in zip((length.estimate, length.ci.low, length.ci.high), expected, strict=True):
        assert math.isclose(got, want, rel_tol=1e-9)
    bounds = {
        "m3": (1052.0981321785634, 1004.4990669657154, 1102.8207905655456),
        "m1": (1048.3816603836651, 992.8383698109488, 1102.4222252218806),
        "m0": (1000.0, 1000.0, 1000.0),
        "m2": (990.2761747774148, 934.5927489143833, 1047.6469320187027),
    }
    assert [row.model for row in r.ratings] == list(bounds)
    for row in r.ratings:
        assert row.ci.estimable
        assert row.rank_ci.estimable
        assert row.n_degenerate_resamples == 0
        for got, want in zip((row.rating, row.ci.low, row.ci.high), bounds[row.model], strict=True):
            assert math.isclose(got, want, rel_tol=1e-9)
    assert "cannot be estimated" not in r.summary()


def test_plain_bradley_terry_flags_every_round_past_the_bound() -> None:
    # Plain Bradley-Terry has no such blind spot: Zermelo's condition (checked on each
    # round's battle graph) is exact, so on separable-but-finite data every round whose
    # ratings ran off is flagged, and the others stay well inside the bound.
    a, b, o = battles(np.array([0.0, 3.0, -3.0, 6.0]), 80, seed=0)
    models, ia, ib, codes = encode_battles(a, b, o)
    data = pair_data(len(models), ia, ib, codes)
    start = bt_lbfgs(data.first, data.second, data.counts, len(models), 0.0)
    draws = bootstrap_thetas(
        data,
        cluster_cells=None,
        ties="half",
        l2=0.0,
        start=start,
        anchor=0,
        n_resamples=500,
        rng=np.random.default_rng(0),
    )
    gap = np.abs(draws.theta - draws.theta[:, :1])  # log-odds from the anchor; NaN: unidentified
    beyond = gap > MAX_LOG_ODDS
    assert draws.n_degenerate == 243
    assert beyond.any()
    assert not (beyond & ~draws.diverged).any()
    assert np.nanmax(np.where(draws.diverged, np.nan, gap)) < 0.8 * MAX_LOG_ODDS
    # And its leaderboard is the one it always was.
    r = bradley_terry(a, b, o, n_resamples=500, seed=0)
    assert r.n_degenerate_resamples == int(draws.n_degenerate)


def test_the_fallback_ridge_does_not_hide_separation_by_style() -> None:
    # Issue 21: `rank --pairing baseline --style-control` on the example. Every model
    # meets alpha only, and delta, always the shorter, never beats or ties it: without a
    # ridge there is no finite maximum, so the fit falls back to l2 = 0.1. That ridge
    # holds the length term inside the bound (as `chosen` shows); but the user chose no
    # ridge, so separation is judged without it, and the verdicts, which length alone
    # explains, are still reported as separated.
    a, b, o, text_a, text_b, q = [], [], [], [], [], []
    for k in range(16):
        for other in ("beta", "gamma", "delta"):
            x, y = ("alpha", other) if len(a) % 2 else (other, "alpha")  # as rank's coin flip
            lx, ly = WORDS[x][k], WORDS[y][k]
            a.append(x)
            b.append(y)
            o.append("1" if lx > ly else "2" if lx < ly else "tie")
            text_a.append(" ".join(["detail"] * lx))
            text_b.append(" ".join(["detail"] * ly))
            q.append(f"q{k}")
    r = style_controlled_bradley_terry(
        a, b, o, text_a, text_b, questions=q, fallback_l2=0.1, n_resamples=50
    )
    assert (r.l2, r.l2_fallback, r.held_by_ridge) == (0.1, True, ("delta",))
    assert r.reason == SEPARATED
    assert r.coefficients[0].reason == SEPARATED
    # A ridge the user asks for is a cure they chose, as before.
    chosen = style_controlled_bradley_terry(
        a, b, o, text_a, text_b, questions=q, l2=0.1, n_resamples=50
    )
    assert chosen.reason is None
    assert not chosen.l2_fallback
    assert chosen.held_by_ridge == ("delta",)
