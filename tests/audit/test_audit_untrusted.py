"""`fairjudge audit` exits 0 only when its figures stand (QA41b #12).

A judge that says "A" to every prompt gives no usable score: every pointwise call
fails to parse, and every effect of a small audit is "not estimable". That audit
exited 0, which the exit-code table reads as "the figures can be trusted".
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.server import JudgeServer

runner = CliRunner()


def _audit(server: JudgeServer, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    server.configure(judge=lambda pair: "A", reply_format="{verdict}")
    base = [
        "audit", "--judge", "openai/scripted-judge", "--base-url", server.base_url,
        "--store", str(tmp_path / "store.sqlite"), "--quiet", "--bootstrap", "200",
    ]  # fmt: skip
    result = runner.invoke(app, [*base, *args])
    return result.exit_code, result.stdout, result.stderr


def test_nothing_estimable_and_unusable_replies_exit_4(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    args = ("--limit", "1", "--experiments", "position,verbosity,framing")
    code, stdout, stderr = _audit(audit_server, tmp_path, *args)
    assert code == 4, stderr
    assert "not trusted: no effect could be estimated" in stderr
    assert "calls gave no usable reply" in stderr
    assert "> --max-unresolved 0.2); the reasons are listed above" in stderr
    code, stdout, stderr = _audit(audit_server, tmp_path, *args, "--json")
    assert code == 4, stderr
    payload = json.loads(stdout)
    assert payload["untrusted"].startswith("no effect could be estimated")
    assert 'the reasons are under "experiments"' in stderr


def test_unusable_replies_over_the_limit_exit_4_even_with_figures(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    args = ("--limit", "6", "--experiments", "position,verbosity")
    code, _, stderr = _audit(audit_server, tmp_path, *args)
    assert code == 4, stderr
    assert "no effect could be estimated" not in stderr  # position is estimable
    assert "calls gave no usable reply" in stderr
    code, _, stderr = _audit(audit_server, tmp_path, *args, "--max-unresolved", "1")
    assert code == 0, stderr  # the user accepts them: position's figures stand


def test_a_bad_max_unresolved_is_refused(audit_server: JudgeServer, tmp_path: Path) -> None:
    code, _, stderr = _audit(audit_server, tmp_path, "--max-unresolved", "2")
    assert code == 2
    assert "--max-unresolved must be in [0, 1]" in stderr
    assert audit_server.count("requests") == 0
