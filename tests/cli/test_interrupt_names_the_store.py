"""Ctrl-C on a model judge names the store that keeps the finished calls, and the way on.

A slow judge (a test server on 127.0.0.1 that waits before each reply) is
interrupted with SIGINT once a few requests reached it, as a user's Ctrl-C would.
The line must say which store holds the calls and that the same command, run again,
makes only the rest; the rerun then makes no call the store already holds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.server import DEFAULT_API_KEY, JudgeServer, Script

ROOT = Path(__file__).resolve().parents[2]
CLI = "from fairjudge.cli import main; main()"
N_ITEMS = 40  # x 2 orders = 80 calls


def _items(folder: Path) -> Path:
    rows = [{"id": str(i), "question": f"q{i}?", "answer_1": "a long answer here",
             "answer_2": "short"} for i in range(N_ITEMS)]  # fmt: skip
    path = folder / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": DEFAULT_API_KEY, "PYTHONPATH": str(ROOT),
            "COLUMNS": "400"}  # fmt: skip


def _interrupted(server: JudgeServer, folder: Path, *flags: str) -> tuple[int, str]:
    """Run compare in ``folder``, SIGINT it once 4 requests came in; its exit code and stderr."""
    argv = [sys.executable, "-c", CLI, "compare", str(_items(folder)), "--judge",
            "openai/scripted", "--base-url", server.base_url, "--concurrency", "2",
            *flags]  # fmt: skip
    proc = subprocess.Popen(argv, env=_env(), cwd=folder, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while server.count("requests") < 4:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run made no request"
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    return proc.returncode, " ".join(err.split())


def test_ctrl_c_names_the_given_store_and_says_to_run_the_command_again(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with JudgeServer(Script(judge="longer", latency=0.2, api_key=DEFAULT_API_KEY)) as server:
        code, err = _interrupted(server, tmp_path, "--store", str(store))
        answered = server.count("requests")
        assert code == 130, err
        assert (
            f"interrupted; every finished call is kept in the store {store}; run the same "
            "command again to make only the rest"
        ) in err
        rerun = subprocess.run(
            [sys.executable, "-c", CLI, "compare", str(tmp_path / "items.jsonl"), "--judge",
             "openai/scripted", "--base-url", server.base_url, "--store", str(store), "--json"],
            env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert rerun.returncode == 0, rerun.stderr
    calls = json.loads(rerun.stdout)["calls"]
    assert calls["cached"] > 0  # what finished before Ctrl-C was not made again
    assert calls["made"] + calls["cached"] == 2 * N_ITEMS
    assert calls["made"] >= 2 * N_ITEMS - answered


def test_ctrl_c_without_store_names_the_default_store(tmp_path: Path) -> None:
    with JudgeServer(Script(judge="longer", latency=0.2, api_key=DEFAULT_API_KEY)) as server:
        code, err = _interrupted(server, tmp_path)
    assert code == 130, err
    assert f"kept in the store {Path('.fairjudge') / 'store.sqlite'}; run the same command" in err


def test_the_second_ctrl_c_names_the_store_of_the_command_running() -> None:
    from fairjudge.cli import _app

    try:
        _app._running_store(Path("runs/s.sqlite"))
        assert (
            _app._again()
            == (
                f"interrupted again: stopping now; every finished call is kept in the store "
                f"{Path('runs/s.sqlite')}; run the same command again to make only the rest\n"
            ).encode()
        )
    finally:
        _app._STORE.clear()
    assert _app._again() == _app._AGAIN  # no command named a store: the promise alone
