"""SIGTERM stops a run as Ctrl-C does, and ``--json`` says either on stdout.

``docker stop``, Kubernetes, ``timeout`` and a CI cancel send SIGTERM: the run stops
with the Ctrl-C's line (the store that keeps every finished call, a batch left
running), exits 143, and with ``--json`` prints ``{"error": {"type": "Interrupted",
...}}``, as a Ctrl-C now does too. Each run is a real ``fairjudge`` process, signalled
once the server has seen its first requests; every wait has a timeout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli._invoke import ROOT
from tests.server import DEFAULT_API_KEY, JudgeServer, Script
from tests.server._batch_emulator import BatchServer, provider_batches

MAIN = "from fairjudge.cli import main; main()"
PAIRS = ROOT / "src" / "fairjudge" / "examples" / "demo_pairs.jsonl"
WAIT_S = 120  # far above what any step takes; only a hang reaches it


def _signalled(
    argv: list[str], folder: Path, ready: Callable[[], bool], signum: int
) -> tuple[int, str, str]:
    """Run the CLI with ``argv``, send ``signum`` once ``ready()``; exit code, stdout, stderr."""
    env = {**os.environ, "OPENAI_API_KEY": DEFAULT_API_KEY, "PYTHONPATH": str(ROOT / "src"),
           "COLUMNS": "400"}  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-c", MAIN, *argv], cwd=folder, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + WAIT_S
        while not ready():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run never got going"
            time.sleep(0.005)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        proc.kill()
    return proc.returncode, out, " ".join(err.split())


@pytest.mark.parametrize(
    ("signum", "code", "said"),
    [(signal.SIGTERM, 143, "interrupted by SIGTERM"), (signal.SIGINT, 130, "interrupted")],
)
def test_a_signal_stops_the_run_with_its_line_its_code_and_the_json_error(
    tmp_path: Path, signum: int, code: int, said: str
) -> None:
    store = tmp_path / "s.sqlite"
    argv = ["compare", str(PAIRS), "--judge", "openai/scripted", "--concurrency", "2",
            "--store", str(store), "--json"]  # fmt: skip
    with JudgeServer(Script(judge="longer", latency=0.2, api_key=DEFAULT_API_KEY)) as server:
        argv += ["--base-url", server.base_url]
        exit_code, out, err = _signalled(
            argv, tmp_path, lambda: server.count("requests") >= 4, signum
        )
    line = (
        f"{said}; every finished call is kept in the store {store}; run the same command "
        "again to make only the rest"
    )
    assert exit_code == code, err
    assert line in err
    error = json.loads(out)["error"]
    assert (error["type"], error["exit_code"]) == ("Interrupted", code)
    assert error["message"].startswith(f"{line}; of the ")  # and what the grace period kept


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchServer]:
    """OpenAI's chat emulator behind the batch emulator, with ``OPENAI_API_KEY`` set."""
    with provider_batches(monkeypatch) as running:
        yield running


def test_sigterm_while_a_batch_polls_says_the_batch_runs_on(
    batches: BatchServer, tmp_path: Path
) -> None:
    batches.configure_batches(delay_polls=10_000)
    argv = ["compare", str(PAIRS), "--judge", "openai/gpt-4o-mini", "--base-url",
            batches.base_url, "--store", str(tmp_path / "s.sqlite"), "--batch-api", "--wait",
            "--batch-poll", "0.01", "--json"]  # fmt: skip
    polled: Callable[[], bool] = lambda: batches.stats().get("batch_polls", 0) >= 3  # noqa: E731
    code, out, err = _signalled(argv, tmp_path, polled, signal.SIGTERM)
    assert code == 143, err
    error: dict[str, Any] = json.loads(out)["error"]
    assert (error["type"], error["exit_code"]) == ("Interrupted", 143)
    for text in (err, error["message"]):
        assert "interrupted by SIGTERM; every finished call is kept in the store" in text
        assert "keeps running at the provider" in text  # billed whether or not collected
        assert "run the same command again to collect it" in text
    assert batches.stats()["batches_created"] == 1


SECOND = """
import signal, time
from fairjudge.cli._app import _Interrupts

interrupts = _Interrupts()
for signum in (signal.SIGINT, signal.SIGTERM):
    signal.signal(signum, interrupts)
try:
    print("ready", flush=True)
    time.sleep(60)
except KeyboardInterrupt:
    print("first", flush=True)
    time.sleep(60)  # a clean-up that takes long: the second signal must not wait for it
print("not reached", flush=True)
"""


def test_a_second_sigterm_exits_143_at_once() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", SECOND], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        child.send_signal(signal.SIGTERM)
        assert child.stdout.readline() == "first\n"  # the first is a KeyboardInterrupt
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=30)  # the clean-up sleeps 60 s
    finally:
        child.kill()
    assert child.returncode == 143
    assert err == "interrupted again: stopping now; every finished call is kept in the store\n"
    assert "not reached" not in out
