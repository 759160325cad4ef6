"""``rank`` stopped by its budget says which pairs were never judged, and its JSON says so.

The unjudged pairs were worded "unresolved: 94 pair(s) (0 parse failures, 0 call
errors)", which reads as if 94 judgments had failed for no reason; they were not run.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples" / "rank_answers.jsonl"
)


def test_budget_stopped_rank_counts_the_pairs_not_run() -> None:
    result = CliRunner().invoke(app, [
        "rank", str(EXAMPLE), "--judge", "python:fairjudge.examples.judges:longer",
        "--max-calls", "6", "--bootstrap", "50",
    ])  # fmt: skip
    assert result.exit_code == 5, result.output
    text = " ".join(result.output.split())
    assert "unresolved: 93 pair(s) (0 parse failures, 0 call errors, 93 not run)" in text


def test_budget_stopped_rank_json_says_partial_and_stopped_as_compare_does() -> None:
    result = CliRunner().invoke(app, [
        "rank", str(EXAMPLE), "--judge", "python:fairjudge.examples.judges:longer",
        "--max-calls", "6", "--bootstrap", "50", "--json",
    ])  # fmt: skip
    assert result.exit_code == 5, result.output
    payload = json.loads(result.stdout)
    assert payload["partial"] is True
    assert "--max-calls 6" in payload["stopped"]


def test_rank_json_run_to_the_end_has_no_stop_keys() -> None:
    result = CliRunner().invoke(app, [
        "rank", str(EXAMPLE), "--judge", "python:fairjudge.examples.judges:longer",
        "--bootstrap", "50", "--json",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert "stopped" not in payload
    assert "partial" not in payload
