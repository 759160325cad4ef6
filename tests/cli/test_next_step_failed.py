"""compare suggests calibrating a judge only when it judged something (QA 38 #16).

With every item failed, the failures are what to fix; "next: `fairjudge calibrate`
checks this judge" pointed past them.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "demo_pairs.jsonl")


def broken(question: str, answer_a: str, answer_b: str) -> str:
    raise RuntimeError("server said no")


def test_no_next_step_when_every_item_failed() -> None:
    result = CliRunner().invoke(
        app, ["compare", DEMO, "--judge", "python:tests.cli.test_next_step_failed:broken"]
    )
    assert result.exit_code == 4, result.output
    assert "server said no" in result.output
    assert "next:" not in result.output


def test_the_next_step_after_a_judged_run() -> None:
    judge = "python:fairjudge.examples.judges:knows_facts"
    result = CliRunner().invoke(app, ["compare", DEMO, "--judge", judge])
    assert result.exit_code == 0, result.output
    assert "next: `fairjudge calibrate` checks this judge against human labels" in result.output
