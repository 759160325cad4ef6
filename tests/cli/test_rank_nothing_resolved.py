"""``rank`` where no pair has a verdict: the failures and exit 4, never exit 2 after the calls.

Exit 2 means bad input found before any call; a rank whose every judgment failed
says why, grouped, as a rank with some pairs unresolved does, and exits 4 as
``compare`` does when nothing resolves (5 when a budget stopped it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fairjudge
from fairjudge._api import NothingResolved
from fairjudge.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rank_answers.jsonl"
GARBAGE = "python:tests.judge_fixtures:garbage"


def test_rank_with_no_verdict_lists_the_reasons_and_exits_4() -> None:
    result = CliRunner().invoke(app, ["rank", str(EXAMPLE), "--judge", GARBAGE,
                                      "--bootstrap", "20"])  # fmt: skip
    assert result.exit_code == 4, result.output
    text = " ".join(result.output.split())
    assert "192 x parse failure" in text
    assert "96 of 96 pairs have no verdict" in text
    assert "a rating needs battles" not in text


def test_rank_json_with_no_verdict_prints_the_error_object_with_exit_4() -> None:
    result = CliRunner().invoke(app, ["rank", str(EXAMPLE), "--judge", GARBAGE,
                                      "--bootstrap", "20", "--json"])  # fmt: skip
    assert result.exit_code == 4, result.output
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "NothingResolved"
    assert error["exit_code"] == 4
    assert "none of the 96 pairs has a verdict" in error["message"]


def test_rank_stopped_before_any_pair_resolved_exits_5() -> None:
    result = CliRunner().invoke(app, [
        "rank", str(EXAMPLE), "--judge", "python:tests.judge_fixtures:longer",
        "--max-calls", "1", "--bootstrap", "20",
    ])  # fmt: skip
    assert result.exit_code == 5, result.output
    assert "not run" in result.output


def test_library_rank_with_no_verdict_keeps_the_judgments(tmp_path: Path) -> None:
    from tests.judge_fixtures import garbage

    with pytest.raises(NothingResolved) as caught:
        fairjudge.rank(str(EXAMPLE), garbage, n_resamples=20)
    assert isinstance(caught.value, fairjudge.FairJudgeError)
    assert caught.value.result.n_items == 96
    assert caught.value.result.n_unresolved == 96
    saved = caught.value.save(tmp_path / "pairs.jsonl")
    assert len(saved.read_text("utf-8").splitlines()) == 1 + 96


def test_rank_with_no_verdict_still_writes_every_judgment_to_out(tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    result = CliRunner().invoke(app, ["rank", str(EXAMPLE), "--judge", GARBAGE,
                                      "--bootstrap", "20", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 4, result.output
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(records) == 1 + 96  # the header, then every pair
    assert all(r["winner"] is None for r in records[1:])


def test_rank_html_with_no_verdict_says_no_page_was_written(tmp_path: Path) -> None:
    page, summary = tmp_path / "rank.html", tmp_path / "rank.md"
    result = CliRunner().invoke(app, ["rank", str(EXAMPLE), "--judge", GARBAGE,
                                      "--bootstrap", "20", "--html", str(page),
                                      "--markdown", str(summary)])  # fmt: skip
    assert result.exit_code == 4, result.output
    said = " ".join(result.stderr.split())
    assert "192 x parse failure" in said  # the failures first, then what was not written
    assert "no page written: nothing to rank: no judged pair has a verdict" in said
    assert f"--html {page} was not written" in said
    assert "no Markdown summary written: nothing to rank" in said
    assert not page.exists()
    assert not summary.exists()


def test_rank_with_no_verdict_and_no_page_asked_says_nothing_of_pages() -> None:
    result = CliRunner().invoke(app, ["rank", str(EXAMPLE), "--judge", GARBAGE,
                                      "--bootstrap", "20"])  # fmt: skip
    assert result.exit_code == 4, result.output
    assert "no page written" not in result.stderr
    assert "no Markdown summary written" not in result.stderr
