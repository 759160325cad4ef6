"""``--batch-api`` on every judging command, against the batch emulators on 127.0.0.1.

Each command's ``--json`` through a batch equals its online ``--json`` (run facts
aside: wall time and money); a run without ``--wait`` exits 8 and the same command
collects; a run SIGKILLed while it polls resumes the same batch and submits nothing
twice; bad combinations are usage errors before any call.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.cli._invoke import ROOT, invoke
from tests.server import Pair
from tests.server._batch_emulator import BatchServer, provider_batches

EXAMPLES = ROOT / "src" / "fairjudge" / "examples"
PAIRS = EXAMPLES / "demo_pairs.jsonl"
ANSWERS = EXAMPLES / "score_answers.jsonl"
MODEL, SECOND = "openai/gpt-4o-mini", "openai/gpt-4o"
BATCH = ["--batch-api", "--wait", "--batch-poll", "0.01"]


def _commands(*more: str) -> dict[str, list[str]]:
    """Each command the batch API serves, with the flags ``more``."""
    two = ["--judge", MODEL, "--judge", SECOND]
    return {
        "compare": ["compare", str(PAIRS), "--judge", MODEL, *more],
        "score": ["score", str(ANSWERS), "--judge", MODEL, *more],
        "jury": ["jury", str(PAIRS), *two, *more],
        "score-jury": ["score-jury", str(ANSWERS), *two, *more],
        "audit": ["audit", "--limit", "2", "--experiments", "position", "--judge", MODEL, *more],
        "rank": ["rank", str(EXAMPLES / "rank_answers.jsonl"), "--judge", MODEL, *more],
        "calibrate": ["calibrate", str(EXAMPLES / "calibration.jsonl"), "--judge", MODEL, *more],
        "compare --via-scores": ["compare", str(PAIRS), "--via-scores", "--judge", MODEL, *more],
    }


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchServer]:
    """OpenAI's chat emulator behind the batch emulator, with ``OPENAI_API_KEY`` set."""
    with provider_batches(monkeypatch) as running:
        yield running


def _facts_aside(stdout: str) -> dict[str, Any]:
    """A command's JSON without what differs by design: wall time and money."""
    data = json.loads(stdout)

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: strip(v)
                for k, v in value.items()
                if k not in ("wall_s", "cost_usd", "cache_saved_usd", "mean_latency_s")
            }
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(data)  # type: ignore[no-any-return]


