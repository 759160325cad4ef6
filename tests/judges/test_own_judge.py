"""Your own judge on the engine: async, concurrent, retried, budgeted and (declared) cached.

Every count here is made by the judge itself (calls, calls at once), never a clock.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge import CallError, ConfigError, Item, TransientJudgeError, judge_function
from fairjudge.judges import CallableJudge, CallablePointwiseJudge, PairwiseRequest, ScoreRequest
from fairjudge.runner import RetryPolicy, RunOptions

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.001)
ITEMS = [Item(f"q{i}", "short", "a longer answer", id=str(i)) for i in range(6)]
REQUESTS = [PairwiseRequest(f"q{i}", "a", "bb") for i in range(8)]


def longer(answer_a: str, answer_b: str) -> str:
    return "B" if len(answer_b) > len(answer_a) else "A"


class Counter:
    """Counts calls, and the most calls running at once, under a lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls = self.active = self.most = 0

    def enter(self) -> None:
        with self.lock:
            self.calls += 1
            self.active += 1
            self.most = max(self.most, self.active)

    def leave(self) -> None:
        with self.lock:
            self.active -= 1


def test_an_async_judge_works_through_compare() -> None:
    seen = Counter()

    async def judge(question: str, answer_a: str, answer_b: str) -> str:
        seen.enter()
        await asyncio.sleep(0)
        seen.leave()
        return longer(answer_a, answer_b)

    result = fairjudge.compare(list(ITEMS), judge).result
    assert seen.calls == 12
    assert (result.n_call_errors, result.n_parse_failures) == (0, 0)
    assert result.win_rate is not None
    assert result.win_rate.estimate == 0.0


def test_a_sync_judge_runs_concurrently_under_the_runs_concurrency() -> None:
    seen = Counter()
    # Eight calls meet at the barrier: only eight calls running at once get past it.
    barrier = threading.Barrier(8, timeout=30)

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        seen.enter()
        barrier.wait()
        seen.leave()
        return longer(answer_a, answer_b)

    requests = [PairwiseRequest(f"q{i}", "a", "bb") for i in range(16)]
    with CallableJudge(judge, options=RunOptions(concurrency=8, progress="quiet")) as own:
        replies = own.judge_batch(requests)
    assert [r.verdict for r in replies] == [fairjudge.Verdict.B] * 16
    assert seen.calls == 16
    assert seen.most == 8


def test_a_sync_judge_without_options_is_called_one_at_a_time_in_order() -> None:
    seen: list[str] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        seen.append(question)
        return "A"

    with CallableJudge(judge) as own:
        own.judge_batch(REQUESTS)
    assert seen == [r.question for r in REQUESTS]


@pytest.mark.parametrize("method", ["judge", "ajudge"])
def test_an_object_with_a_judge_or_ajudge_method_is_a_judge(method: str) -> None:
    def sync(self: Any, question: str, answer_a: str, answer_b: str) -> str:
        return longer(answer_a, answer_b)

    async def run_async(self: Any, question: str, answer_a: str, answer_b: str) -> str:
        return longer(answer_a, answer_b)

    client = type("Client", (), {method: sync if method == "judge" else run_async})()
    result = fairjudge.compare(list(ITEMS), client).result
    assert result.n_call_errors == 0
    assert result.win_rate is not None
    assert result.win_rate.estimate == 0.0


def test_a_declared_judges_rerun_makes_no_call(tmp_path: Path) -> None:
    seen = Counter()

    @judge_function(name="acme-gateway", version="3")
    def judge(question: str, answer_a: str, answer_b: str) -> str:
        seen.enter()
        seen.leave()
        return longer(answer_a, answer_b)

    store = tmp_path / "store.sqlite"
    rows = list(ITEMS)
    first = fairjudge.compare(rows, judge, store=store).result
    assert seen.calls == 12
    again = fairjudge.compare(rows, judge, store=store).result
    assert seen.calls == 12  # every call served from the store
    assert again.to_dict()["win_rate"] == first.to_dict()["win_rate"]
    judge.fairjudge_version = "4"  # type: ignore[attr-defined]  # new replies: called again
    fairjudge.compare(rows, judge, store=store)
    assert seen.calls == 24


def test_a_declared_judges_probabilities_read_back_the_same_from_the_store(
    tmp_path: Path,
) -> None:
    @judge_function(name="probs", version=1)
    def judge(question: str, answer_a: str, answer_b: str) -> dict[str, float]:
        return {"A": 0.2, "B": 0.7, "tie": 0.1}

    store = tmp_path / "store.sqlite"
    with CallableJudge(judge, store=store) as own:
        fresh = own.judge_batch(REQUESTS[:2])
    with CallableJudge(judge, store=store) as own:
        cached = own.judge_batch(REQUESTS[:2])
    assert [r.cached for r in cached] == [True, True]
    assert [r.probabilities for r in cached] == [r.probabilities for r in fresh]
    assert cached[0].probabilities == fairjudge.Probabilities(0.2, 0.7, 0.1)


def test_an_undeclared_judge_refuses_a_store(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="declares no name and version") as caught:
        CallableJudge(lambda q, a, b: "A", store=tmp_path / "s.sqlite")
    assert caught.value.params == ("store",)
    assert not (tmp_path / "s.sqlite").exists()


def test_a_half_declaration_is_refused() -> None:
    with pytest.raises(ConfigError, match="both non-empty"):
        judge_function(name="acme")


def test_token_options_do_not_apply_to_a_python_judge() -> None:
    with pytest.raises(ConfigError, match="tpm does not apply") as caught:
        CallableJudge(lambda q, a, b: "A", options=RunOptions(tpm=1000))
    assert caught.value.params == ("tpm",)


