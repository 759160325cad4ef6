"""The pair merge's lookup table finds what ``np.unique`` finds, in the same order."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairjudge.stats import _bt_data
from fairjudge.stats._bt_data import _distinct


@settings(max_examples=200, deadline=None)
@given(
    n_models=st.integers(min_value=2, max_value=60),
    picks=st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=300),
)
def test_distinct_pairs_match_np_unique(n_models: int, picks: list[int]) -> None:
    keys = np.array(picks, dtype=np.intp) % (n_models * n_models)
    distinct, inverse = _distinct(keys, n_models * n_models)
    expected, expected_inverse = np.unique(keys, return_inverse=True)
    assert np.array_equal(distinct, expected)
    assert np.array_equal(inverse, expected_inverse)
    assert inverse.dtype == np.intp


def test_many_models_fall_back_to_sorting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bt_data, "_DENSE_KEYS", 10)
    keys = np.array([7, 3, 7, 99, 3], dtype=np.intp)
    distinct, inverse = _distinct(keys, 100)
    assert distinct.tolist() == [3, 7, 99]
    assert inverse.tolist() == [1, 0, 1, 2, 0]
