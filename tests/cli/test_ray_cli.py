"""The commands on Ray (``--executor ray --ray-address``), end to end (issue 23).

One two-node Ray cluster on loopback serves the whole module; each run is a
``fairjudge`` process that joins it, as a user's driver joins a cluster. Against the
scripted judge server (in this process, on 127.0.0.1, which the Ray workers reach
too):

- the ``--json`` of ``compare``, ``score`` and ``jury`` on Ray equals the asyncio
  run's, less the timings (``calls``, a panel member's mean latency);
- a driver killed with SIGKILL mid-run and run again gives the uninterrupted run's
  ``--json``, paying again only the calls that were in flight;
- Ctrl-C (SIGINT) exits 130, and every call finished before it is kept in the store.

Ray binds the machine's external address unless it runs where only loopback
exists, so these tests run only in a network namespace with nothing but ``lo``
(``make test`` puts pytest in one when it runs as root); elsewhere they skip and
say how to run them.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli._kill import kill_after_requests
from tests.runner._ray_cluster import two_node_cluster
from tests.server import DEFAULT_API_KEY, JudgeServer, Script

REPO = Path(__file__).resolve().parents[2]
CLI = "from fairjudge.cli import main; main()"
THESE = "tests/cli/test_ray_cli.py"
EXAMPLES = REPO / "src" / "fairjudge" / "examples"
N_ITEMS = 150  # x 2 orders = 300 calls
CONCURRENCY = 8


@pytest.fixture(scope="module")
def cluster_address() -> Iterator[str]:
    """A head and one more node, 1 CPU each, no dashboard: its address, for --ray-address."""
    # The workers read the key from their own environment (it never travels): set it
    # before the nodes start, as it is set where `ray start` runs on a real cluster.
    clusters = two_node_cluster(THESE, "OPENAI_API_KEY", DEFAULT_API_KEY)
    cluster = next(clusters)
    try:
        yield cluster.address
    finally:
        clusters.close()  # shuts the cluster down and puts the key's variable back


def _items(folder: Path) -> Path:
    # The scripted judge prefers the longer answer: model 1 wins 3 questions in 5.
    rows = [
        {"id": str(i), "question": f"q{i}?",
         "answer_1": "a long answer here" if i % 5 < 3 else "short",
         "answer_2": "short" if i % 5 < 3 else "a long answer here"}
        for i in range(N_ITEMS)
    ]  # fmt: skip
    path = folder / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _argv(command: str, source: Path, base_url: str, store: Path, *extra: str) -> list[str]:
    judges = ["--judge", "openai/scripted"]
    if command == "jury":
        judges += ["--judge", "openai/second"]
    return [
        sys.executable, "-c", CLI, command, str(source), *judges, "--base-url", base_url,
        "--store", str(store), "--concurrency", str(CONCURRENCY), "--json", "--quiet", *extra,
    ]  # fmt: skip


def _env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": DEFAULT_API_KEY, "PYTHONPATH": str(REPO)}


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, env=_env(), cwd=REPO, timeout=300)


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The ``--json`` less what differs between any two runs: the timings."""
    assert done.returncode in (0, 4), done.stderr
    payload = json.loads(done.stdout)
    payload.pop("calls")
    for member in payload.get("members", []):
        member["usage"].pop("mean_latency_s")
    return payload


def _score_items(folder: Path) -> Path:
    rows = [{"id": str(i), "question": f"q{i}?", "answer": f"answer {i % 5}"} for i in range(40)]
    path = folder / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _scores(prompt: str) -> str:
    """A reply to a production-rubric prompt: the same scores for the same answer."""
    level = 1 + sum(map(ord, prompt)) % 5
    names = ("accuracy", "relevance", "usefulness")
    return json.dumps({name: level for name in names})


