"""`fairjudge audit`'s progress lines say which run of an experiment each one is."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.audit.conftest import plant
from tests.audit.planted import Planted
from tests.server import JudgeServer


def _audited(server: JudgeServer, tmp_path: Path, experiment: str) -> str:
    """``fairjudge audit`` of one experiment on 3 items against a planted judge; its stderr."""
    plant(server, Planted())
    args = [
        "audit", "--judge", "openai/scripted-judge", "--base-url", server.base_url,
        "--store", str(tmp_path / "store.sqlite"), "--bootstrap", "200", "--limit", "3",
        "--experiments", experiment,
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    return result.stderr


def test_the_framing_runs_planning_lines_name_the_basic_and_the_strict_run(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    stderr = _audited(audit_server, tmp_path, "framing")
    planned = [line for line in stderr.splitlines() if line.endswith("to make")]
    assert len(planned) == 2, stderr
    basic, strict = planned
    assert basic.startswith("fairjudge: framing, basic run (rubric basic): "), basic
    assert strict.startswith("fairjudge: framing, strict run (rubric strict): "), strict
    assert basic.split(": ", 2)[2] == strict.split(": ", 2)[2]  # the same calls, told apart


def test_each_of_verbositys_runs_names_its_answers_and_its_rubric_or_template(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    stderr = _audited(audit_server, tmp_path, "verbosity")
    planned = [line.split(": ")[1] for line in stderr.splitlines() if line.endswith("to make")]
    assert planned == [
        "verbosity, concise answers (rubric basic)",
        "verbosity, padded answers (rubric basic)",
        "verbosity, padded vs concise (template default)",
        "verbosity, list vs concise (template default)",
        "verbosity, concise answers (rubric anti-verbose)",
        "verbosity, padded answers (rubric anti-verbose)",
        "verbosity, padded vs concise (template concise)",
        "verbosity, list vs concise (template concise)",
    ], stderr
