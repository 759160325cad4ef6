"""A loader's hint to read a column under another name names a flag the command has.

Before: ``audit --items`` of a file without 'answer' said ``pass --answer-col NAME``,
and label and label-merge of a file without 'question' said ``pass --question-col
NAME``; neither command has the flag (``No such option``). They now say which name
the command reads, to rename in the file; compare keeps its flag.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.cli_process import flat

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "src" / "fairjudge" / "examples" / "demo_pairs.jsonl"
KEYS = "this row has keys: 'id', 'q', 'answer_1', 'answer_2'"
runner = CliRunner()


def _pairs(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"id": "a", "q": "x", "answer_1": "a", "answer_2": "b"}) + "\n")
    return path


@pytest.mark.parametrize("command", ["label", "label-merge"])
def test_label_commands_say_which_key_to_rename(tmp_path: Path, command: str) -> None:
    one = _pairs(tmp_path, "one.jsonl")
    args = (
        ["label", str(one), "--no-open"]
        if command == "label"
        else ["label-merge", str(one), str(_pairs(tmp_path, "two.jsonl")), "--out",
              str(tmp_path / "m.jsonl")]
    )  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert flat(result.stderr) == (
        f"error: {one}:1: missing column 'question'; {KEYS}; {command} reads the key named "
        "'question' only: rename the one that holds it in the file"
    )


def test_audit_items_say_which_key_to_rename() -> None:
    result = runner.invoke(app, ["audit", "--items", str(PAIRS)])
    assert result.exit_code == 2, result.output
    said = flat(result.stderr)
    assert "audit reads the key named 'answer' only: rename the one that holds it" in said
    assert "--answer-col" not in said


def test_a_command_with_the_flag_still_names_it(tmp_path: Path) -> None:
    one = _pairs(tmp_path, "one.jsonl")
    result = runner.invoke(app, ["compare", str(one), "--judge", "python:x:y"])
    assert result.exit_code == 2, result.output
    assert "to read another key, pass --question-col NAME" in flat(result.stderr)
