"""``rank`` stopped by its budget says which pairs were never judged.

The unjudged pairs were worded "unresolved: 94 pair(s) (0 parse failures, 0 call
errors)", which reads as if 94 judgments had failed for no reason; they were not run.
"""

from __future__ import annotations

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