@pytest.mark.parametrize("command", sorted(_commands()))
def test_every_command_gives_the_online_json_through_the_batch_api(
    command: str, server: BatchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "score" in command:  # the rubric scorer reads the whole prompt
        monkeypatch.setattr("tests.server._app.extract_pair", lambda p: Pair(p, "", ""))
    outputs = []
    for name, batch in (("online", []), ("batch", BATCH)):
        argv = _commands("--base-url", server.base_url, "--json", "--quiet",
                         "--store", str(tmp_path / f"{name}.sqlite"), *batch)[command]  # fmt: skip
        done = invoke(*argv)
        assert done.exit_code in (0, 3, 4), done.output  # 3: calibrate's gate, 4: unresolved
        outputs.append((done.exit_code, _facts_aside(done.stdout)))
        if name == "online":
            online_requests = server.stats()["requests"]
            server.reset()
    assert outputs[1] == outputs[0]
    stats = server.stats()
    assert stats["batch_requests"] == online_requests > 0
    assert stats["batches_created"] >= 1
    assert stats.get("batch_refused", 0) == 0


def test_without_wait_it_exits_8_and_the_same_command_collects(
    server: BatchServer, tmp_path: Path
) -> None:
    server.configure_batches(delay_polls=1)
    store = str(tmp_path / "s.sqlite")
    argv = _commands("--base-url", server.base_url, "--json", "--store", store,
                     "--batch-api", "--batch-poll", "0.01")["compare"]  # fmt: skip
    first = invoke(*argv)
    assert first.exit_code == 8, first.output
    error = json.loads(first.stdout)["error"]
    assert error["type"] == "BatchPending"
    assert error["exit_code"] == 8
    assert "run the same command again" in error["message"]
    assert "--wait to poll until they end" in error["message"]
    second = invoke(*argv)
    assert second.exit_code == 0, second.output
    assert json.loads(second.stdout)["n_items"] == 20
    stats = server.stats()
    assert (stats["batches_created"], stats["batch_requests"]) == (1, 40)
    assert "completed (total 40, completed 40, failed 0)" in second.stderr


def test_an_online_run_never_pays_again_for_calls_in_an_uncollected_batch(
    server: BatchServer, tmp_path: Path
) -> None:
    server.configure_batches(delay_polls=1)
    store = str(tmp_path / "s.sqlite")
    online = _commands("--base-url", server.base_url, "--store", store)["compare"]
    assert invoke(*online, "--batch-api").exit_code == 8  # submitted, not collected
    server.reset()
    refused = invoke(*online)  # the same calls online, while the batch runs
    assert refused.exit_code == 2, refused.output
    said = " ".join(refused.stderr.split())
    assert "40 of this run's calls are in a provider batch" in said
    assert "would pay for them twice" in said
    assert "submitted by an earlier --batch-api run and not collected yet" in said
    assert "run the same command with --batch-api to collect them (add --wait" in said
    assert "BatchExecutor" not in said
    assert server.stats().get("requests", 0) == 0  # nothing paid online
    collected = invoke(*online, "--batch-api", "--wait", "--batch-poll", "0.01")
    assert collected.exit_code == 0, collected.output
    assert (server.stats()["batch_requests"], server.stats().get("batches_created", 0)) == (40, 0)


def test_a_run_killed_while_polling_resumes_the_same_batch(
    server: BatchServer, tmp_path: Path
) -> None:
    server.configure_batches(delay_polls=10_000)
    store = tmp_path / "s.sqlite"
    argv = [sys.executable, "-c", "from fairjudge.cli import main; main()", *_commands(
        "--base-url", server.base_url, "--json", "--quiet", "--store", str(store), *BATCH
    )["compare"]]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while server.stats().get("batch_polls", 0) < 3:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the run never polled"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert server.stats()["batches_created"] == 1
    assert server.stats().get("batch_requests", 0) == 0  # killed while in progress
    server.configure_batches(delay_polls=0)
    done = invoke(*argv[3:])
    assert done.exit_code == 0, done.output
    stats = server.stats()
    assert (stats["batches_created"], stats["files_uploaded"], stats["batch_requests"]) == (
        1,
        1,
        40,
    )
    assert json.loads(done.stdout)["calls"]["made"] == 40
    again = invoke(*argv[3:])  # every call in the store now: no batch, no request
    assert again.exit_code == 0
    assert server.stats()["batches_created"] == 1
    assert json.loads(again.stdout)["calls"]["cached"] == 40


def test_ctrl_c_while_polling_says_the_batch_runs_on_and_how_to_collect_it(
    server: BatchServer, tmp_path: Path
) -> None:
    server.configure_batches(delay_polls=10_000)
    argv = [sys.executable, "-c", "from fairjudge.cli import main; main()", *_commands(
        "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"), *BATCH
    )["compare"]]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while server.stats().get("batch_polls", 0) < 3:
            assert proc.poll() is None, "the run ended before it could be interrupted"
            assert time.monotonic() < deadline, "the run never polled"
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    said = " ".join(stderr.split())  # the terminal wraps long lines
    assert "interrupted; every finished call is kept in the store" in said
    assert "keeps running at the provider" in said  # billed whether or not it is collected
    assert "run the same command again to collect it" in said
    assert server.stats()["batches_created"] == 1


