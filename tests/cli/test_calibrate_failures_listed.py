"""``calibrate``'s exit 4 says "the reasons are listed above": the reasons are listed.

Before, ``calibrate`` on pairs printed its figures and then "too many unresolved
items: ...; the reasons are listed above" with no reason anywhere, with or without
``--json``. Now the grouped reasons follow the figures, as ``compare`` has them, and
go to stderr when stdout holds ``--markdown -``, so stdout stays one document; under
``--json`` they are under ``failures``, as ``compare --json`` has them.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.cli.conftest import GOOD_ROWS

runner = CliRunner()
SUMS = "python:tests.cli.test_unresolved_json:no_verdict_on_sums"
REASON = "parse failure: no verdict slot: the reply is not a verdict: 'I refuse to choose.'"


def _pairs(tmp_path: Path) -> str:
    path = tmp_path / "pairs.jsonl"
    rows = [{**row, "human": "1"} for row in GOOD_ROWS]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_the_reasons_follow_the_figures(tmp_path: Path) -> None:
    done = runner.invoke(app, ["calibrate", _pairs(tmp_path), "--judge", SUMS])
    assert done.exit_code == 4, done.output
    out = " ".join(done.stdout.split())  # the lines wrap at the terminal's width
    listed = out.index("2 call(s) gave no verdict; the reasons, most common first:")
    assert f"2 x {REASON}" in out[listed:]
    assert "the reasons are listed above" in done.stderr


def test_beside_json_the_reasons_are_in_the_json(tmp_path: Path) -> None:
    """Under ``--json`` they are under ``failures``, as ``compare --json`` has them."""
    done = runner.invoke(app, ["calibrate", _pairs(tmp_path), "--judge", SUMS, "--json"])
    assert done.exit_code == 4, done.output
    assert json.loads(done.stdout)["failures"] == {REASON: 2}
    err = " ".join(done.stderr.split())  # the lines wrap at the terminal's width
    assert "the reasons, most common first" not in err
    assert err.endswith('the reasons are under "failures" in the --json output')


def test_beside_markdown_on_stdout_the_reasons_go_to_stderr(tmp_path: Path) -> None:
    args = ["calibrate", _pairs(tmp_path), "--judge", SUMS, "--markdown", "-"]
    done = runner.invoke(app, args)
    assert done.exit_code == 4, done.output
    assert "the reasons, most common first" not in done.stdout  # stdout: the summary alone
    err = " ".join(done.stderr.split())
    said = err.index("2 call(s) gave no verdict; the reasons, most common first:")
    assert said < err.index("the reasons are listed above")
    assert f"2 x {REASON}" in err


def test_on_human_scores_too(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    answers = ["ok", "x broken", "fine", "good"]  # the scorer is off the scale on 'x ...'
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": a, "human_accuracy": 3}
            for i, a in enumerate(answers)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    done = runner.invoke(
        app, ["calibrate", str(path), "--judge", "python:tests.scorers:half_broken"]
    )
    assert done.exit_code == 4, done.output
    out = " ".join(done.stdout.split())
    assert "1 call(s) gave no verdict; the reasons, most common first: 1 x parse failure" in out
    assert "the reasons are listed above" in done.stderr
