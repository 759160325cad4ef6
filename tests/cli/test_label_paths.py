"""label and label-merge name a missing file, or standard input, as such.

Before: ``label-merge a.jsonl nonexist`` and ``label -`` said "labels are written back
into JSON Lines (.jsonl) or CSV files, not a file without an extension": the file's
extension was checked before whether there was a file at all. With ``--rubric`` (or
``label-merge --tolerance``) they said the file "holds pairs (answer_1/answer_2)".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import InputError
from fairjudge.cli import app
from fairjudge.io import LabelSheet
from tests.cli_process import flat

runner = CliRunner()
STDIN = (
    "error: <stdin>: standard input ('-') is not supported: a label sheet is a file, read "
    "and written back in place; give its path"
)


def _pairs(tmp_path: Path) -> Path:
    path = tmp_path / "a.jsonl"
    row = {"id": "a", "question": "q", "answer_1": "x", "answer_2": "y", "human": "1"}
    path.write_text(json.dumps(row) + "\n")
    return path


def test_label_of_standard_input_says_so() -> None:
    result = runner.invoke(app, ["label", "-", "--no-open"], input="")
    assert result.exit_code == 2, result.output
    assert flat(result.stderr) == STDIN


def test_label_and_label_merge_name_a_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nonexist"
    result = runner.invoke(app, ["label", str(missing), "--no-open"])
    assert result.exit_code == 2, result.output
    assert "no such file" in result.stderr
    assert "extension" not in result.stderr
    merged = runner.invoke(
        app, ["label-merge", str(_pairs(tmp_path)), str(missing), "--out", str(tmp_path / "m")]
    )
    assert merged.exit_code == 2, merged.output
    assert f"{missing}: " in merged.stderr
    assert "no such file" in merged.stderr
    assert "extension" not in merged.stderr
    stdin = runner.invoke(
        app, ["label-merge", "-", str(_pairs(tmp_path)), "--out", str(tmp_path / "m.jsonl")]
    )
    assert stdin.exit_code == 2, stdin.output
    assert flat(stdin.stderr) == STDIN


def test_the_library_says_the_same(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=re.escape("standard input ('-') is not supported")):
        LabelSheet.open("-")
    with pytest.raises(InputError, match="no such file"):
        LabelSheet.open(tmp_path / "gone.csv")


def test_with_rubric_they_say_the_same_not_that_the_file_holds_pairs(tmp_path: Path) -> None:
    missing, out = str(tmp_path / "nonexist"), str(tmp_path / "m.jsonl")
    pairs = str(_pairs(tmp_path))
    rubric = ["--rubric", "production"]
    for args in (["label", missing, *rubric, "--no-open"],
                 ["label-merge", pairs, missing, "--out", out, *rubric]):  # fmt: skip
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert flat(result.stderr) == f"error: {missing}: cannot read it: no such file"
    for args in (["label", "-", *rubric, "--no-open"],
                 ["label-merge", "-", pairs, "--out", out, "--tolerance", "1"]):  # fmt: skip
        result = runner.invoke(app, args, input="")
        assert result.exit_code == 2, result.output
        assert flat(result.stderr) == STDIN
    held = runner.invoke(app, ["label", pairs, *rubric, "--no-open"])
    assert held.exit_code == 2, held.output
    assert "holds pairs (answer_1/answer_2): leave --rubric out" in flat(held.stderr)
