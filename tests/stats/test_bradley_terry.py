from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._bradley_terry import bradley_terry
from fairjudge.stats._bt_bootstrap import multinomial_counts
from fairjudge.stats._bt_data import online_elo
from fairjudge.stats._bt_solvers import bt_newton
from tests.stats._sim import ELO, battles

THETA = np.array([0.0, 0.5, -0.3, 1.0, 0.2])


def test_recovers_known_strengths() -> None:
    a, b, o = battles(THETA, 20_000, seed=1)
    r = bradley_terry(a, b, o, anchor="m0", n_resamples=200, seed=0)
    for i, truth in enumerate(1000 + ELO * (THETA - THETA[0])):
        row = r.rating(f"m{i}")
        assert abs(row.rating - truth) < 20  # about 3 standard errors at 20,000 battles
        assert row.ci.low <= row.rating <= row.ci.high
    assert [row.model for row in r.ratings] == ["m3", "m1", "m4", "m0", "m2"]
    assert r.rating("m0").rating == 1000.0
    assert r.rating("m0").ci.low == r.rating("m0").ci.high == 1000.0  # the anchor is pinned


def test_davidson_recovers_tie_strength() -> None:
    rng = np.random.default_rng(3)
    theta, nu = np.array([0.0, 0.6, -0.4]), 0.5
    a = rng.integers(0, 3, 30_000)
    b = (a + rng.integers(1, 3, 30_000)) % 3
    d = theta[a] - theta[b]
    z = np.exp(d / 2) + np.exp(-d / 2) + nu
    u = rng.random(a.size)
    p1, pt = np.exp(d / 2) / z, nu / z
    out = np.where(u < p1, "1", np.where(u < p1 + pt, "tie", "2")).tolist()
    names = ["x", "y", "z"]
    r = bradley_terry(
        [names[i] for i in a], [names[i] for i in b], out, ties="davidson", n_resamples=100
    )
    assert r.tie_strength is not None
    assert r.tie_strength_ci is not None
    assert abs(r.tie_strength - nu) < 0.03
    assert r.tie_strength_ci.low < nu < r.tie_strength_ci.high
    assert abs(r.rating("y").rating - 1000 - ELO * 0.6) < 15
    # Davidson's expected score still makes the matrix antisymmetric around 1/2.
    w = r.win_rate_matrix
    np.testing.assert_allclose(w + w.T, 1.0, atol=1e-12)