def test_a_budget_stop_says_a_batch_is_committed_money(server: BatchServer, tmp_path: Path) -> None:
    argv = _commands("--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
                     "--price-input", "1", "--price-output", "1", "--max-cost", "0.0005",
                     *BATCH)["compare"]  # fmt: skip
    done = invoke(*argv)
    assert done.exit_code == 5, done.output
    assert "A submitted batch is committed money" in done.output
    assert "--max-cost was held against the estimate" in done.output
    assert 0 < server.stats()["batch_requests"] < 40


def test_a_calls_budget_stop_names_only_its_own_budget(server: BatchServer, tmp_path: Path) -> None:
    argv = _commands("--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
                     "--max-calls", "10", *BATCH)["compare"]  # fmt: skip
    done = invoke(*argv)
    assert done.exit_code == 5, done.output
    assert "the --max-calls 10 budget is spent" in done.output
    assert "--max-cost" not in done.output  # no cost budget was given, so none was held
    assert server.stats()["batch_requests"] == 10


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--judge", "local/qwen", "--batch-api"], "local/qwen has none"),
        (["--judge", "python:fairjudge.examples.judges:longer", "--batch-api"], "has none"),
        (["--judge", MODEL, "--wait"], "--wait applies with --batch-api only"),
        (["--judge", MODEL, "--batch-poll", "5"], "--batch-poll applies with --batch-api only"),
        (["--judge", MODEL, "--batch-api", "--executor", "ray"], "give one"),
        (["--judge", MODEL, "--batch-api", "--batch-poll", "0"], "--batch-poll must be > 0"),
    ],
)
def test_bad_batch_flags_are_usage_errors_before_any_call(
    flags: list[str], says: str, server: BatchServer, tmp_path: Path
) -> None:
    done = invoke("compare", str(PAIRS), "--base-url", server.base_url,
                  "--store", str(tmp_path / "s.sqlite"), *flags)  # fmt: skip
    assert done.exit_code == 2, done.output
    assert says in done.output
    assert server.stats().get("requests", 0) == 0
    assert server.stats().get("files_uploaded", 0) == 0


