"""The store key: the same text hashed for the same call, however the spec is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairjudge._call import CallSpec

JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
MESSAGES = st.lists(
    st.tuples(st.sampled_from(["system", "user", "assistant"]), st.text(max_size=200)),
    min_size=1,
    max_size=4,
).map(tuple)


def _reference(spec: CallSpec) -> str:
    """The key's text as it was always made: ``json.dumps`` of the canonical form."""
    return json.dumps(spec.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(
    backend=st.text(max_size=12),
    model=st.text(max_size=30),
    base_url=st.none() | st.text(max_size=30),
    template=st.text(max_size=12),
    version=st.text(max_size=5),
    messages=MESSAGES,
    params=st.dictionaries(st.text(max_size=12), JSON_VALUES, max_size=5),
    sample=st.integers(min_value=0, max_value=10**6),
    kind=st.sampled_from(["pairwise", "pointwise", "other"]),
)
def test_the_key_text_is_json_dumps_of_the_canonical_form(
    backend: str,
    model: str,
    base_url: str | None,
    template: str,
    version: str,
    messages: tuple[tuple[str, str], ...],
    params: dict[str, Any],
    sample: int,
    kind: str,
) -> None:
    spec = CallSpec(
        backend=backend, model=model, base_url=base_url, template=template,
        template_version=version, messages=messages, params=params, sample=sample, kind=kind,
    )  # fmt: skip
    assert spec.canonical_json() == _reference(spec)


def test_a_known_call_keeps_its_key() -> None:
    """Stored replies are found by key: a new derivation would orphan every store."""
    spec = CallSpec(
        backend="openai",
        model="gpt-4o-mini",
        base_url=None,
        template="default",
        template_version="1",
        messages=(
            ("system", "Judge fairly."),
            ("user", 'Q: "caf\u00e9" \u2013 </answer_a> \\ \n\t\U0001f600'),
        ),
        params={
            "temperature": 0.0,
            "max_tokens": 1,
            "logprobs": True,
            "top_logprobs": 20,
            "extra": {"b": [1, 2.5, None], "a": "x"},
        },
        sample=2,
        kind="pairwise",
    )
    assert spec.key == "09b82a88bb76453f9be12330758cf5debaa8c0a1740475c928cd6842f5a07eef"


def test_parameters_changed_in_place_change_the_key() -> None:
    """Keys reuse the last parameters' JSON; a change in place, however deep, is seen."""
    params: dict[str, Any] = {"temperature": 0.0, "response_format": {"type": "json"}}

    def spec() -> CallSpec:
        return CallSpec(
            backend="openai", model="m", template="t", template_version="1",
            messages=(("user", "q"),), params=params,
        )  # fmt: skip

    first = spec()
    assert spec().key == first.key
    params["response_format"]["type"] = "text"
    changed = spec()
    assert changed.key != first.key
    assert changed.canonical_json() == _reference(changed)
    params["temperature"] = 0.5
    assert spec().canonical_json() == _reference(spec())
    params["temperature"] = 1  # equal to 1.0 and to True, but not the same JSON
    for value in (1, 1.0, True, 1):
        params["temperature"] = value
        assert spec().canonical_json() == _reference(spec())


class _ReadsLikeFive:
    """Reads as ``5`` (as a numpy 1.x integer does) but is no JSON value."""

    def __repr__(self) -> str:
        return "5"


def test_a_value_json_cannot_encode_fails_even_after_a_lookalike() -> None:
    """The parameters' JSON is reused only for plain JSON values: a value that merely
    reads like an earlier one still fails when the call is made, as it always did."""

    def spec(value: object) -> CallSpec:
        return CallSpec(
            backend="openai", model="m", template="t", template_version="1",
            messages=(("user", "q"),), params={"max_tokens": value},
        )  # fmt: skip

    assert spec(5).canonical_json() == _reference(spec(5))
    with pytest.raises(TypeError, match="not JSON serializable"):
        spec(_ReadsLikeFive())
    with pytest.raises(TypeError, match="not JSON serializable"):
        spec([_ReadsLikeFive()])
