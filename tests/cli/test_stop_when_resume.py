"""Kill `compare --stop-when` with SIGKILL mid-run: the resume gives the uninterrupted result.

Issue 24: a stopped or killed adaptive run is a real result. The questions are drawn
in a seeded order and every finished call is in the store, so a rerun replays the
judged batches from the store and goes on; its result must be the one a run that was
never killed gives, and only the calls in flight at the kill may be paid twice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli._kill import kill_after_requests
from tests.server import DEFAULT_API_KEY, JudgeServer, Script

pytest.importorskip("fairjudge.backends._openai")

REPO = Path(__file__).resolve().parents[2]
N_ITEMS = 160  # x 2 orders = 320 calls for the whole file
CONCURRENCY = 8
CLI = "from fairjudge.cli import main; main()"


def _items(path: Path) -> Path:
    # The scripted judge prefers the longer answer: model 1 wins 3 questions in 5.
    rows = [
        {
            "id": str(i),
            "question": f"q{i}?",
            "answer_1": "a long answer here" if i % 5 < 3 else "short",
            "answer_2": "short" if i % 5 < 3 else "a long answer here",
        }
        for i in range(N_ITEMS)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _compare(folder: Path, base_url: str, *extra: str) -> list[str]:
    items = folder.parent / "items.jsonl"  # one file for both runs: the source is the same
    if not items.exists():
        _items(items)
    return [
        sys.executable, "-c", CLI, "compare", str(items),
        "--judge", "openai/scripted-judge", "--base-url", base_url,
        "--store", str(folder / "store.sqlite"), "--concurrency", str(CONCURRENCY),
        "--stop-when", "width:0.14", "--json", *extra,
    ]  # fmt: skip


def _env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": DEFAULT_API_KEY, "PYTHONPATH": str(REPO)}


def _result(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The --json without what differs by design between a fresh run and a resumed one."""
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    payload.pop("calls")
    payload["adaptive"].pop("calls")
    payload.pop("source", None)
    return payload


@pytest.mark.slow
def test_a_killed_adaptive_run_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    killed, fresh = tmp_path / "killed", tmp_path / "fresh"
    killed.mkdir()
    fresh.mkdir()
    with JudgeServer(Script(judge="longer", latency=0.02)) as server:
        killed_at = kill_after_requests(
            _compare(killed, server.base_url, "--quiet"), server, 60, env=_env(), cwd=REPO
        )

        def run(folder: Path) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                _compare(folder, server.base_url, "--quiet"),
                cwd=REPO, env=_env(), capture_output=True, text=True, timeout=300,
            )  # fmt: skip

        resumed = run(killed)
        resumed_calls = json.loads(resumed.stdout)["adaptive"]["calls"]
        paid = server.count("requests")
        uninterrupted = run(fresh)
        fresh_calls = json.loads(uninterrupted.stdout)["adaptive"]["calls"]

    result = _result(resumed)
    assert result["adaptive"]["reason"] == "width"
    assert result["adaptive"]["stopped_early"] is True  # the test is about a run that stops
    assert result == _result(uninterrupted)
    # The resume used the same calls as the uninterrupted run, reading the killed run's
    # finished calls from the store: only the calls in flight at the kill were paid twice.
    assert resumed_calls["used"] == fresh_calls["used"]
    assert killed_at < fresh_calls["used"]  # killed before the run would have stopped
    assert resumed_calls["used"] - resumed_calls["new"] >= killed_at - CONCURRENCY
    assert paid <= resumed_calls["used"] + CONCURRENCY
