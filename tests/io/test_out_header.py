"""The ``--out`` header record: what it keeps, what it masks, what readers refuse."""

from __future__ import annotations

import pytest

from fairjudge._errors import InputError
from fairjudge.io import out_header, read_header
from fairjudge.io._out_file import SCHEMA_VERSION


def test_the_command_line_is_recorded_with_credentials_masked() -> None:
    header = out_header(
        "compare",
        command=["fairjudge", "compare", "x.jsonl", "--base-url",
                 "https://me:hunter2@example.org/v1", "--note", "sk-abcdefghijklmnop",
                 "--base-url=http://h/v1/0f3c9b2a7e6d5c4b3a2910ff?k%65y=plain-value"],
    )  # fmt: skip
    command = header["fairjudge"]["command"]
    assert command[:3] == ["fairjudge", "compare", "x.jsonl"]
    assert command[4] == "https://***@example.org/v1"  # the user name may be the key
    assert command[6] == "***"
    assert command[7] == "--base-url=http://h/v1/***?k%65y=***"
    assert "hunter2" not in str(header)


def test_a_header_reads_back_and_a_record_is_not_one() -> None:
    header = read_header(out_header("rank", judge="j", template="default@1"), path="f")
    assert header is not None
    assert (header.kind, header.judge, header.template, header.rubric) == (
        "rank", "j", "default@1", None
    )  # fmt: skip
    assert read_header({"id": "a", "calls": []}, path="f") is None
    assert read_header([1, 2], path="f") is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"kind": "compare", "schema_version": SCHEMA_VERSION + 1}, "newer than this fairjudge"),
        ({"kind": "bogus", "schema_version": 1}, "unknown kind 'bogus'"),
        ({"kind": "compare", "schema_version": "1"}, "bad schema_version '1'"),
        ({"kind": "compare", "schema_version": 1, "judge": 3}, "'judge' must be a string"),
    ],
)
def test_a_malformed_header_is_refused_naming_the_file_and_line(
    body: dict[str, object], message: str
) -> None:
    with pytest.raises(InputError, match=message) as info:
        read_header({"fairjudge": body}, path="old.jsonl", line=1)
    assert str(info.value).startswith("old.jsonl:1: ")
