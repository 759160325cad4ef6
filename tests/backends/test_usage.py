"""A server's usage figures are untrusted input: each field is checked, none is guessed."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge.backends._http_base import (
    MAX_REPORTED_TOKENS,
    Usage,
    anthropic_usage,
    openai_usage,
)

HOSTILE: list[Any] = [
    -1,
    -80_000,
    math.nan,
    math.inf,
    -math.inf,
    "12",
    "",
    True,
    False,
    12.0,
    0.5,
    2**70,
    MAX_REPORTED_TOKENS,
    [3],
    {"n": 3},
]
"""Values no usage field may hold (JSON null is a missing field, tested apart)."""

OPENAI_FIELDS = [
    ("prompt_tokens",),
    ("completion_tokens",),
    ("prompt_tokens_details", "cached_tokens"),
    ("completion_tokens_details", "reasoning_tokens"),
]
ANTHROPIC_FIELDS = [
    ("input_tokens",),
    ("output_tokens",),
    ("cache_read_input_tokens",),
    ("cache_creation_input_tokens",),
]


def _openai_good() -> dict[str, Any]:
    return {
        "prompt_tokens": 1200,
        "completion_tokens": 300,
        "total_tokens": 1500,
        "prompt_tokens_details": {"cached_tokens": 1024},
        "completion_tokens_details": {"reasoning_tokens": 256},
    }


def _anthropic_good() -> dict[str, Any]:
    return {
        "input_tokens": 30,
        "output_tokens": 12,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 500,
    }


def _set(usage: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    target = usage
    for name in path[:-1]:
        target = target[name]
    target[path[-1]] = value
    return usage


def test_openai_figures_are_read_whole() -> None:
    assert openai_usage(_openai_good()) == Usage(
        input_tokens=1200, output_tokens=300, reasoning_tokens=256, cached_input_tokens=1024
    )


def test_anthropic_prompt_is_its_three_parts() -> None:
    # input_tokens is the uncached remainder; reads and writes come beside it.
    assert anthropic_usage(_anthropic_good()) == Usage(
        input_tokens=2530, output_tokens=12, cached_input_tokens=2000, cache_write_tokens=500
    )


def test_optional_details_may_be_absent_or_null() -> None:
    plain = {"prompt_tokens": 10, "completion_tokens": 2}
    assert openai_usage(plain) == Usage(10, 2)
    nulls = {**plain, "prompt_tokens_details": None, "completion_tokens_details": None}
    assert openai_usage(nulls) == Usage(10, 2)
    zero = {**plain, "prompt_tokens_details": {"cached_tokens": None}}
    assert openai_usage(zero) == Usage(10, 2)
    assert anthropic_usage({"input_tokens": 5, "output_tokens": 1}) == Usage(5, 1)


@pytest.mark.parametrize("path", OPENAI_FIELDS, ids=".".join)
@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_a_hostile_openai_field_is_never_believed(path: tuple[str, ...], value: Any) -> None:
    usage = openai_usage(_set(_openai_good(), path, value))
    assert usage.problem is not None
    assert f"usage.{'.'.join(path)}" in usage.problem
    fields = usage.fields()
    for name in ("input_tokens", "output_tokens", "reasoning_tokens", "cached_input_tokens"):
        # A field is the server's whole number, in range, or None: never the bad value.
        got = fields[name]
        assert got is None or (type(got) is int and 0 <= got < MAX_REPORTED_TOKENS)
    assert value not in (fields["input_tokens"], fields["output_tokens"]) or type(value) is int


@pytest.mark.parametrize("path", ANTHROPIC_FIELDS, ids=".".join)
@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_a_hostile_anthropic_field_is_never_believed(path: tuple[str, ...], value: Any) -> None:
    usage = anthropic_usage(_set(_anthropic_good(), path, value))
    assert usage.problem is not None
    assert f"usage.{path[0]}" in usage.problem
    if path[0] == "input_tokens":
        assert usage.input_tokens is None  # the prompt's size is unknown
    elif path[0] == "output_tokens":
        assert usage.output_tokens is None


@pytest.mark.parametrize("required", ["prompt_tokens", "completion_tokens"])
def test_a_missing_count_is_a_problem(required: str) -> None:
    usage = _openai_good()
    del usage[required]
    read = openai_usage(usage)
    assert read.problem == f"usage.{required} is missing"
    null = openai_usage({**_openai_good(), required: None})
    assert null.problem is not None
    assert f"usage.{required}" in null.problem


@pytest.mark.parametrize("usage", [None, "lots", [1, 2], 7])
def test_no_usage_object_is_a_problem(usage: Any) -> None:
    assert openai_usage(usage).problem is not None
    assert anthropic_usage(usage).problem is not None
    assert openai_usage(usage).input_tokens is None


def test_parts_larger_than_their_whole_are_not_believed() -> None:
    cached = openai_usage({**_openai_good(), "prompt_tokens_details": {"cached_tokens": 1201}})
    assert (
        cached.problem
        == "usage.prompt_tokens_details.cached_tokens (1201) is more than prompt_tokens (1200)"
    )
    assert cached.cached_input_tokens is None
    reasoning = {**_openai_good(), "completion_tokens_details": {"reasoning_tokens": 301}}
    assert openai_usage(reasoning).reasoning_tokens is None
    assert openai_usage(reasoning).problem is not None


def test_a_problem_names_how_many_more() -> None:
    usage = openai_usage({"prompt_tokens": -1, "completion_tokens": math.nan})
    assert usage.problem == "usage.prompt_tokens is negative (-1) (and 1 more)"


def test_a_long_string_is_described_not_quoted() -> None:
    usage = openai_usage({"prompt_tokens": "x" * 10_000, "completion_tokens": 1})
    assert (
        usage.problem == "usage.prompt_tokens is a string of 10000 characters, not a whole number"
    )


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=10))  # fmt: skip
def test_any_json_value_reads_without_raising(value: Any) -> None:
    for read in (openai_usage, anthropic_usage):
        for usage in (value, {"prompt_tokens": value, "completion_tokens": value,
                              "input_tokens": value, "output_tokens": value}):  # fmt: skip
            got = read(usage)
            for name, count in got.fields().items():
                if name != "usage_problem":
                    assert count is None or (type(count) is int and count >= 0)
            json.dumps(got.fields(), allow_nan=False)  # nothing non-finite gets through
