"""A sync Python judge's call that times out is tried twice, not ``max_attempts`` times.

Its thread cannot be stopped, and a function that hangs on an input usually hangs
again: before, each call was tried 8 times with back-off (QA41b #4: ``--timeout 1``, one
hanging question, ~52 s from the command line, ~84 s from the library, a thread left
running per attempt), and the failure said nothing of the attempts or the knobs. Now
it is tried ``HUNG_ATTEMPTS`` (2) times at the default ``max_attempts``; a
``max_attempts`` set to another value applies to timeouts as given; other failures,
and an ``async def`` judge's timeouts, keep the run's ``max_attempts``. The failure
says how many attempts were made and names ``max_attempts`` and ``timeout``.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest

from fairjudge import Verdict
from fairjudge.judges import CallableJudge, PairwiseRequest, TransientJudgeError
from fairjudge.runner import RetryPolicy, RunOptions
from tests.judges.test_own_judge_timeout import run_compare

FAST = RetryPolicy(base_delay=0.001, max_delay=0.001)  # max_attempts: the default 8
REQUESTS = [PairwiseRequest(f"q{i}", "a", "bb") for i in range(3)]


def _options(retry: RetryPolicy = FAST) -> RunOptions:
    return RunOptions(concurrency=1, progress="quiet", retry=retry)


def test_a_hanging_item_costs_two_timeouts_not_eight(gate: threading.Event) -> None:
    tries: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        tries.append(question)
        if question == "q0":
            gate.wait(60)
        return "B"

    started = time.perf_counter()
    with CallableJudge(judge, options=_options(), timeout=0.2) as own:
        replies = own.judge_batch(REQUESTS)
        run = own.last_run
    took = time.perf_counter() - started
    assert tries.count("q0") == 2  # before: 8, each leaving a thread running
    assert took < 1.5, took  # two 0.2 s timeouts; eight took >= 1.6 s
    assert [r.verdict for r in replies[1:]] == [Verdict.B, Verdict.B]
    failure = replies[0].failure
    assert failure is not None
    assert failure.kind == "BackendTimeout"
    assert failure.message == (
        "python backend: no reply from python:tests.judges.test_own_judge_hung_retries:"
        "test_a_hanging_item_costs_two_timeouts_not_eight.<locals>.judge within 0.2 s; "
        "tried 2 times (a sync function's call that times out is tried at most 2 times, "
        "not max_attempts=8: its thread cannot be stopped, and a function that hangs on "
        "an input usually hangs again); give it a longer timeout, or another max_attempts"
    )
    assert run is not None
    assert (run.failed, run.retries) == (1, 1)


def test_max_attempts_set_to_another_value_applies_to_timeouts(gate: threading.Event) -> None:
    tries: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        tries.append(question)
        gate.wait(60)
        return "B"

    for attempts, said in ((3, "tried 3 times (max_attempts=3)"), (1, "tried once")):
        tries.clear()
        retry = RetryPolicy(max_attempts=attempts, base_delay=0.001, max_delay=0.001)
        with CallableJudge(judge, options=_options(retry), timeout=0.05) as own:
            [reply] = own.judge_batch(REQUESTS[:1])
        assert len(tries) == attempts
        assert reply.failure is not None
        assert reply.failure.message.endswith(
            f"within 0.05 s; {said}{' (max_attempts=1)' if attempts == 1 else ''}; "
            "give it a longer timeout, or another max_attempts"
        ), reply.failure.message


@pytest.mark.parametrize("fails", [1, 7])
def test_a_flaky_function_is_still_retried_and_answers(fails: int) -> None:
    """Other failures keep max_attempts (8): raised once, or 7 times, then answered."""
    tries: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        tries.append(question)
        if len(tries) <= fails:
            raise TransientJudgeError("gateway busy")
        return "B"

    with CallableJudge(judge, options=_options(), timeout=5) as own:
        [reply] = own.judge_batch(REQUESTS[:1])
    assert reply.verdict == Verdict.B, reply.failure
    assert len(tries) == fails + 1


def test_a_call_that_times_out_once_then_answers_is_retried(gate: threading.Event) -> None:
    tries: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        tries.append(question)
        if len(tries) == 1:
            gate.wait(60)  # a packet lost by the function's own client
        return "B"

    with CallableJudge(judge, options=_options(), timeout=0.2) as own:
        [reply] = own.judge_batch(REQUESTS[:1])
    assert reply.verdict == Verdict.B
    assert len(tries) == 2


def test_an_async_judge_timeout_keeps_max_attempts() -> None:
    """Cancelled, it leaves nothing running: retried as an HTTP timeout, its end said."""
    tries: list[str] = []

    async def judge(question: str, answer_a: str, answer_b: str) -> str:
        tries.append(question)
        await asyncio.sleep(60)
        return "B"

    options = RunOptions(concurrency=1, progress="quiet", retry=FAST)
    with CallableJudge(judge, options=options, timeout=0.05) as own:
        [reply] = own.judge_batch(REQUESTS[:1])
    assert len(tries) == 8
    assert reply.failure is not None
    assert reply.failure.message.endswith(
        "within 0.05 s; tried 8 times (max_attempts=8); give it a longer timeout, or another "
        "max_attempts"
    ), reply.failure.message


def test_the_command_line_names_its_flags_and_the_attempts(tmp_path: Path) -> None:
    done = run_compare(tmp_path, 3, "--judge", "python:tests.judges.own_judges:hangs_on_q0",
                       "--timeout", "0.2", "--max-unresolved", "0.5", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["calls"]["failed"], out["calls"]["retries"]) == (2, 2)  # before: 2 and 14
    assert list(out["failures"]) == [
        "BackendTimeout: python backend: no reply from python:tests.judges.own_judges:"
        "hangs_on_q0 within 0.2 s; tried 2 times (a sync function's call that times out is "
        "tried at most 2 times, not --max-attempts 8: its thread cannot be stopped, and a "
        "function that hangs on an input usually hangs again); give it a longer --timeout, "
        "or another --max-attempts"
    ]