def test_same_seed_same_result_and_seed_matters() -> None:
    a, b, o = battles(THETA, 600, seed=5)
    q = [i // 3 for i in range(600)]
    r1 = bradley_terry(a, b, o, questions=q, n_resamples=100, seed=7)
    r2 = bradley_terry(a, b, o, questions=q, n_resamples=100, seed=7)
    r3 = bradley_terry(a, b, o, questions=q, n_resamples=100, seed=8)
    assert r1.to_dict(include_bootstrap=True) == r2.to_dict(include_bootstrap=True)
    assert r1 == r2
    assert r1.seed == 7
    assert r1.bootstrap == "questions"
    assert r1.n_questions == 200
    assert r1.rating("m1").ci != r3.rating("m1").ci
    assert r1.rating("m1").rating == r3.rating("m1").rating


def test_bootstrap_coverage_near_nominal() -> None:
    """On 200 seeded datasets the 95% interval covers the true rating 90-99% of the time."""
    truth = 1000 + ELO * (THETA[1] - THETA[0])
    covered = 0
    for k in range(200):
        a, b, o = battles(THETA[:4], 200, seed=1000 + k)
        ci = bradley_terry(a, b, o, anchor="m0", n_resamples=200, seed=k).rating("m1").ci
        covered += ci.low <= truth <= ci.high
    assert 0.90 <= covered / 200 <= 0.99


def test_clustered_bootstrap_is_wider_when_questions_matter() -> None:
    # Each question has its own strong taste for each model, shared by all battles on
    # it: those battles are correlated, and resampling them one by one overstates
    # the information.
    rng = np.random.default_rng(11)
    q = np.repeat(np.arange(100), 30)
    taste = rng.normal(0.0, 2.0, (100, 3))[q]
    ia = rng.integers(0, 3, q.size)
    ib = (ia + rng.integers(1, 3, q.size)) % 3
    rows = np.arange(q.size)
    p = expit(THETA[ia] - THETA[ib] + taste[rows, ia] - taste[rows, ib])
    out = np.where(rng.random(q.size) < p, "1", "2").tolist()
    a, b = [f"m{i}" for i in ia], [f"m{i}" for i in ib]
    plain = bradley_terry(a, b, out, n_resamples=300, seed=0)
    clustered = bradley_terry(a, b, out, questions=q.tolist(), n_resamples=300, seed=0)
    for m in ("m1", "m2"):
        w_plain = plain.rating(m).ci.high - plain.rating(m).ci.low
        w_clustered = clustered.rating(m).ci.high - clustered.rating(m).ci.low
        assert w_clustered > 1.5 * w_plain


def _complete_design(k: int, seed: int) -> tuple[list[str], list[str], list[str]]:
    """Every pair several times, with one tie each: identified, with a finite maximum."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, k)
    a_out: list[str] = []
    b_out: list[str] = []
    o_out: list[str] = []
    for i in range(k):
        for j in range(i + 1, k):
            reps = int(rng.integers(3, 8))
            for r in range(reps):
                first, second = (i, j) if rng.random() < 0.5 else (j, i)
                p = expit(theta[first] - theta[second])
                o = "tie" if r == 0 else ("1" if rng.random() < p else "2")
                a_out.append(f"m{first}")
                b_out.append(f"m{second}")
                o_out.append(o)
    return a_out, b_out, o_out


@settings(max_examples=25, deadline=None)
@given(
    k=st.integers(3, 6),
    seed=st.integers(0, 10_000),
    perm_seed=st.integers(0, 10_000),
)
def test_relabelling_models_leaves_ratings_unchanged(k: int, seed: int, perm_seed: int) -> None:
    a, b, o = _complete_design(k, seed)
    perm = np.random.default_rng(perm_seed).permutation(k)
    # New names sort in a different order, so the internal indices change too.
    rename = {f"m{i}": f"z{perm[i]:02d}-{i}" for i in range(k)}
    r1 = bradley_terry(a, b, o, anchor="m0", n_resamples=1)
    r2 = bradley_terry(
        [rename[x] for x in a], [rename[x] for x in b], o, anchor=rename["m0"], n_resamples=1
    )
    for i in range(k):
        assert math.isclose(
            r1.rating(f"m{i}").rating, r2.rating(rename[f"m{i}"]).rating, abs_tol=1e-6
        )
    # Swapping sides and mirroring the outcome, or shuffling the battles, changes nothing.
    mirror = {"1": "2", "2": "1", "tie": "tie"}
    r3 = bradley_terry(b, a, [mirror[x] for x in o], anchor="m0", n_resamples=1)
    order = np.random.default_rng(perm_seed).permutation(len(a))
    r4 = bradley_terry(
        [a[i] for i in order],
        [b[i] for i in order],
        [o[i] for i in order],
        anchor="m0",
        n_resamples=1,
    )
    for i in range(k):
        for other in (r3, r4):
            assert math.isclose(
                r1.rating(f"m{i}").rating, other.rating(f"m{i}").rating, abs_tol=1e-6
            )


def test_win_rate_matrix_and_ranks() -> None:
    a, b, o = battles(THETA, 3000, seed=9)
    r = bradley_terry(a, b, o, n_resamples=100)
    w = r.win_rate_matrix
    np.testing.assert_allclose(np.diag(w), 0.5)
    np.testing.assert_allclose(w + w.T, 1.0)
    gap = (r.rating("m3").rating - r.rating("m2").rating) / 400
    assert math.isclose(r.win_rate("m3", "m2"), 1 / (1 + 10**-gap), rel_tol=1e-9)
    for row in r.ratings:
        assert row.rank_ci.low <= row.rank <= row.rank_ci.high
    assert [row.rank for row in r.ratings] == [1, 2, 3, 4, 5]
    assert r.rating("m3").wins + r.rating("m3").losses + r.rating("m3").ties == (
        r.rating("m3").n_battles
    )


def test_batched_newton_matches_one_at_a_time_and_is_stationary() -> None:
    a, b, o = battles(THETA, 2000, seed=4)
    from fairjudge.stats._bt_data import encode_battles, pair_data

    models, ia, ib, codes = encode_battles(a, b, o)
    data = pair_data(len(models), ia, ib, codes)
    rounds = multinomial_counts(data.counts.reshape(-1), 6, np.random.default_rng(0))
    assert (rounds.sum(axis=1) == 2000).all()
    counts = rounds.reshape(6, -1, 3)
    together, ok = bt_newton(data.first, data.second, counts, np.zeros(5), l2=0.0)
    assert ok.all()
    for k in range(6):
        alone, _ = bt_newton(data.first, data.second, counts[k : k + 1], np.zeros(5), l2=0.0)
        np.testing.assert_allclose(together[k] - together[k, 0], alone[0] - alone[0, 0], atol=1e-9)
        s = counts[k, :, 0] + 0.5 * counts[k, :, 2]
        resid = s - counts[k].sum(axis=1) * expit(
            together[k, data.first] - together[k, data.second]
        )
        grad = np.bincount(data.first, resid, 5) - np.bincount(data.second, resid, 5)
        assert np.abs(grad).max() < 1e-6


def test_multinomial_counts_have_multinomial_moments() -> None:
    cells = np.array([5.0, 20.0, 75.0])
    draws = multinomial_counts(cells, 20_000, np.random.default_rng(1))
    assert (draws.sum(axis=1) == 100).all()
    np.testing.assert_allclose(draws.mean(axis=0), cells, rtol=0.02)
    p = cells / 100
    np.testing.assert_allclose(draws.var(axis=0), 100 * p * (1 - p), rtol=0.06)
    # Multinomial counts are negatively correlated: cov = -N p_i p_j.
    cov = np.cov(draws[:, 0], draws[:, 2])[0, 1]
    assert abs(cov - (-100 * p[0] * p[2])) < 0.4


def test_no_finite_maximum_is_an_error_unless_penalised() -> None:
    a = ["x", "x", "y", "y"]
    b = ["y", "z", "z", "x"]
    o = ["1", "1", "tie", "2"]  # x never loses
    with pytest.raises(InputError, match="no finite maximum-likelihood") as exc:
        bradley_terry(a, b, o, n_resamples=10)
    assert "l2" in str(exc.value)
    r = bradley_terry(a, b, o, l2=0.5, n_resamples=10)
    assert r.ratings[0].model == "x"
    assert math.isfinite(r.ratings[0].rating)


def test_unconnected_models_are_an_error() -> None:
    with pytest.raises(InputError, match=r"models \['c', 'd'\] are never compared"):
        bradley_terry(["a", "b", "c", "d"], ["b", "a", "d", "c"], ["1", "2", "1", "2"])


def test_option_errors_name_the_option() -> None:
    a, b, o = battles(THETA, 100, seed=0)
    with pytest.raises(ConfigError, match="anchor 'nope' is not one of the models"):
        bradley_terry(a, b, o, anchor="nope")
    with pytest.raises(ConfigError, match="ties must be 'half' or 'davidson'; got 'rao'"):
        bradley_terry(a, b, o, ties="rao")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="l2 must be a finite number >= 0; got -1"):
        bradley_terry(a, b, o, l2=-1)
    with pytest.raises(InputError, match=r"model_a\[2\] and model_b\[2\] are both 'm1'"):
        bradley_terry(["m0", "m1", "m1"], ["m1", "m0", "m1"], ["1", "2", "1"])
    with pytest.raises(InputError, match="needs at least one 'tie'"):
        bradley_terry(["x", "y"], ["y", "x"], ["1", "1"], ties="davidson")


def test_online_elo_by_hand_and_order_dependence() -> None:
    r = online_elo(["a", "a"], ["b", "b"], ["1", "tie"], k=32)
    # First battle: equal ratings, expected 0.5, a wins: +16 / -16.
    # Second: a at 1016 vs 984, expected 1 / (1 + 10^(-32/400)), score 0.5.
    e = 1 / (1 + 10 ** (-32 / 400))
    assert math.isclose(r.rating("a"), 1016 + 32 * (0.5 - e))
    assert math.isclose(r.rating("b"), 984 - 32 * (0.5 - e))
    reordered = online_elo(["a", "a"], ["b", "b"], ["tie", "1"], k=32)
    assert reordered.rating("a") != r.rating("a")  # same battles, other order
    assert r.to_dict()["order_dependent"] is True
