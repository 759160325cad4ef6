"""The run's calls and a panel's usage per member, read back from a ``--out`` header.

The header is read from a file: a value no run could write drops the record (the
page then shows no calls) rather than putting a wrong count on the page.
"""

from __future__ import annotations

from typing import Any

import pytest

from fairjudge.io import out_header, read_header
from fairjudge.judges import MemberUsage
from fairjudge.report._page import recorded_member_usage, recorded_run
from fairjudge.runner import RunSummary

RUN = RunSummary(total=6, cached=1, made=5, failed=1, not_run=0, requests=7, retries=2,
                 input_tokens=300, output_tokens=40, cost_usd=0.0125, wall_s=1.5,
                 backoff_s=0.25, stopped="max_calls", reasoning_tokens=3,
                 learned=("sent x instead of y",))  # fmt: skip
USAGE = MemberUsage(calls=3, made=2, cached=1, input_tokens=150, output_tokens=20,
                    cost_usd=None, latency_s=0.5)  # fmt: skip


def _header(calls: Any = None, usage: Any = None) -> Any:
    record = out_header("jury", calls=calls, member_usage=usage)
    return read_header(record, path="f.jsonl")


def test_the_recorded_calls_are_the_runs() -> None:
    header = _header(RUN.to_dict(), [USAGE.to_dict(), USAGE.to_dict()])
    assert recorded_run(header) == RUN
    assert recorded_member_usage(header, 2) == (USAGE, USAGE)


def test_a_field_a_newer_fairjudge_adds_is_ignored_and_one_it_lacks_defaults() -> None:
    calls = {**RUN.to_dict(), "from_the_future": 1}
    del calls["refused"]  # a file written before refusals were counted
    assert recorded_run(_header(calls)) == RUN


@pytest.mark.parametrize(
    ("field", "value"),
    [("made", -1), ("made", 1.5), ("made", True), ("total", None), ("cost_usd", "cheap"),
     ("stopped", "max_patience"), ("learned", "one line"), ("wall_s", None)],
)  # fmt: skip
def test_a_value_no_run_could_write_drops_the_calls(field: str, value: object) -> None:
    assert recorded_run(_header({**RUN.to_dict(), field: value})) is None


def test_no_calls_recorded_is_none() -> None:
    assert recorded_run(_header()) is None
    assert recorded_run(None) is None
    assert recorded_member_usage(_header(), 2) == ()


@pytest.mark.parametrize(
    "usage",
    [[{**USAGE.to_dict(), "calls": -3}, USAGE.to_dict()], [USAGE.to_dict()],
     [{**USAGE.to_dict(), "answered_locally": "yes"}, USAGE.to_dict()]],
    ids=["negative", "another-length", "not-a-flag"],
)  # fmt: skip
def test_a_damaged_member_usage_is_none_for_every_member(usage: list[Any]) -> None:
    assert recorded_member_usage(_header(usage=usage), 2) == ()
