"""Panel statistics: Fleiss' kappa, Krippendorff's alpha, agreement, effective judges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge import InputError
from fairjudge.stats import (
    agreement_matrix,
    effective_judges,
    fleiss_kappa,
    krippendorff_alpha,
)

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders, 12 units.
N = None
RELIABILITY_DATA = list(
    zip(
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
        strict=True,
    )
)


def test_fleiss_kappa_matches_the_hand_computation() -> None:
    ratings = [["1", "1", "1"], ["2", "2", "2"], ["1", "2", "tie"], ["tie", "tie", "1"]]
    result = fleiss_kappa(ratings, n_resamples=100)
    # P_i = 1, 1, 0, 1/3 -> P̄ = 7/12; p = 5/12, 4/12, 3/12 -> P_e = 50/144.
    assert result.observed == pytest.approx(7 / 12)
    assert result.expected == pytest.approx(50 / 144)
    assert result.kappa == pytest.approx((7 / 12 - 50 / 144) / (1 - 50 / 144))
    assert (result.n_items, result.n_raters, result.seed) == (4, 3, 0)


def test_fleiss_kappa_is_one_for_identical_raters_and_its_ci_is_seeded() -> None:
    ratings = [[lab] * 3 for lab in ["1", "2", "tie", "1", "2", "1"]]
    a = fleiss_kappa(ratings, n_resamples=200, seed=7)
    assert a.kappa == 1.0
    # Full agreement: every resample gives 1, so not [1, 1] but the bound from none of
    # the 6 items off full agreement (tests/stats/test_unvaried_intervals.py).
    u = 3.8414588206941236 / (6 + 3.8414588206941236)  # Wilson's upper bound of 0 of 6
    p_e = (3 / 6) ** 2 + (2 / 6) ** 2 + (1 / 6) ** 2
    assert (a.ci.low, a.ci.high) == pytest.approx((1.0 - u / (1.0 - p_e), 1.0), abs=1e-9)
    assert fleiss_kappa(ratings, n_resamples=200, seed=7) == a


def test_fleiss_kappa_clusters_by_question() -> None:
    ratings = [["1", "1"], ["1", "2"], ["2", "2"], ["tie", "1"]]
    one_question = fleiss_kappa(ratings, questions=["q"] * 4, n_resamples=50)
    assert not one_question.ci.estimable
    assert one_question.n_questions == 1


def test_fleiss_kappa_rejects_ragged_rows() -> None:
    with pytest.raises(InputError, match="same number"):
        fleiss_kappa([["1", "2"], ["1"]])


@pytest.mark.parametrize(
    ("metric", "expected"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_krippendorff_alpha_reproduces_the_published_example(metric: str, expected: float) -> None:
    assert krippendorff_alpha(RELIABILITY_DATA, metric) == pytest.approx(expected, abs=5e-4)  # type: ignore[arg-type]


def test_agreement_matrix() -> None:
    m = agreement_matrix([["1", "1", "2"], ["2", "2", "2"], ["tie", "1", "tie"]])
    assert m == [[1.0, 2 / 3, 2 / 3], [2 / 3, 1.0, 1 / 3], [2 / 3, 1 / 3, 1.0]]


def test_three_copies_of_one_judge_are_one_judge() -> None:
    column = [1.0, 0.0, 0.5, 1.0, 0.0, 0.0]
    eff = effective_judges([[v, v, v] for v in column])
    assert eff.estimate == pytest.approx(1.0)
    assert eff.eigenvalues[0] == pytest.approx(3.0)


def test_independent_judges_are_nearly_as_many_as_they_are() -> None:
    rng = np.random.default_rng(1)
    eff = effective_judges((rng.integers(0, 3, size=(2000, 3)) / 2).tolist())
    assert 2.95 < eff.estimate <= 3.0


def test_an_opposite_judge_adds_nothing() -> None:
    column = [1.0, 0.0, 0.5, 1.0, 0.0]
    assert effective_judges([[v, 1 - v] for v in column]).estimate == pytest.approx(1.0)


def test_constant_members_count_as_one_when_identical() -> None:
    assert effective_judges([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]).estimate == pytest.approx(1.0)
    assert effective_judges([[0.5, 1.0], [0.5, 0.0], [0.5, 1.0]]).estimate == pytest.approx(2.0)


@given(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=3, max_size=3), min_size=2))
def test_effective_number_lies_between_one_and_the_panel_size(rows: list[list[float]]) -> None:
    eff = effective_judges(rows)
    assert 1.0 - 1e-9 <= eff.estimate <= 3.0 + 1e-9


def test_the_effective_number_has_a_seeded_bootstrap_interval() -> None:
    column = [1.0, 0.0, 0.5, 1.0, 0.0, 0.0]
    copies = effective_judges([[v, v, v] for v in column], n_resamples=200)
    assert (copies.ci.low, copies.ci.high) == pytest.approx((1.0, 1.0))
    rng = np.random.default_rng(3)
    rows = (rng.integers(0, 3, size=(80, 3)) / 2).tolist()
    one = effective_judges(rows, n_resamples=300, seed=7)
    assert one.ci == effective_judges(rows, n_resamples=300, seed=7).ci
    assert one.ci != effective_judges(rows, n_resamples=300, seed=8).ci
    assert 1.0 <= one.ci.low < one.estimate <= one.ci.high + 1e-9 <= 3.0 + 1e-9
    assert one.to_dict()["seed"] == 7
    assert one.to_dict()["ci"]["high"] == one.ci.high


def test_the_effective_number_resamples_questions() -> None:
    rows = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    eff = effective_judges(rows, questions=["q1", "q1", "q2", "q2"], n_resamples=50)
    assert eff.n_questions == 2
    single = effective_judges(rows, questions=["q"] * 4, n_resamples=50)
    assert not single.ci.estimable
