"""Strict JSON out: no ``NaN`` or ``Infinity`` ever reaches a file or ``--json``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fairjudge.io import strict_dumps, write_jsonl_atomic
from fairjudge.io._out_file import REASONS_KEY


def strict_loads(text: str) -> Any:
    """``json.loads`` refusing NaN and Infinity, as jq, JSON.parse and serde do."""

    def refuse(word: str) -> Any:
        raise ValueError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def test_finite_values_are_written_as_json_dumps_writes_them() -> None:
    value = {"a": [1, 2.5, None, "x"], "b": {"c": True}}
    assert strict_dumps(value, indent=2) == json.dumps(value, indent=2)


def test_a_non_finite_value_is_null_with_its_reason() -> None:
    value = {"calls": {"cost_usd": math.nan}, "rates": [0.5, math.inf, -math.inf]}
    data = strict_loads(strict_dumps(value))
    assert data["calls"]["cost_usd"] is None
    assert data["rates"] == [0.5, None, None]
    assert data[REASONS_KEY] == {
        "calls.cost_usd": "NaN is not a number JSON can hold",
        "rates[1]": "Infinity is not a number JSON can hold",
        "rates[2]": "-Infinity is not a number JSON can hold",
    }


def test_what_default_makes_is_checked_too() -> None:
    class Odd:
        pass

    text = strict_dumps({"x": Odd(), "y": math.nan}, default=lambda _: math.inf)
    assert strict_loads(text) == {
        "x": None,
        "y": None,
        REASONS_KEY: {
            "x": "Infinity is not a number JSON can hold",
            "y": "NaN is not a number JSON can hold",
        },
    }


def test_out_files_are_strict_json(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    write_jsonl_atomic(path, [{"n": 1}, {"p": math.nan}])
    lines = [strict_loads(line) for line in path.read_text().splitlines()]
    assert lines == [{"n": 1}, {"p": None, REASONS_KEY: {"p": "NaN is not a number JSON can hold"}}]


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(_JSONISH)
def test_any_value_comes_out_strict(value: Any) -> None:
    strict_loads(strict_dumps({"v": value}))
