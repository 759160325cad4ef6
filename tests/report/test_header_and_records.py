"""``header_and_records``: only the first record may be a ``--out`` file's header."""

from __future__ import annotations

import json
from pathlib import Path

from fairjudge.io import OutHeader
from fairjudge.report._page_load import header_and_records

HEADER = {"fairjudge": {"kind": "score", "schema_version": 1, "version": "0.1.0",
                        "command": [], "judge": "j", "template": None, "rubric": None,
                        "settings": {}}}  # fmt: skip


def _write(path: Path, *records: object) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_header_is_checked_and_the_records_follow_it(tmp_path: Path) -> None:
    checked: list[OutHeader] = []
    header, records = header_and_records(
        _write(tmp_path / "f.jsonl", HEADER, {"id": "a"}, {"id": "b"}), checked.append
    )
    assert header is not None
    assert checked == [header]
    assert header.kind == "score"
    assert list(records) == [(2, {"id": "a"}), (3, {"id": "b"})]


def test_a_file_without_a_header_gives_every_record_and_checks_nothing(tmp_path: Path) -> None:
    checked: list[OutHeader] = []
    header, records = header_and_records(
        _write(tmp_path / "f.jsonl", {"id": "a"}, HEADER), checked.append
    )
    assert header is None
    assert checked == []
    assert [number for number, _ in records] == [1, 2]  # a later header is a record


def test_an_empty_file_gives_no_header_and_no_record(tmp_path: Path) -> None:
    header, records = header_and_records(_write(tmp_path / "f.jsonl"), lambda _: None)
    assert header is None
    assert list(records) == []
