"""A Python judge's ``timeout``: a call past it fails as an HTTP judge's timeout does.

The judges hang on one question until the test lets them go (an ``Event``), so the
only thing timed is that the run ended; nothing asserts how long it took.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import fairjudge
from fairjudge import ConfigError, Verdict
from fairjudge.judges import CallableJudge, CallablePointwiseJudge, PairwiseRequest, ScoreRequest
from fairjudge.runner import RetryPolicy, RunOptions

ROOT = Path(__file__).resolve().parents[2]
ONCE = RunOptions(concurrency=4, progress="quiet", retry=RetryPolicy(max_attempts=1))
REQUESTS = [PairwiseRequest(f"q{i}", "a", "bb") for i in range(4)]


def test_a_sync_call_past_the_timeout_fails_as_a_timeout(gate: threading.Event) -> None:
    def judge(question: str, answer_a: str, answer_b: str) -> str:
        if question == "q0":
            gate.wait(60)
        return "B"

    with CallableJudge(judge, options=ONCE, timeout=0.2) as own:
        replies = own.judge_batch(REQUESTS)
        run = own.last_run
    first = replies[0]
    assert first.verdict is None
    assert first.failure is not None
    assert first.failure.kind == "BackendTimeout"
    assert "no reply from" in first.failure.message
    assert "within 0.2 s" in first.failure.message
    assert [r.verdict for r in replies[1:]] == [Verdict.B] * 3  # the finished calls are kept
    assert run is not None
    assert (run.made, run.failed) == (4, 1)


def test_an_async_call_past_the_timeout_is_cancelled() -> None:
    cancelled = threading.Event()

    async def judge(question: str, answer_a: str, answer_b: str) -> str:
        if question == "q0":
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.set()
                raise
        return "B"

    with CallableJudge(judge, options=ONCE, timeout=0.2) as own:
        replies = own.judge_batch(REQUESTS)
    assert replies[0].failure is not None
    assert replies[0].failure.kind == "BackendTimeout"
    assert cancelled.is_set()
    assert [r.verdict for r in replies[1:]] == [Verdict.B] * 3


def test_a_timed_out_call_is_retried_as_an_http_timeout_is(gate: threading.Event) -> None:
    attempts: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        attempts.append(question)
        if len(attempts) == 1:  # the first attempt hangs; the retry answers
            gate.wait(60)
            return "A"  # too late: this value must go nowhere
        return "B"

    fast = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)
    options = RunOptions(concurrency=1, progress="quiet", retry=fast)
    with CallableJudge(judge, options=options, timeout=0.2) as own:
        replies = own.judge_batch(REQUESTS[:1])
        gate.set()  # the abandoned thread now returns "A"
        again = own.judge_batch(REQUESTS[1:2])
        run = own.last_run
    assert replies[0].verdict == Verdict.B
    assert replies[0].failure is None
    assert again[0].verdict == Verdict.B
    assert run is not None


def test_a_sync_judge_at_concurrency_1_keeps_to_one_thread() -> None:
    threads: set[int] = set()

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        threads.add(threading.get_ident())
        return "A"

    with CallableJudge(judge, timeout=5) as own:
        own.judge_batch(REQUESTS)
        own.judge_batch(REQUESTS[:2])
    assert len(threads) == 1


def test_a_pointwise_judge_takes_the_timeout_too(gate: threading.Event) -> None:
    def scorer(question: str, answer: str) -> dict[str, int]:
        if question == "q0":
            gate.wait(60)
        return {"accuracy": 4, "relevance": 4, "usefulness": 4}

    requests = [ScoreRequest(f"q{i}", "an answer") for i in range(2)]
    with CallablePointwiseJudge(scorer, options=ONCE, timeout=0.2) as own:
        scored = own.score_batch(requests)
    hung = scored[0].calls[0].reply.failure
    assert hung is not None
    assert hung.kind == "BackendTimeout"
    assert scored[1].calls[0].reply.ok


@pytest.mark.parametrize("bad", [0, -1, float("nan"), 86400, "5", True])
def test_a_timeout_that_is_no_number_of_seconds_is_refused(bad: object) -> None:
    with pytest.raises(ConfigError) as caught:
        CallableJudge(lambda question, answer_a, answer_b: "A", timeout=bad)  # type: ignore[arg-type]
    assert caught.value.params == ("timeout",)


def test_resolve_judge_gives_a_python_judge_the_timeout() -> None:
    """Before, ``BackendOptions(timeout=...)`` was refused for a ``python:`` judge."""
    from fairjudge.judges import BackendOptions, resolve_judge, resolve_pointwise_judge

    spec = "python:tests.judges.own_judges:hangs_on_q0"
    where = BackendOptions(timeout=0.5)
    with resolve_judge(spec, backend_options=where) as judge:
        assert isinstance(judge, CallableJudge)
        assert judge.timeout == 0.5
    with resolve_pointwise_judge("python:tests.scorers:fours", backend_options=where) as scorer:
        assert isinstance(scorer, CallablePointwiseJudge)
        assert scorer.timeout == 0.5


HUNG_EXIT = """
import sys, time
import fairjudge
from fairjudge.judges import CallableJudge, PairwiseRequest
from fairjudge.runner import RetryPolicy, RunOptions