@pytest.mark.slow
@pytest.mark.parametrize("command", ["compare", "score", "jury"])
def test_the_json_on_ray_equals_the_asyncio_runs(
    command: str, cluster_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = Script(judge="longer", latency=0.005, api_key=DEFAULT_API_KEY)
    if command == "score":
        from tests.server import Pair

        monkeypatch.setattr("tests.server._app.extract_pair", lambda p: Pair(p, "", ""))
        script = Script(judge=lambda pair: _scores(pair.question), reply_format="{verdict}",
                        api_key=DEFAULT_API_KEY)  # fmt: skip
    source = _score_items(tmp_path) if command == "score" else _items(tmp_path)
    with JudgeServer(script) as server:
        on_asyncio = _json(_run(_argv(command, source, server.base_url, tmp_path / "a.sqlite")))
        asked = server.count("requests")
        on_ray = _run(_argv(command, source, server.base_url, tmp_path / "r.sqlite",
                            "--executor", "ray", "--ray-address", cluster_address))  # fmt: skip
        assert on_ray.returncode in (0, 4), on_ray.stderr
        assert server.count("requests") == 2 * asked  # every call made once on each
    assert _json(on_ray) == on_asyncio
    assert json.loads(on_ray.stdout)["calls"]["made"] == asked
    if command == "score":
        assert on_asyncio["n_items"] == 40
        assert on_asyncio["n_unscored"] == 0


@pytest.mark.slow
def test_a_driver_killed_mid_run_resumes_to_the_uninterrupted_result(
    cluster_address: str, tmp_path: Path
) -> None:
    source = _items(tmp_path)
    ray = ("--executor", "ray", "--ray-address", cluster_address)
    killed = tmp_path / "killed.sqlite"
    with JudgeServer(Script(judge="longer", latency=0.02, api_key=DEFAULT_API_KEY)) as server:
        fresh = _json(_run(_argv("compare", source, server.base_url, tmp_path / "fresh.sqlite")))
        server.reset()
        argv = _argv("compare", source, server.base_url, killed, *ray)
        at_kill = kill_after_requests(argv, server, 100, env=_env(), cwd=REPO)
        resumed = _run(argv)
        total = server.count("requests")
    assert _json(resumed) == fresh
    made = json.loads(resumed.stdout)["calls"]["made"]
    # The killed run's finished calls came from the store; only those in flight at the
    # kill (at most --concurrency) were paid twice.
    assert made <= 2 * N_ITEMS - at_kill + CONCURRENCY
    assert total <= 2 * N_ITEMS + CONCURRENCY


@pytest.mark.slow
def test_ctrl_c_exits_130_and_keeps_every_finished_call(
    cluster_address: str, tmp_path: Path
) -> None:
    source = _items(tmp_path)
    store = tmp_path / "s.sqlite"
    ray = ("--executor", "ray", "--ray-address", cluster_address)
    with JudgeServer(Script(judge="longer", latency=0.05, api_key=DEFAULT_API_KEY)) as server:
        argv = _argv("compare", source, server.base_url, store, *ray)
        proc = subprocess.Popen(argv, env=_env(), cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
        deadline = time.monotonic() + 120
        while server.count("requests") < 60:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.005)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        answered = server.count("requests")
        assert proc.returncode == 130, err
        assert answered < 2 * N_ITEMS, "the run finished before Ctrl-C reached it"
        # The rest, on asyncio: every call answered before the interrupt is in the store.
        rest = _run(_argv("compare", source, server.base_url, store))
    made = json.loads(rest.stdout)["calls"]["made"]
    assert made <= 2 * N_ITEMS - answered + CONCURRENCY


FAIRJUDGE_LINE = re.compile(r"^(fairjudge: \d+ calls: |fairjudge: done: |next: `fairjudge )")
"""The shapes of what ``compare`` prints on stderr: its progress, summary and next step."""


@pytest.mark.slow
def test_a_run_on_a_local_ray_prints_only_fairjudges_lines(
    cluster_address: str, tmp_path: Path
) -> None:
    # No --ray-address: a local Ray starts for the run and stops with it, though the
    # module's cluster runs (and /tmp/ray names it). Not --quiet: the progress shows.
    source = _items(tmp_path)
    with JudgeServer(Script(judge="longer", latency=0.005, api_key=DEFAULT_API_KEY)) as server:
        argv = _argv("compare", source, server.base_url, tmp_path / "s.sqlite", "--executor", "ray")
        argv.remove("--quiet")
        done = _run(argv)
        assert server.count("requests") == 2 * N_ITEMS
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines, "the progress and the summary go to stderr"
    for line in lines:  # Ray's own lines: "[... W ...] network_util.cc:330: ...", "INFO ..."
        assert FAIRJUDGE_LINE.match(line), line
        assert not any(mark in line for mark in ("ray", ".cc:", "WARNING", "INFO")), line
    assert any(line.startswith("fairjudge: done: ") for line in lines)
    assert json.loads(done.stdout)["calls"]["made"] == 2 * N_ITEMS


def test_a_ray_address_where_no_cluster_answers_is_a_usage_error_naming_the_flag(
    tmp_path: Path,
) -> None:
    pytest.importorskip("ray")
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{probe.getsockname()[1]}"
    source = _items(tmp_path)
    with JudgeServer(Script(judge="longer", api_key=DEFAULT_API_KEY)) as server:
        done = _run(_argv("compare", source, server.base_url, tmp_path / "s.sqlite",
                          "--executor", "ray", "--ray-address", closed))  # fmt: skip
        assert server.count("requests") == 0
    assert done.returncode == 2, done.stderr
    message = json.loads(done.stdout)["error"]["message"]
    assert message.startswith(f"--ray-address '{closed}': no Ray cluster answers at {closed}")
    assert "Check that the cluster is up" in message
    assert message in " ".join(done.stderr.split())  # the same line on stderr
