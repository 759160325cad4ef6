"""A sync Python judge that stops returning: the threads left behind are bounded.

A sync function past its ``timeout`` cannot be stopped: its thread is left to finish
on its own and the call fails as a timeout (retried as an HTTP timeout is). Before,
every attempt of every call under a hung gateway left one more thread running, with
no bound (review40 F6: concurrency x attempts x calls). Now once more abandoned
calls are still running than the run lets pile up (the larger of 32 and one round of
its calls: its concurrency times its attempts per call), the run stops before it
starts another: a clear error naming the function and the count, never a verdict or
a tie, and every finished call is kept in the store. A few inputs that hang are call
errors, as before: with a bound of one round alone, two of them stopped a run at
concurrency 1 (review41 F1).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import fairjudge
from fairjudge import FatalBackendError, Verdict
from fairjudge.judges import CallableJudge, PairwiseRequest
from fairjudge.runner import RetryPolicy, RunOptions, Store

ROOT = Path(__file__).resolve().parents[2]


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
    requests += [PairwiseRequest(f"hangs{i}", "a", "bb") for i in range(20)]
    store = tmp_path / "s.sqlite"
    with CallableJudge(judge, options=options, store=store, timeout=0.05) as own:
        assert own.judge_batch(requests[:2])[0].verdict == Verdict.B  # kept in the store
        with pytest.raises(FatalBackendError) as caught:
            own.judge_batch(requests)
    message = " ".join(str(caught.value).split())
    # One round is 4 threads (2 calls x 2 attempts), so the bound is 32: the stop comes
    # once 33 are left, or 34 with the other call in flight then.
    assert re.search(r"python backend: 3[34] calls to python:tests\.judges\.test_own", message)
    assert "that the run gave up on past the 0.05 s timeout are still running" in message
    assert "more than this run lets pile up (32: the larger of 32 and its concurrency" in message
    assert "so no more calls are started" in message
    assert "The 2 calls finished so far are kept in the store" in message
    # Before 1d65efe all 20 were made, twice each: 40 threads left behind.
    assert 33 <= len(hung) <= 34
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


def test_two_inputs_that_hang_of_40_are_call_errors_not_a_stop(gate: threading.Event) -> None:
    """review41 F1's run: q5 and q20 hang, at concurrency 1 with 3 attempts per call.

    One round of calls is 3 threads there, so with that as the bound q5's 3 attempts
    used it up and q20's first stopped the run: FatalBackendError, q21..q39 never
    judged. Now the bound is 32 and both end as timeouts, as before 1d65efe.
    """
    hung: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        if question in ("q5", "q20"):
            hung.append(question)
            gate.wait(3600)
        return "B"

    fast = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.001)
    options = RunOptions(concurrency=1, progress="quiet", retry=fast)
    requests = [PairwiseRequest(f"q{i}", "a", "bb") for i in range(40)]
    with CallableJudge(judge, options=options, timeout=0.05) as own:
        replies = own.judge_batch(requests)
        assert own.last_run is not None
        assert own.last_run.failed == 2
    assert [r.verdict for r in replies].count(Verdict.B) == 38
    failed = {i: r.failure for i, r in enumerate(replies) if r.verdict is None}
    assert sorted(failed) == [5, 20]
    assert all(getattr(f, "kind", None) == "BackendTimeout" for f in failed.values()), failed
    assert replies.stopped is None
    assert hung == ["q5"] * 3 + ["q20"] * 3  # every attempt made, 6 threads left


def test_a_hung_question_in_a_comparison_is_two_call_errors(gate: threading.Event) -> None:
    """At concurrency 1 (one round: 2 threads) both orders of q0 hang: 4 threads, no stop."""

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        if question == "q0":
            gate.wait(3600)
        return "B" if len(answer_b) > len(answer_a) else "A"

    fast = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)
    options = RunOptions(concurrency=1, progress="quiet", retry=fast)
    items = [fairjudge.Item(f"q{i}", "short", "a longer answer", id=str(i)) for i in range(3)]
    result = fairjudge.compare(items, CallableJudge(judge, options=options, timeout=0.05))
    assert result.result.n_call_errors == 2  # both orders of q0: failed calls, not ties
    assert result.result.win_rate is not None
    assert result.result.win_rate.estimate == 0.0


def test_the_command_line_stops_with_exit_1_naming_the_judge(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"id": str(i), "question": f"q{i}", "answer_1": "short",
             "answer_2": "a longer answer"} for i in range(20)]  # fmt: skip
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    calls, store = tmp_path / "calls.txt", tmp_path / "s.sqlite"
    done = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare", str(pairs),
         "--judge", "python:tests.judges.own_judges:hangs_after_q1", "--timeout", "0.05",
         "--concurrency", "1", "--max-attempts", "1", "--store", str(store)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "FAIRJUDGE_TEST_CALLS": str(calls)},
    )  # fmt: skip
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, done.stderr
    assert (
        "judging failed: python judge 'gateway-hangs': python backend: 33 calls to "
        "python:tests.judges.own_judges:hangs_after_q1 that the run gave up on past the 0.05 s"
    ) in said
    assert "more than this run lets pile up (32: the larger of 32 and its concurrency" in said
    assert "give it a longer --timeout" in said
    assert "Traceback" not in said
    # One attempt each: 33 hung calls (q2..q17 both orders, q18 one), then no more.
    assert calls.read_text().count("call") == 33
    finished = re.search(r"The (\d+) calls finished so far are kept in the store", said)
    assert finished is not None, said
    with Store(store) as kept:
        ok = [r for r in kept.records() if r.status == "ok"]
    assert len(ok) == int(finished.group(1)) == 4  # q0 and q1, both orders
