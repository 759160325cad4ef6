"""Kill `fairjudge compare` with SIGKILL mid-run; the rerun repeats no finished call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli._kill import kill_after_requests
from tests.server import DEFAULT_API_KEY, JudgeServer, Script

pytest.importorskip("fairjudge.backends._openai")

REPO = Path(__file__).resolve().parents[2]
N_ITEMS = 120  # x 2 orders = 240 unique calls
CONCURRENCY = 8
CLI = "from fairjudge.cli import main; main()"


def _items(path: Path) -> Path:
    rows = [
        {"id": str(i), "question": f"q{i}?", "answer_1": "short", "answer_2": f"longer answer {i}"}
        for i in range(N_ITEMS)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _compare(tmp_path: Path, base_url: str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-c",
        CLI,
        "compare",
        str(_items(tmp_path / "items.jsonl")),
        "--judge",
        "openai/scripted-judge",
        "--base-url",
        base_url,
        "--store",
        str(tmp_path / "store.sqlite"),
        "--concurrency",
        str(CONCURRENCY),
        "--json",
        *extra,
    ]


def _env(key: str) -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": key, "PYTHONPATH": str(REPO)}


def _no_key_in(tmp_path: Path, *texts: str, key: str = DEFAULT_API_KEY) -> None:
    for path in tmp_path.iterdir():
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path.name
    for text in texts:
        assert key not in text


@pytest.mark.slow
def test_sigkill_then_resume_repeats_no_finished_call(tmp_path: Path) -> None:
    with JudgeServer(Script(judge="longer", latency=0.02)) as server:
        killed_at = kill_after_requests(
            _compare(tmp_path, server.base_url, "--quiet"),
            server,
            80,
            env=_env(DEFAULT_API_KEY),
            cwd=REPO,
        )
        assert killed_at < 2 * N_ITEMS

        out = tmp_path / "results.jsonl"
        rerun = subprocess.run(
            _compare(tmp_path, server.base_url, "--out", str(out)),
            cwd=REPO,
            env=_env(DEFAULT_API_KEY),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert rerun.returncode == 0, rerun.stderr
        summary = json.loads(rerun.stdout)
        assert summary["win_rate"]["losses"] == N_ITEMS  # the longer answer 2 always wins
        # Only the calls in flight at the kill may have been made twice.
        assert server.count("requests") <= 2 * N_ITEMS + CONCURRENCY
        assert summary["calls"]["cached"] >= killed_at - CONCURRENCY

        again = subprocess.run(
            _compare(tmp_path, server.base_url, "--quiet"),
            cwd=REPO,
            env=_env(DEFAULT_API_KEY),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["calls"]["made"] == 0
        total = server.count("requests")
    assert total <= 2 * N_ITEMS + CONCURRENCY
    _no_key_in(tmp_path, rerun.stdout, rerun.stderr, again.stdout, again.stderr)


@pytest.mark.slow
def test_wrong_key_fails_fast_without_leaking_it(tmp_path: Path) -> None:
    wrong = "sk-wrong-key-0123456789abcdefXYZ"
    with JudgeServer(Script(judge="longer")) as server:
        result = subprocess.run(
            _compare(tmp_path, server.base_url, "--quiet"),
            cwd=REPO,
            env=_env(wrong),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 1
        assert "401" in result.stderr or "auth" in result.stderr.lower()
        # Stopped at once: no retries, nothing started after the first rejection.
        assert server.count("unauthorized") <= CONCURRENCY
    _no_key_in(tmp_path, result.stdout, result.stderr, key=wrong)