def test_a_jury_member_without_a_batch_api_is_refused_before_any_call(
    server: BatchServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    done = invoke("jury", str(PAIRS), "--judge", MODEL, "--judge", "local/gemma-3-270m",
                  "--store", str(tmp_path / "s.sqlite"), "--batch-api")  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "--batch-api needs a judge with a batch API" in done.output
    assert "local/gemma-3-270m" in done.output
    assert server.stats().get("files_uploaded", 0) == 0
    assert server.stats().get("requests", 0) == 0


def test_an_anthropic_judge_through_message_batches_gives_the_online_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with provider_batches(monkeypatch, "anthropic") as running:
        outputs = []
        for name, batch in (("online", []), ("batch", BATCH)):
            done = invoke("compare", str(PAIRS), "--judge", "anthropic/claude-3-5-haiku-latest",
                          "--base-url", running.root, "--json", "--quiet",
                          "--store", str(tmp_path / f"{name}.sqlite"), *batch)  # fmt: skip
            assert done.exit_code == 0, done.output
            outputs.append(json.loads(done.stdout))
        stats = running.stats()
    assert _facts_aside(json.dumps(outputs[1])) == _facts_aside(json.dumps(outputs[0]))
    assert outputs[1]["calls"]["cost_usd"] == pytest.approx(outputs[0]["calls"]["cost_usd"] / 2)
    assert (stats["batches_created"], stats["batch_requests"]) == (1, 40)


def test_a_staged_audit_without_wait_finishes_and_submits_each_call_once(
    server: BatchServer, tmp_path: Path
) -> None:
    """The verbosity stage's pointwise prompts are refused (400) by this judge.

    Before, every rerun submitted the earlier stages' refused calls again and exited 8
    before the next stage: 40 reruns made 88 batch lines for 24 calls and never ended.
    Now a refused call's error is kept, and each rerun collects one stage and submits
    the next, as ``--wait`` does in one run (9 batches, 28 lines, 28 calls).
    """
    store = tmp_path / "s.sqlite"
    argv = ["audit", "--limit", "2", "--experiments", "position,verbosity", "--judge", MODEL,
            "--base-url", server.base_url, "--store", str(store), "--quiet", "--batch-api",
            "--batch-poll", "0.01", "--max-unresolved", "1"]  # fmt: skip  # 8 of 28 refused
    codes = [invoke(*argv).exit_code for _ in range(12)]
    assert 0 in codes, codes
    assert set(codes[: codes.index(0)]) == {8}
    assert set(codes[codes.index(0) :]) == {0}  # done: the reruns are served from the store
    stats = server.stats()
    with sqlite3.connect(store) as conn:
        rows = dict(conn.execute("SELECT status, COUNT(*) FROM calls GROUP BY status").fetchall())
        (lines,) = conn.execute("SELECT SUM(requests) FROM batches").fetchone()
    assert rows == {"ok": 20, "error": 8}  # the verbosity stage's 8 refusals, kept
    assert lines == stats["batch_requests"] == 28  # each call submitted once
    assert stats["batches_created"] == 9


def test_a_refused_call_is_kept_for_batch_runs_and_made_again_online(
    server: BatchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.configure_batches(delay_polls=0)
    store = str(tmp_path / "s.sqlite")
    argv = _commands("--base-url", server.base_url, "--store", store, "--json")["score"]
    first = invoke(*argv, "--batch-api")  # every score prompt is refused by this judge
    calls = json.loads(first.stdout)["calls"]
    assert calls["failed"] == calls["total"] == 40, first.output
    again = invoke(*argv, "--batch-api")
    assert json.loads(again.stdout)["calls"]["cached"] == 40  # its errors, from the store
    assert server.stats()["batch_requests"] == 40  # nothing submitted twice
    assert server.stats()["batches_created"] == 1
    monkeypatch.setattr("tests.server._app.extract_pair", lambda p: Pair(p, "", ""))
    online = invoke(*argv)  # an online run makes failed calls again, as always
    assert json.loads(online.stdout)["calls"]["made"] == 40, online.output
    assert json.loads(online.stdout)["calls"]["failed"] == 0
    assert server.stats()["requests"] == 80  # 40 batch lines, 40 online calls


@pytest.mark.parametrize(
    ("budget", "says"),
    [
        (["--max-calls", "10"], "The --max-calls 10 budget is reached: 30 calls were not "
         "submitted (each submitted call counts as made, and each in a batch not collected "
         "yet). Committed and not collected yet: 10 calls in 1 batch(es)"),
        (["--price-input", "1", "--price-output", "1", "--max-cost", "0.0005"],
         "The --max-cost 0.0005 budget is reached"),
    ],
)  # fmt: skip
def test_a_budget_stop_without_wait_names_the_pending_batch_and_exits_8(
    server: BatchServer, tmp_path: Path, budget: list[str], says: str
) -> None:
    """Before: exit 5, "0 calls made ... nothing was spent", no batch id; calls submitted."""
    argv = _commands("--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
                     "--batch-api", "--batch-poll", "0.01", *budget)["compare"]  # fmt: skip
    first = invoke(*argv)
    assert first.exit_code == 8, first.output
    said = " ".join(first.stderr.split())
    assert says in said
    assert "1 provider batch(es) still running: batch_" in said
    assert "run the same command again to collect the results and submit up to the budget " in said
    assert "larger budget" not in said
    assert "nothing was spent" not in said
    assert server.stats().get("batch_requests", 0) == 0  # submitted, not answered yet
    codes = [first.exit_code]
    while codes[-1] == 8 and len(codes) < 50:
        codes.append(invoke(*argv).exit_code)  # each run collects, then submits more
    assert codes[-1] == 0, codes
    stats = server.stats()
    assert stats["batch_requests"] == 40  # every call once
    with sqlite3.connect(tmp_path / "s.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM calls WHERE status = 'ok'").fetchone() == (40,)


def test_a_budget_stop_without_wait_says_so_in_the_json_error(
    server: BatchServer, tmp_path: Path
) -> None:
    argv = _commands("--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
                     "--batch-api", "--max-calls", "4", "--json")["compare"]  # fmt: skip
    done = invoke(*argv)
    assert done.exit_code == 8, done.output
    error = json.loads(done.stdout)["error"]
    assert (error["type"], error["exit_code"]) == ("BatchPending", 8)
    assert "The --max-calls 4 budget is reached: 36 calls were not submitted" in error["message"]


@pytest.mark.parametrize(
    "flags",
    [["--rpm", "60"], ["--tpm", "1000"], ["--concurrency", "2"], ["--rpm", "1", "--tpm", "9"]],
)
def test_flags_that_pace_online_calls_are_refused_with_the_batch_api(
    flags: list[str], server: BatchServer, tmp_path: Path
) -> None:
    done = invoke("compare", str(PAIRS), "--judge", MODEL, "--base-url", server.base_url,
                  "--store", str(tmp_path / "s.sqlite"), "--batch-api", *flags)  # fmt: skip
    assert done.exit_code == 2, done.output
    said = " ".join(done.stderr.split())
    assert "calls sent through a provider's batch API are paced by its own queue, not by" in said
    assert all(f in said for f in flags if f.startswith("--")), said
    assert server.stats().get("files_uploaded", 0) == 0
    assert server.stats().get("requests", 0) == 0


def test_timeout_holds_each_request_to_the_batch_endpoints(
    server: BatchServer, tmp_path: Path
) -> None:
    """Before, the endpoints waited at least 300 s whatever --timeout said."""
    server.configure_batches(endpoint_delay_s=2.0)
    argv = _commands("--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
                     "--max-attempts", "1", *BATCH)["compare"]  # fmt: skip
    done = invoke(*argv, "--timeout", "0.2")
    assert done.exit_code == 1, done.output
    assert "no reply" in done.output
    assert server.stats().get("batches_created", 0) == 0


def test_the_price_flags_say_they_are_the_online_price() -> None:
    done = invoke("compare", "--help")
    said = " ".join(done.stdout.replace("│", " ").split())  # the note's table cell, unwrapped
    assert "the online price; --batch-api calls pay half" in said


def test_a_store_whose_batch_the_provider_does_not_know_runs_again(
    server: BatchServer, tmp_path: Path
) -> None:
    """Before: --batch-api exited 1 on the 404 and an online run 2, each naming the other."""
    store = tmp_path / "s.sqlite"
    argv = _commands("--base-url", server.base_url, "--store", str(store))["compare"]
    assert invoke(*argv, "--batch-api").exit_code == 8
    ghost = "batch_doesnotexist000000000000"  # a batch another organisation's key made
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE batches SET id = ?", (ghost,))
        conn.execute("UPDATE batch_calls SET batch_id = ?", (ghost,))
    online = invoke(*argv)
    assert online.exit_code == 2, online.output
    said = " ".join(online.stderr.split())
    assert "run the same command with --batch-api to collect them" in said
    assert "a batch the provider no longer knows (a 404: submitted with another key" in said
    young = invoke(*argv, "--batch-api", "--batch-poll", "0.01")  # submitted a moment ago
    assert young.exit_code == 1, young.output  # a 404 for a moment must not pay twice
    said = " ".join(young.stderr.split())
    assert f"the provider does not know batch {ghost} (40 calls, recorded in the store) yet" in said
    assert "is treated as lost only once it is 10 minutes old: run the same command again" in said
    with sqlite3.connect(store) as conn:  # a store handed over: submitted an hour ago
        hour_ago = datetime.now(UTC) - timedelta(hours=1)
        conn.execute("UPDATE batches SET submitted_at = ?", (hour_ago.isoformat(),))
    batch = invoke(*argv, "--batch-api", "--batch-poll", "0.01")
    assert batch.exit_code == 8, batch.output
    said = " ".join(batch.stderr.split())
    assert f"Note: batch {ghost} (40 calls), recorded in the store, is not known" in said
    assert f"No batch found with id '{ghost}'" in said
    assert "It is marked lost in the store, and its calls are submitted again and paid" in said
    done = invoke(*argv, "--batch-api", "--batch-poll", "0.01", "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["calls"]["made"] == 40
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT id, status FROM batches ORDER BY submitted_at").fetchall()
    assert rows[0] == (ghost, "lost")
    assert len(rows) == 2
    with sqlite3.connect(store) as conn:  # what was submitted stays on record
        (kept,) = conn.execute("SELECT COUNT(*) FROM batch_calls WHERE batch_id = ?", (ghost,))
    assert kept == (40,)


def test_rerunning_while_exit_8_commits_no_more_than_the_cost_budget(
    server: BatchServer, tmp_path: Path
) -> None:
    """Before: 4 reruns at --max-cost 0.05 made 4 batches (qa41 finding 3)."""
    server.configure_batches(delay_polls=50)
    argv = _commands("--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
                     "--batch-api", "--price-input", "1", "--price-output", "1",
                     "--max-cost", "0.0005")["compare"]  # fmt: skip
    runs = [invoke(*argv) for _ in range(4)]
    assert [run.exit_code for run in runs] == [8] * 4
    assert server.stats()["batches_created"] == 1
    said = " ".join(runs[-1].stderr.split())
    assert "The --max-cost 0.0005 budget is reached" in said
    assert "so is each call in a batch not collected yet" in said
    assert "Committed and not collected yet: " in said
    assert " calls in 1 batch(es), worst case $0.000" in said


def test_a_batch_whose_results_file_is_gone_is_lost_and_its_calls_made_again(
    server: BatchServer, tmp_path: Path
) -> None:
    """Before: the download's 404 (a deleted or expired output file) exited 1 on every run."""
    import httpx

    server.configure_batches(delay_polls=50)
    store = tmp_path / "s.sqlite"
    argv = _commands("--base-url", server.base_url, "--store", str(store))["compare"]
    assert invoke(*argv, "--batch-api").exit_code == 8
    with sqlite3.connect(store) as conn:
        ((batch_id,),) = conn.execute("SELECT id FROM batches").fetchall()
    server.configure_batches(delay_polls=0)
    key = {"Authorization": f"Bearer {server.api_key}"}
    with httpx.Client(base_url=server.base_url, headers=key) as http:  # the user, elsewhere
        output = http.get(f"/batches/{batch_id}").json()["output_file_id"]
        assert http.delete(f"/files/{output}").json()["deleted"] is True
    young = invoke(*argv, "--batch-api", "--batch-poll", "0.01")
    assert young.exit_code == 1, young.output  # a 404 for a moment must not pay twice
    said = " ".join(young.stderr.split())
    assert f"the provider does not know the results of batch {batch_id} (40 calls" in said
    assert f"WHERE id = '{batch_id}'\"" in said  # the command that gives it up now
    with sqlite3.connect(store) as conn:  # a day later
        day_ago = datetime.now(UTC) - timedelta(days=1)
        conn.execute("UPDATE batches SET submitted_at = ?", (day_ago.isoformat(),))
    server.reset()
    done = invoke(*argv, "--batch-api", "--wait", "--batch-poll", "0.01")
    assert done.exit_code == 0, done.output
    said = " ".join(done.stdout.replace("│", " ").split())  # the note's table cell, unwrapped
    assert f"the results of batch {batch_id} (40 calls), recorded in the store, are no " in said
    assert f"No such File object: {output}" in said
    assert "paid for again" in said
    assert (server.stats()["batches_created"], server.stats()["batch_requests"]) == (1, 40)
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT id, status FROM batches ORDER BY submitted_at").fetchall()
    assert rows[0] == (batch_id, "lost")
