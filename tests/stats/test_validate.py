"""Every check names the parameter, the position and the offending value."""

from __future__ import annotations

import pytest

from fairjudge._errors import ConfigError, InputError
from fairjudge._types import Outcome
from fairjudge.stats._bradley_terry import bradley_terry
from fairjudge.stats._validate import (
    check_clusters,
    check_finite,
    check_labels,
    check_level,
    check_n_resamples,
    check_outcomes,
    check_seed,
)


def test_outcome_error_names_index_and_value() -> None:
    with pytest.raises(InputError) as exc:
        check_outcomes("outcomes", ["1", "2", "tie", "x"])
    assert str(exc.value) == "outcomes[3] must be one of '1', '2', 'tie'; got 'x'"
    with pytest.raises(InputError, match=r"outcomes\[0\] must be one of '1', '2', 'tie'; got 1"):
        check_outcomes("outcomes", [1])  # type: ignore[list-item]
    with pytest.raises(InputError, match=r"outcomes\[1\] .* got \['1'\]"):
        check_outcomes("outcomes", ["1", ["1"]])  # type: ignore[list-item]


def test_enum_members_are_accepted() -> None:
    assert check_outcomes("o", [Outcome.ONE, Outcome.TWO, Outcome.TIE]).tolist() == [0, 1, 2]


def test_bradley_terry_names_the_bad_battle() -> None:
    with pytest.raises(InputError) as exc:
        bradley_terry(["a", "b", "a"], ["b", "a", "b"], ["1", "2", "A"])
    assert str(exc.value) == "outcomes[2] must be one of '1', '2', 'tie'; got 'A'"
    with pytest.raises(InputError, match=r"model_b\[1\] must be a non-empty model name; got ''"):
        bradley_terry(["a", "b"], ["b", ""], ["1", "2"])
    with pytest.raises(InputError, match="model_b has 1 entries but model_a has 2"):
        bradley_terry(["a", "b"], ["b"], ["1", "2"])
    with pytest.raises(InputError, match="model_a must be a sequence; got str 'ab'"):
        bradley_terry("ab", ["b", "a"], ["1", "2"])


def test_option_checks() -> None:
    with pytest.raises(
        ConfigError, match=r"level must be a number in \(0, 1\), e.g. 0.95; got 1.0"
    ):
        check_level(1.0)
    with pytest.raises(ConfigError, match="n_resamples must be >= 1; got 0"):
        check_n_resamples(0)
    with pytest.raises(ConfigError, match=r"n_resamples must be an integer; got 2\.5"):
        check_n_resamples(2.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="seed must be a non-negative integer; got True"):
        check_seed(True)


def test_data_checks() -> None:
    with pytest.raises(InputError, match=r"lengths\[2\] must be a finite number; got 'long'"):
        check_finite("lengths", [1, 2, "long"])  # type: ignore[list-item]
    with pytest.raises(InputError, match=r"model_a\[1\] must be a non-empty model name; got None"):
        check_labels("model_a", ["x", None])  # type: ignore[list-item]
    with pytest.raises(InputError, match=r"questions\[1\] must be hashable; got \[1\]"):
        check_clusters(["q", [1]], 2)  # type: ignore[list-item]
    with pytest.raises(InputError, match="questions has 1 labels but there are 2 items"):
        check_clusters(["q"], 2)
    codes, k = check_clusters(["b", "a", "b", 3], 4)
    assert codes.tolist() == [0, 1, 0, 2]
    assert k == 3
