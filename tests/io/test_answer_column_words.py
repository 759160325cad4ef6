"""A score file without its answer column names the option each caller has.

``fairjudge.score(...)`` said "pass answer_col=NAME", a parameter it does not take
(it renames through ``columns=``); the command line says ``--answer-col NAME``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge import InputError
from tests.cli_process import fairjudge as run_cli
from tests.cli_process import flat

SCORER = "python:fairjudge.examples.judges:scorer"


def _files(tmp_path: Path) -> list[Path]:
    jsonl = tmp_path / "items.jsonl"
    jsonl.write_text(json.dumps({"question": "q", "response": "a"}) + "\n", encoding="utf-8")
    csv = tmp_path / "items.csv"
    csv.write_text("question,response\nq,a\n", encoding="utf-8")
    return [jsonl, csv]  # the rows' check and the header's


def test_the_library_names_columns_not_answer_col(tmp_path: Path) -> None:
    for path in _files(tmp_path):
        with pytest.raises(InputError, match=r"pass columns\.answer=NAME") as caught:
            fairjudge.score(str(path), SCORER)
        assert "answer_col" not in str(caught.value)
        assert caught.value.params == ("columns.answer",)


def test_the_command_names_its_flag(tmp_path: Path) -> None:
    for path in _files(tmp_path):
        done = run_cli("score", str(path), "--judge", SCORER)
        err = flat(done.stderr)
        assert done.returncode == 2, (done.stdout, err)
        assert "pass --answer-col NAME" in err, err
        assert "columns.answer" not in err, err
        assert "answer_col" not in err, err
