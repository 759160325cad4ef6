"""A sync Python judge that stops returning: the threads left behind are bounded.

A sync function past its ``timeout`` cannot be stopped: its thread is left to finish
on its own and the call fails as a timeout (retried as an HTTP timeout is). Before,
every attempt of every call under a hung gateway left one more thread running, with
no bound (review40 F6: concurrency x attempts x calls). Now once more abandoned
calls are still running than one round of the run's calls leaves (its concurrency
times its attempts per call), the run stops before it starts another: a clear error
naming the function and the count, never a verdict or a tie, and every finished call
is kept in the store.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import fairjudge
from fairjudge import FatalBackendError, Verdict
from fairjudge.judges import CallableJudge, PairwiseRequest
from fairjudge.runner import RetryPolicy, RunOptions, Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """What the hung calls wait for (an hour): set when the test ends, so they end too."""
    event = threading.Event()
    yield event
    event.set()


def test_a_judge_that_stops_returning_stops_the_run_at_a_bound(
    gate: threading.Event, tmp_path: Path
) -> None:
    hung: list[str] = []

    @fairjudge.judge_function(name="gateway", version="1")
    def judge(question: str, answer_a: str, answer_b: str) -> str:
        if question.startswith("hangs"):
            hung.append(question)
            gate.wait(3600)  # a gateway that never answers
        return "B"

    fast = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)
    options = RunOptions(concurrency=2, progress="quiet", retry=fast)
    requests = [PairwiseRequest(q, "a", "bb") for q in ("ok0", "ok1")]
    requests += [PairwiseRequest(f"hangs{i}", "a", "bb") for i in range(6)]
    store = tmp_path / "s.sqlite"
    with CallableJudge(judge, options=options, store=store, timeout=0.05) as own:
        assert own.judge_batch(requests[:2])[0].verdict == Verdict.B  # kept in the store
        with pytest.raises(FatalBackendError) as caught:
            own.judge_batch(requests)
    message = " ".join(str(caught.value).split())
    # Two calls' 2 attempts each make one round (4); the 2 calls started then make 6.
    assert re.search(r"python backend: [56] calls to python:tests\.judges\.test_own", message)
    assert "that the run gave up on past the 0.05 s timeout are still running" in message
    assert "more than one round of this run's calls leaves (4: its concurrency times" in message
    assert "so no more calls are started" in message
    assert "The 2 calls finished so far are kept in the store" in message
    # Before, all 6 were made, twice each: 12 threads left behind.
    assert 5 <= len(hung) <= 6
    with Store(store) as kept:
        rows = list(kept.records())
    assert sorted(r.status for r in rows if r.spec["messages"][0][1] == "question: ok0") == ["ok"]
    assert all(r.status == "error" for r in rows if "hangs" in json.dumps(r.spec))
    assert all(r.error_kind == "BackendTimeout" for r in rows if r.status == "error")
    gate.set()  # the gateway answers again: the rerun serves the finished calls
    with CallableJudge(judge, options=options, store=store, timeout=5) as again:
        replies = again.judge_batch(requests)
        assert [r.verdict for r in replies] == [Verdict.B] * len(requests)
        assert again.calls_made == len(requests) - 2


def test_a_few_hung_calls_still_end_as_timeouts(gate: threading.Event) -> None:
    """Within the bound nothing changes: the hung calls are call errors, never ties."""

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        if question == "q0":
            gate.wait(3600)
        return "B" if len(answer_b) > len(answer_a) else "A"

    fast = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)
    options = RunOptions(concurrency=1, progress="quiet", retry=fast)  # a round: 2 threads
    items = [fairjudge.Item(f"q{i}", "short", "a longer answer", id=str(i)) for i in range(3)]
    judged = CallableJudge(judge, options=options, timeout=0.05)
    with pytest.raises(FatalBackendError, match="3 calls to"):  # q0 in both orders: 4
        fairjudge.compare(items, judged)
    options = RunOptions(concurrency=2, progress="quiet", retry=fast)  # a round: 4 threads
    result = fairjudge.compare(items, CallableJudge(judge, options=options, timeout=0.05))
    assert result.result.n_call_errors == 2  # both orders of q0: failed calls, not ties
    assert result.result.win_rate is not None
    assert result.result.win_rate.estimate == 0.0


def test_the_command_line_stops_with_exit_1_naming_the_judge(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"id": str(i), "question": f"q{i}", "answer_1": "short",
             "answer_2": "a longer answer"} for i in range(6)]  # fmt: skip
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    calls, store = tmp_path / "calls.txt", tmp_path / "s.sqlite"
    done = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare", str(pairs),
         "--judge", "python:tests.judges.own_judges:hangs_after_q1", "--timeout", "0.1",
         "--concurrency", "1", "--max-attempts", "2", "--store", str(store)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAIRJUDGE_TEST_CALLS": str(calls)},
    )  # fmt: skip
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, done.stderr
    assert (
        "judging failed: python judge 'gateway-hangs': python backend: 3 calls to "
        "python:tests.judges.own_judges:hangs_after_q1 that the run gave up on past the 0.1 s"
    ) in said
    assert "more than one round of this run's calls leaves (2: its concurrency" in said
    assert "give it a longer --timeout" in said
    assert "Traceback" not in said
    assert calls.read_text().count("call") == 3  # q2's 2 attempts, 1 of q2 reversed: no more
    finished = re.search(r"The (\d+) calls finished so far are kept in the store", said)
    assert finished is not None, said
    with Store(store) as kept:
        ok = [r for r in kept.records() if r.status == "ok"]
    assert len(ok) == int(finished.group(1)) == 4  # q0 and q1, both orders
