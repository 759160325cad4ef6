"""A ``python:`` judge that raises SystemExit or KeyboardInterrupt stops the run: exit 1, no hang.

Before, the judge's ``SystemExit`` killed the engine's event loop and the command
waited for ever (Ctrl-C could not stop it). Each run here is a real ``fairjudge``
process with a timeout, so a hang fails the test instead of the CI job.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli._invoke import ROOT

OWN = "python:tests.judges.exiting_judges:"
MAIN = "from fairjudge.cli import main; main()"
WAIT_S = 120  # far above what a run takes; only a hang reaches it


def _pairs(folder: Path, n: int) -> Path:
    path = folder / "pairs.jsonl"
    rows = [{"id": str(i), "question": f"q{i}", "answer_1": "short",
             "answer_2": "a longer answer"} for i in range(n)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _compare(
    folder: Path, judge: str, env: dict[str, str], *flags: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", MAIN, "compare", str(folder / "pairs.jsonl"), "--judge",
         OWN + judge, "--store", str(folder / "s.sqlite"), "--json", *flags],
        cwd=ROOT, env={**os.environ, "COLUMNS": "400", **env}, capture_output=True, text=True,
        timeout=WAIT_S,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("judge", "raised"),
    [
        ("exits", "SystemExit(3)"),
        ("interrupts", "KeyboardInterrupt()"),
        ("async_exits", "SystemExit('gateway config missing')"),
    ],
)
def test_a_judge_that_exits_stops_the_run_with_exit_1_naming_it(
    tmp_path: Path, judge: str, raised: str
) -> None:
    _pairs(tmp_path, 4)
    run = _compare(tmp_path, judge, {})
    assert run.returncode == 1, run.stderr  # not the judge's 3, not a Ctrl-C's 130
    said = " ".join(run.stderr.split())
    assert f"judging failed: the judge {OWN}{judge} raised {raised} in a call" in said
    assert "Traceback" not in run.stderr
    error = json.loads(run.stdout)["error"]
    assert error["exit_code"] == 1
    assert f"{OWN}{judge} raised {raised}" in error["message"]


def test_the_calls_finished_before_the_judge_exited_are_kept(tmp_path: Path) -> None:
    _pairs(tmp_path, 8)
    counted = tmp_path / "calls"
    env = {"FAIRJUDGE_TEST_CALLS": str(counted), "FAIRJUDGE_TEST_EXIT_ON": "q5"}
    first = _compare(tmp_path, "exits", env, "--concurrency", "1")
    assert first.returncode == 1, first.stderr
    answered = len(counted.read_text(encoding="utf-8").splitlines())
    assert answered > 0
    rerun = _compare(tmp_path, "exits", {**env, "FAIRJUDGE_TEST_EXIT_ON": "none"})
    assert rerun.returncode == 0, rerun.stderr
    calls = json.loads(rerun.stdout)["calls"]
    assert calls["cached"] == answered  # every answer given before the exit was stored
    assert calls["made"] == 16 - answered


def _path() -> str:
    """``$PYTHONPATH`` with the repository added, so that ``tests.`` imports from elsewhere."""
    return os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)]))


def test_a_judge_module_that_exits_at_import_is_a_usage_error(tmp_path: Path) -> None:
    _pairs(tmp_path, 2)
    (tmp_path / "exits_at_import.py").write_text(
        'import sys\nsys.exit("config missing: set ACME_URL")\n', encoding="utf-8"
    )
    run = subprocess.run(
        [sys.executable, "-c", MAIN, "compare", "pairs.jsonl", "--judge",
         "python:exits_at_import:judge", "--json"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": _path(), "COLUMNS": "400"},
        capture_output=True, text=True, timeout=WAIT_S,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr  # before any call, as any other import failure
    said = (
        "cannot import module 'exits_at_import' for judge 'python:exits_at_import:judge': "
        "SystemExit: config missing: set ACME_URL"
    )
    assert f"error: {said}" in " ".join(run.stderr.split())
    assert json.loads(run.stdout)["error"] == {
        "type": "ConfigError", "message": said, "exit_code": 2,
    }  # fmt: skip
    assert not (tmp_path / ".fairjudge").exists()  # no store opened: no call was made