def test_a_transient_exception_is_retried_and_another_is_a_call_error() -> None:
    tries: dict[str, int] = {}
    lock = threading.Lock()

    @judge_function(transient=(TimeoutError,))
    def judge(question: str, answer_a: str, answer_b: str) -> str:
        with lock:
            tries[question] = tries.get(question, 0) + 1
            n = tries[question]
        if question == "q0" and n == 1:
            raise TimeoutError("the gateway timed out")
        if question == "q1" and n == 1:
            raise TransientJudgeError("the gateway is busy")
        if question == "q2":
            raise ValueError("the judge's own bug")
        return "A"

    options = RunOptions(concurrency=4, retry=FAST_RETRY, progress="quiet")
    with CallableJudge(judge, options=options) as own:
        replies = own.judge_batch(REQUESTS[:4])
        summary = own.last_run
    assert [r.ok for r in replies] == [True, True, False, True]
    assert replies[2].failure == CallError("ValueError", "the judge's own bug")
    assert tries == {"q0": 2, "q1": 2, "q2": 1, "q3": 1}  # the bug is not retried
    assert summary is not None
    assert (summary.retries, summary.failed) == (2, 1)


def test_a_transient_failure_that_persists_is_a_counted_call_error() -> None:
    def judge(question: str, answer_a: str, answer_b: str) -> str:
        raise TransientJudgeError("the gateway is down")

    options = RunOptions(concurrency=2, retry=FAST_RETRY, progress="quiet")
    with CallableJudge(judge, options=options) as own:
        replies = own.judge_batch(REQUESTS[:2])
        summary = own.last_run
    assert [r.failure for r in replies] == [
        CallError("TransientJudgeError", "the gateway is down")
    ] * 2
    assert summary is not None
    assert (summary.failed, summary.retries) == (2, 4)  # 3 attempts each


def test_max_calls_stops_an_undeclared_judge_and_says_the_result_alone_keeps_it() -> None:
    seen = Counter()

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        seen.enter()
        seen.leave()
        return "A"

    options = RunOptions(concurrency=2, max_calls=3, progress="quiet")
    with CallableJudge(judge, options=options) as own:
        replies = own.judge_batch(REQUESTS)
    assert seen.calls == 3
    assert sum(r.ok for r in replies) == 3
    assert replies.stopped is not None
    assert "max_calls=3 budget is spent" in replies.stopped
    said = " ".join(replies.stopped.split())
    # The 3 answers are in the replies (and a command's --out): "nothing was kept" was false.
    assert "so what answered is in this result alone, marked partial" in said
    assert "in the batch that stopped, 3 answered, 0 failed, 5 not run; a rerun makes" in said
    assert ":memory:" not in replies.stopped


def test_an_undeclared_judge_makes_every_call_even_duplicates() -> None:
    seen = Counter()

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        seen.enter()
        seen.leave()
        return "A"

    with CallableJudge(judge) as own:
        own.judge_batch([REQUESTS[0], REQUESTS[0]])
        own.judge_batch([REQUESTS[0]])
    assert seen.calls == 3


def test_an_async_pointwise_judge_scores_concurrently() -> None:
    seen = Counter()

    async def scorer(question: str, answer: str) -> dict[str, int]:
        seen.enter()
        await asyncio.sleep(0.01)
        seen.leave()
        return {"accuracy": 4, "relevance": 5, "usefulness": 3}

    requests = [ScoreRequest(f"q{i}", "an answer") for i in range(6)]
    options = RunOptions(concurrency=6, progress="quiet")
    with CallablePointwiseJudge(scorer, options=options) as own:
        scored = own.score_batch(requests)
    assert seen.calls == 6
    assert seen.most > 1
    assert all(s.calls[0].reply.ok for s in scored)


def test_a_fatal_error_of_an_undeclared_judge_promises_no_store() -> None:
    def judge(question: str, answer_a: str, answer_b: str) -> str:
        raise fairjudge.FatalBackendError("the gateway answered 401: bad key")

    with CallableJudge(judge) as own, pytest.raises(fairjudge.FatalBackendError) as caught:
        own.judge_batch(REQUESTS[:2])
    message = str(caught.value)
    assert "401: bad key" in message
    assert "No store: this judge declares no name and version" in message
    assert ":memory:" not in message
    assert "continue from there" not in message


def test_a_finished_batch_leaves_no_interrupt_note_behind() -> None:
    from fairjudge.judges import interrupt_note

    with CallableJudge(lambda q, a, b: "A") as own:
        own.judge_batch(REQUESTS[:1])
    assert interrupt_note() is None  # a later run's Ctrl-C is not this judge's


def test_a_declared_async_scorer_through_score_is_cached(tmp_path: Path) -> None:
    seen = Counter()

    @judge_function(name="acme-scorer", version="1")
    async def scorer(question: str, answer: str) -> dict[str, int]:
        seen.enter()
        await asyncio.sleep(0)
        seen.leave()
        return {"accuracy": 4, "relevance": 5, "usefulness": 3}

    rows = [{"question": f"q{i}", "answer": "an answer"} for i in range(5)]
    store = tmp_path / "store.sqlite"
    options = RunOptions(concurrency=4, progress="quiet")
    first = fairjudge.score(rows, scorer, options=options, store=store)
    assert seen.calls == 5
    again = fairjudge.score(rows, scorer, options=options, store=store)
    assert seen.calls == 5  # all five from the store
    assert again.to_dict()["dimensions"] == first.to_dict()["dimensions"]
