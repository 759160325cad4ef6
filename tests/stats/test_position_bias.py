from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairjudge._errors import InputError
from fairjudge.stats._position_bias import position_bias

VERDICTS = ("A", "B", "tie")


def test_each_of_the_nine_pairs_once_by_hand() -> None:
    original = [o for o in VERDICTS for _ in VERDICTS]
    swapped = [s for _ in VERDICTS for s in VERDICTS]
    r = position_bias(original, swapped, n_resamples=200)
    # Consistent: (A,B) (B,A) (tie,tie). First: (A,A) (A,tie) (tie,A).
    # Second: (B,B) (B,tie) (tie,B). Flips: (A,A) (B,B).
    assert (r.consistency.count, r.first_position.count, r.second_position.count) == (3, 3, 3)
    assert r.flip.count == 2
    assert r.flip.n == 9
    assert math.isclose(r.consistency.estimate, 1 / 3)
    assert r.preference_fairness == 0.0
    assert r.repetition_stability is None
    assert all(c == 1 for c in r.pair_counts.values())
    assert len(r.pair_counts) == 9


def test_a_tie_in_one_order_leans_to_a_position() -> None:
    # Shi et al.: (A, tie) is biased to the first position, not consistent.
    r = position_bias(["A", "tie", "B", "A"], ["tie", "B", "tie", "B"], n_resamples=50)
    # (A,tie) first; (tie,B) second; (B,tie) second; (A,B) consistent.
    assert r.consistency.count == 1
    assert r.first_position.count == 1
    assert r.second_position.count == 2
    assert r.flip.count == 0
    # PF = (second - first) / n = (2 - 1) / 4.
    assert r.preference_fairness == 0.25


def test_always_first_judge() -> None:
    r = position_bias(["A"] * 10, ["A"] * 10, n_resamples=50)
    assert r.consistency.estimate == 0.0
    assert r.first_position.estimate == 1.0
    assert r.flip.estimate == 1.0
    assert r.preference_fairness == -1.0
    # -1 on every item: not [-1, -1], but the bound from none of the 10 off -1.
    assert r.preference_fairness_ci.low == -1.0
    assert r.preference_fairness_ci.high == pytest.approx(-1.0 + 2 * 3.8415 / 13.8415, abs=1e-4)


def test_repetition_stability_by_hand() -> None:
    original = [["A", "A", "B"], ["B", "B", "B"]]
    swapped = [["B", "B", "B"], ["A", "tie", "A"]]
    r = position_bias(original, swapped, questions=["q1", "q2"], n_resamples=100)
    # Item 1: original mode share 2/3, swapped 3/3; item 2: 3/3 and 2/3.
    assert r.repetition_stability is not None
    assert math.isclose(r.repetition_stability, 5 / 6)
    assert r.rounds == 3
    assert r.n_pairs == 6
    assert r.n_items == 2
    # Pairs: (A,B) (A,B) (B,B) | (B,A) (B,tie) (B,A): 4 consistent of 6.
    assert r.consistency.count == 4
    assert r.second_position.count == 2
    assert r.flip.count == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(VERDICTS), st.sampled_from(VERDICTS)), min_size=1))
def test_shares_sum_to_one_and_mirroring_negates_fairness(pairs: list[tuple[str, str]]) -> None:
    original = [o for o, _ in pairs]
    swapped = [s for _, s in pairs]
    r = position_bias(original, swapped, n_resamples=20)
    total = r.consistency.estimate + r.first_position.estimate + r.second_position.estimate
    assert math.isclose(total, 1.0)
    assert -1.0 <= r.preference_fairness <= 1.0
    assert r.flip.estimate <= 1.0 - r.consistency.estimate + 1e-12  # float rounding
    # A judge that says B wherever this one says A (and vice versa) leans the other way.
    swap = {"A": "B", "B": "A", "tie": "tie"}
    m = position_bias([swap[v] for v in original], [swap[v] for v in swapped], n_resamples=20)
    assert math.isclose(m.preference_fairness, -r.preference_fairness, abs_tol=1e-12)
    assert math.isclose(m.consistency.estimate, r.consistency.estimate)


def test_errors_name_parameter_and_value() -> None:
    with pytest.raises(InputError, match=r"swapped\[1\] must be one of 'A', 'B', 'tie'; got 'a'"):
        position_bias(["A", "B"], ["B", "a"])
    with pytest.raises(InputError, match=r"original\[0\] has 2 rounds but swapped\[0\] has 1"):
        position_bias([["A", "B"]], [["B"]])
    with pytest.raises(InputError, match="swapped has 1 items but original has 2"):
        position_bias(["A", "B"], ["B"])