def judge(question, answer_a, answer_b):
    time.sleep(3600)  # a gateway that never answers

options = RunOptions(concurrency=2, progress="quiet", retry=RetryPolicy(max_attempts=1))
with CallableJudge(judge, options=options, timeout=0.2) as own:
    replies = own.judge_batch([PairwiseRequest("q", "a", "b")] * 2)
print(replies[0].failure.kind)
"""


def test_a_hung_sync_call_does_not_hold_up_the_interpreters_exit() -> None:
    """Its thread sleeps an hour; the process still ends (a hang fails the test)."""
    done = subprocess.run(
        [sys.executable, "-c", HUNG_EXIT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "BackendTimeout"


STOPPED_EXIT = """
import threading, time
from fairjudge import FatalBackendError
from fairjudge.judges import CallableJudge, PairwiseRequest
from fairjudge.runner import RunOptions

hung = threading.Event()

def judge(question, answer_a, answer_b):
    if question == "hangs":
        hung.set()
        time.sleep(3600)  # a gateway that never answers
    hung.wait(30)
    raise FatalBackendError("the gateway refused the key")

options = RunOptions(concurrency=2, progress="quiet")
try:
    with CallableJudge(judge, options=options) as own:
        own.judge_batch([PairwiseRequest("hangs", "a", "b"), PairwiseRequest("q", "a", "b")])
except FatalBackendError as exc:
    print(type(exc).__name__)
"""


def test_a_run_stopped_with_a_sync_call_hung_still_exits() -> None:
    """No timeout: a fatal error stops the run while a call hangs; the process ends."""
    done = subprocess.run(
        [sys.executable, "-c", STOPPED_EXIT], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "FatalBackendError"


def test_compare_counts_a_timeout_as_a_call_error_never_a_tie(gate: threading.Event) -> None:
    def judge(question: str, answer_a: str, answer_b: str) -> str:
        if question == "q0":
            gate.wait(60)
        return "B" if len(answer_b) > len(answer_a) else "A"

    items = [fairjudge.Item(f"q{i}", "short", "a longer answer", id=str(i)) for i in range(4)]
    judge_obj = CallableJudge(judge, options=ONCE, timeout=0.2)
    result = fairjudge.compare(items, judge_obj).result
    assert result.n_call_errors == 2  # both orders of q0: failed calls, not ties
    assert result.win_rate is not None
    assert result.win_rate.estimate == 0.0  # the other three items, all for model 2


def run_compare(tmp_path: Path, n: int, *flags: str) -> subprocess.CompletedProcess[str]:
    """``fairjudge compare`` in a fresh process over ``n`` pairs q0, q1, ...: the longer second."""
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"id": str(i), "question": f"q{i}", "answer_1": "short",
             "answer_2": "a longer answer"} for i in range(n)]  # fmt: skip
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare", str(pairs),
         *flags],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("judge", ["hangs_on_q0", "async_hangs_on_q0"])
def test_the_timeout_flag_applies_to_a_python_judge(tmp_path: Path, judge: str) -> None:
    """Before, ``--timeout`` with a ``python:`` judge was refused (exit 2)."""
    done = run_compare(tmp_path, 4, "--judge", f"python:tests.judges.own_judges:{judge}",
                       "--timeout", "0.2", "--max-attempts", "1", "--max-unresolved", "0.5",
                       "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["n_call_errors"] == 2
    assert out["calls"]["failed"] == 2
    reason = f"BackendTimeout: python backend: no reply from python:tests.judges.own_judges:{judge}"
    tried = "tried once (--max-attempts 1); give it a longer --timeout, or another --max-attempts"
    assert list(out["failures"]) == [f"{reason} within 0.2 s; {tried}"]
    assert out["win_rate"]["estimate"] == 0.0  # the three items that answered
