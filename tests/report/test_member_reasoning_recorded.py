"""A panel's reasoning tokens per member, read back from a ``--out`` header (QA41 #8).

A member's ``reasoning_tokens`` round-trips (a number, or ``null``: not reported); a
header written before members kept them has none, so a model member's are unknown
(``None``), never 0, and a member that calls no model has 0; a value no run could
write drops the record as any other field's does.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from fairjudge.io import out_header, read_header
from fairjudge.judges import MemberUsage
from fairjudge.report._page import recorded_member_usage

MODEL = MemberUsage(calls=3, made=3, cached=0, input_tokens=150, output_tokens=300,
                    cost_usd=None, latency_s=0.5, reasoning_tokens=192)  # fmt: skip
THINKER = replace(MODEL, reasoning_tokens=None)
LOCAL = MemberUsage(3, 3, 0, 0, 0, 0.0, 0.01, local=True)


def _header(usage: Any) -> Any:
    return read_header(out_header("jury", member_usage=usage), path="f.jsonl")


def test_each_members_reasoning_tokens_round_trip() -> None:
    records = [u.to_dict() for u in (MODEL, THINKER, LOCAL)]
    assert [r["reasoning_tokens"] for r in records] == [192, None, 0]
    assert recorded_member_usage(_header(records), 3) == (MODEL, THINKER, LOCAL)


def test_a_header_from_before_is_unknown_for_a_model_and_0_for_a_function() -> None:
    records = [u.to_dict() for u in (MODEL, LOCAL)]
    for record in records:
        del record["reasoning_tokens"]
    got = recorded_member_usage(_header(records), 2)
    assert [u.reasoning_tokens for u in got] == [None, 0]


@pytest.mark.parametrize("value", [-1, 1.5, True, "many"])
def test_a_reasoning_count_no_run_could_write_drops_the_usage(value: object) -> None:
    records = [{**MODEL.to_dict(), "reasoning_tokens": value}, LOCAL.to_dict()]
    assert recorded_member_usage(_header(records), 2) == ()
