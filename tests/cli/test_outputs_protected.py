"""A result file never overwrites the input file or a store: both are refused before any call."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    shutil.copy(EXAMPLES / "demo_pairs.jsonl", path)
    return path


@pytest.mark.parametrize("flag", ["--out", "--html"])
def test_compare_refuses_to_write_over_its_input(pairs: Path, flag: str) -> None:
    before = pairs.read_bytes()
    result = runner.invoke(
        app, ["compare", str(pairs), "--judge", "python:tests.judge_fixtures:longer",
              flag, str(pairs)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "is the input file" in result.stderr
    assert pairs.read_bytes() == before


def test_compare_refuses_to_write_over_a_store(pairs: Path, tmp_path: Path) -> None:
    store = tmp_path / "judgments.sqlite"
    with sqlite3.connect(store) as db:
        db.execute("create table calls (key text)")
    before = store.read_bytes()
    result = runner.invoke(
        app, ["compare", str(pairs), "--judge", "python:tests.judge_fixtures:longer",
              "--out", str(store)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "is a SQLite database" in result.stderr
    assert store.read_bytes() == before


def test_score_refuses_to_write_over_its_input(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    shutil.copy(EXAMPLES / "score_answers.jsonl", answers)
    before = answers.read_bytes()
    result = runner.invoke(
        app, ["score", str(answers), "--judge", "python:examples.judges:scorer",
              "--out", str(answers)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "is the input file" in result.stderr
    assert answers.read_bytes() == before


def test_rank_refuses_to_write_over_its_input(tmp_path: Path) -> None:
    answers = tmp_path / "rank.jsonl"
    shutil.copy(EXAMPLES / "rank_answers.jsonl", answers)
    result = runner.invoke(
        app, ["rank", str(answers), "--judge", "python:tests.judge_fixtures:longer",
              "--html", str(answers)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "is the input file" in result.stderr
