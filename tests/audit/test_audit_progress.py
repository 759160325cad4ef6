"""`fairjudge audit`'s progress lines say which run of an experiment each one is."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.audit.conftest import plant
from tests.audit.planted import Planted
from tests.server import JudgeServer


def test_the_framing_runs_planning_lines_name_the_basic_and_the_strict_run(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    plant(audit_server, Planted())
    args = [
        "audit", "--judge", "openai/scripted-judge", "--base-url", audit_server.base_url,
        "--store", str(tmp_path / "store.sqlite"), "--bootstrap", "200", "--limit", "3",
        "--experiments", "framing",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    planned = [line for line in result.stderr.splitlines() if line.endswith("to make")]
    assert len(planned) == 2, result.stderr
    basic, strict = planned
    assert basic.startswith("fairjudge: framing, basic run (rubric basic): "), basic
    assert strict.startswith("fairjudge: framing, strict run (rubric strict): "), strict
    assert basic.split(": ", 2)[2] == strict.split(": ", 2)[2]  # the same calls, told apart
