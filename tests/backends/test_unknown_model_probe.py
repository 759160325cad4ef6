"""An unknown model's calls wait in line behind a probe; a probe that fails hands on its turn.

A model the capability table does not know is learned from the server's refusals. The
calls go to the server one at a time until one is answered, so each refusal is paid
once for the run. These tests make the probe fail in every way a request can fail
before the server reads it (a 500, a reset connection, a timeout, a cancel) with the
faithful OpenAI emulator's ``early_faults``, and count what the emulator refused:
exactly one request per parameter, never one per call that was waiting. Nothing
here waits on a clock to synchronise: the test thread waits for the emulator's own
counters (``wait_for``), and the calls are ordered by the line itself. Another copy
of the backend (a Ray worker's) takes in what the first learned and pays no refusal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import (
    AuthenticationError,
    BackendError,
    BackendTimeout,
    FatalBackendError,
    ServerError,
)
from fairjudge.backends._openai import OpenAIBackend
from fairjudge.runner import AsyncioExecutor, Batch, RetryPolicy, RunOptions, RunSummary, Store
from tests.backends._calls import PROMPT, WRONG_KEY, run, spec_for
from tests.server._openai_emulator import EmulatorServer, OpenAIEmulator

REFUSED = ("max_tokens", "temperature", "logprobs")
"""What ``acme-reasoner`` (a reasoning model by another name) refuses, one 400 each."""


def backend_at(
    server: EmulatorServer, model: str = "acme-reasoner", **options: Any
) -> OpenAIBackend:
    return OpenAIBackend(model, base_url=server.base_url, **options)


def distinct(backend: OpenAIBackend, n: int, *, label_only: bool = True) -> list[CallSpec]:
    """``n`` different calls (the question differs), with the backend's own parameters."""
    return [
        spec_for(backend, prompt=PROMPT.replace("2 + 2?", f"2 + {i}?"), label_only=label_only)
        for i in range(n)
    ]


def refusals(server: EmulatorServer) -> dict[str, int]:
    return {param: server.count(f"refused:{param}") for param in REFUSED}


def started(backend: OpenAIBackend, specs: list[CallSpec]) -> list[asyncio.Task[Completion]]:
    """Every call as a task: they start, and so join the line, in this order."""
    return [asyncio.ensure_future(backend.complete(spec)) for spec in specs]


async def until_counted(server: EmulatorServer, name: str, n: int = 1) -> None:
    """Wait, without blocking this loop, until the emulator counted ``name`` ``n`` times."""
    emulator: OpenAIEmulator = server.emulator
    assert await asyncio.to_thread(emulator.wait_for, name, n)


def settled(tasks: list[asyncio.Task[Completion]]) -> list[str]:
    """How each call ended: ``ok``, ``cancelled`` or the error's type name."""
    out = []
    for task in tasks:
        if task.cancelled():
            out.append("cancelled")
        elif (error := task.exception()) is not None:
            out.append(type(error).__name__)
        else:
            out.append("ok")
    return out


def cancelled_in_line(
    serve_reasoner: Any, n: int, cancel: Sequence[int], *, quiet_behind: bool = False
) -> tuple[EmulatorServer, OpenAIBackend, list[asyncio.Task[Completion]]]:
    """``n`` calls in line behind a probe that hangs at the server; once it is there, the
    calls at ``cancel`` are cancelled, in that order, and every call is let settle.

    ``quiet_behind`` also checks, before any cancel, that the calls behind the probe
    sent nothing. The backend is closed; it can still serve on another event loop.
    """
    server = serve_reasoner(early=["hang"])
    backend = backend_at(server)

    async def go() -> list[asyncio.Task[Completion]]:
        try:
            tasks = started(backend, distinct(backend, n))
            await until_counted(server, "early:hang")  # the probe is at the server
            if quiet_behind:
                assert server.count("refused") == 0  # and the calls behind it sent nothing
            for i in cancel:
                tasks[i].cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return tasks
        finally:
            await backend.aclose()

    return server, backend, run(go())


@pytest.mark.parametrize("transport", ["lean", "sdk"])
@pytest.mark.parametrize(
    ("fault", "error", "timeout"),
    [
        ("server_error", ServerError, 60.0),
        ("reset", ServerError, 60.0),
        ("hang", BackendTimeout, 3.0),  # the hang outlasts any timeout: the test ends it
    ],
)
def test_a_probe_that_fails_hands_its_turn_to_the_next_call(
    serve_reasoner: Any, transport: str, fault: str, error: type[BackendError], timeout: float
) -> None:
    server = serve_reasoner(early=[fault])
    backend = backend_at(server, transport=transport, timeout=timeout)

    async def go() -> list[Completion | BaseException]:
        try:
            return await asyncio.gather(
                *map(backend.complete, distinct(backend, 12)), return_exceptions=True
            )
        finally:
            await backend.aclose()

    done = run(go())

    # The probe failed before the server read it; the next call in line probed in its
    # place and paid each refusal once, then the other ten went with what it learned.
    assert isinstance(done[0], error), done[0]
    assert not isinstance(done[0], FatalBackendError)
    assert all(isinstance(c, Completion) and c.text == "A" for c in done[1:]), done
    assert server.count(f"early:{fault}") == 1
    assert refusals(server) == {"max_tokens": 1, "temperature": 1, "logprobs": 1}
    assert server.count("refused") == backend.refused == 3
    assert server.count("ok") == 11
    # Every request is counted once, by the call that sent it.
    assert sum(c.requests for c in done if isinstance(c, Completion)) == 11 + 3


def test_a_cancelled_probe_hands_its_turn_to_the_next_call(serve_reasoner: Any) -> None:
    # Ctrl-C of the probe's one call, once the seven behind it are seen to send nothing.
    server, _, tasks = cancelled_in_line(serve_reasoner, 8, (0,), quiet_behind=True)

    assert settled(tasks) == ["cancelled"] + ["ok"] * 7
    assert refusals(server) == {"max_tokens": 1, "temperature": 1, "logprobs": 1}
    assert server.count("ok") == 7


def test_calls_cancelled_in_line_wedge_nothing(serve_reasoner: Any) -> None:
    # Calls in line leave it: the next one, one further back, and the last; then the
    # probe: the turn goes to the first call left.
    server, _, tasks = cancelled_in_line(serve_reasoner, 8, (1, 4, 7, 0))

    assert settled(tasks) == ["cancelled" if i in (0, 1, 4, 7) else "ok" for i in range(8)]
    assert refusals(server) == {"max_tokens": 1, "temperature": 1, "logprobs": 1}
    assert server.count("ok") == 4


def test_the_probe_and_the_next_call_cancelled_together(serve_reasoner: Any) -> None:
    server, _, tasks = cancelled_in_line(serve_reasoner, 5, (0, 1))
    assert settled(tasks) == ["cancelled"] * 2 + ["ok"] * 3
    assert refusals(server) == {"max_tokens": 1, "temperature": 1, "logprobs": 1}


def test_a_fatal_probe_fails_the_calls_in_line_unsent(serve_reasoner: Any) -> None:
    # acme-reasoner is served as an o-series model, which takes no 'minimal': every
    # call would be refused for the reasoning_effort the user asked for.
    server = serve_reasoner(early=[])
    backend = backend_at(server, reasoning_effort="minimal")

    async def go() -> list[Completion | BaseException]:
        try:
            return await asyncio.gather(
                *map(backend.complete, distinct(backend, 6)), return_exceptions=True
            )
        finally:
            await backend.aclose()

    done = run(go())

    assert all(isinstance(c, FatalBackendError) for c in done), done
    assert all("reasoning_effort" in str(c) for c in done)
    # The probe paid the three lessons and the refusal that stops the run; the five
    # behind it failed with its error and sent nothing.
    assert server.count("refused:reasoning_effort") == 1
    assert server.count("refused") == 4
    assert [getattr(c, "requests", None) for c in done[1:]] == [0] * 5


def test_calls_asking_a_parameter_no_answer_has_shown_taken_probe_again(
    serve_reasoner: Any,
) -> None:
    server = serve_reasoner(early=[])
    backend = backend_at(server)
    scores = distinct(backend, 1, label_only=False)  # no logprobs asked
    labels = distinct(backend, 6)  # logprobs asked: not yet shown to be taken

    async def go() -> list[Completion]:
        try:
            first = await backend.complete(scores[0])
            return [first, *await asyncio.gather(*map(backend.complete, labels))]
        finally:
            await backend.aclose()

    done = run(go())

    assert len(done) == 7
    assert refusals(server) == {"max_tokens": 1, "temperature": 1, "logprobs": 1}


def test_a_line_left_by_a_closed_loop_does_not_bind_the_next_one(serve_reasoner: Any) -> None:
    server, backend, _ = cancelled_in_line(
        serve_reasoner, 3, (0, 1, 2)
    )  # every call leaves the line

    async def later() -> list[Completion]:
        try:
            return await asyncio.gather(*map(backend.complete, distinct(backend, 4)))
        finally:
            await backend.aclose()

    done = run(later())  # another event loop, as a second session's

    assert [c.text for c in done] == ["A"] * 4
    assert refusals(server) == {"max_tokens": 1, "temperature": 1, "logprobs": 1}


def test_a_known_model_sends_every_call_at_once(serve_reasoner: Any) -> None:
    server = serve_reasoner(early=["hang"])
    backend = backend_at(server, "gpt-4o-mini")

    async def go() -> list[asyncio.Task[Completion]]:
        try:
            tasks = started(backend, distinct(backend, 6))
            # The first hangs at the server; the others are not held behind it.
            await asyncio.gather(*tasks[1:])
            tasks[0].cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return tasks
        finally:
            await backend.aclose()

    assert settled(run(go())) == ["cancelled"] + ["ok"] * 5
    assert server.count("refused") == 0
    assert backend._probe is None  # no line was ever made


def test_the_runner_retries_a_failed_probe_and_keeps_every_call(
    serve_reasoner: Any, tmp_path: Path
) -> None:
    server = serve_reasoner(early=["server_error"])
    backend = backend_at(server)
    options = RunOptions(concurrency=12, progress="quiet", retry=RetryPolicy(base_delay=0.0))

    async def go(batch: Batch) -> RunSummary:
        try:
            return (await AsyncioExecutor().execute(batch)).summary
        finally:
            await backend.aclose()

    with Store(tmp_path / "s.sqlite") as store:
        summary = run(go(Batch([backend], distinct(backend, 12), store, options)))
        stored = store.count(status="ok")

    assert (summary.made, summary.failed, stored) == (12, 0, 12)
    assert summary.refused == server.count("refused") == 3
    assert refusals(server) == {"max_tokens": 1, "temperature": 1, "logprobs": 1}
    # The 500, the three refusals and the twelve answers: each request counted once.
    sent = server.count("early:server_error") + server.count("refused") + server.count("ok")
    assert summary.requests == sent == 1 + 3 + 12


def test_a_run_stopped_by_a_fatal_probe_counts_only_the_requests_sent(
    serve_reasoner: Any, tmp_path: Path
) -> None:
    server = serve_reasoner(early=[])
    backend = backend_at(server, reasoning_effort="minimal")  # refused, and not droppable
    options = RunOptions(concurrency=12, progress="quiet")

    async def go(batch: Batch) -> None:
        try:
            await AsyncioExecutor().execute(batch)
        finally:
            await backend.aclose()

    with Store(tmp_path / "s.sqlite") as store:
        with pytest.raises(FatalBackendError, match="reasoning_effort"):
            run(go(Batch([backend], distinct(backend, 12), store, options)))
        attempts = [record.attempts for record in store.records()]

    assert server.count("refused:reasoning_effort") == 1
    # Every stored call's attempts add up to what the server saw: the probe's three
    # lessons and its fatal refusal; a call that failed in line was never sent.
    assert sum(attempts) == server.count("refused") == 4
    assert server.count("ok") == 0


def test_calls_failed_unsent_behind_a_fatal_probe_leave_no_row_and_a_rerun_sends_them(
    serve_reasoner: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve_reasoner(early=[])
    specs = distinct(backend_at(server), 12)
    options = RunOptions(concurrency=12, progress="quiet")

    async def go(backend: OpenAIBackend) -> RunSummary:
        try:
            batch = Batch([backend], specs, store, options)
            return (await AsyncioExecutor().execute(batch)).summary
        finally:
            await backend.aclose()

    with Store(tmp_path / "s.sqlite") as store:
        monkeypatch.setenv("OPENAI_API_KEY", WRONG_KEY)
        with pytest.raises(AuthenticationError, match="run again to continue"):
            run(go(backend_at(server)))  # the probe's 401 fails the eleven in line, unsent
        stopped = [(record.status, record.attempts) for record in store.records()]
        sent = server.count("refused") + server.count("unauthorized")
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        rerun = run(go(backend_at(server)))
        stored = store.count(status="ok")

    # The store holds the one call sent (its refusals, then its 401): no row for a call
    # never sent, which would read as a failed judgment (it used to hold 4 more, with
    # 0 attempts each).
    assert server.count("unauthorized") == 1
    assert stopped == [("error", sent)]
    # The rerun sends all twelve: the probe's call and the eleven never sent.
    assert (rerun.made, rerun.failed, rerun.cached, stored) == (12, 0, 0, 12)
    assert server.count("ok") == 12


def test_another_copy_learns_from_the_first_without_a_refusal(serve_reasoner: Any) -> None:
    """What a Ray worker's copy learned reaches another copy; its calls go at once, untaught."""
    server = serve_reasoner(early=[])
    first, second = backend_at(server), backend_at(server)

    async def go() -> tuple[list[Completion], list[Completion]]:
        try:
            taught = await asyncio.gather(*map(first.complete, distinct(first, 3)))
            second.learn_from(first.knowledge)
            return taught, await asyncio.gather(*map(second.complete, distinct(second, 6)))
        finally:
            await first.aclose()
            await second.aclose()

    taught, learned = run(go())

    assert refusals(server) == {"max_tokens": 1, "temperature": 1, "logprobs": 1}
    assert (first.refused, second.refused) == (3, 0)  # the copy counts none: it paid none
    assert all(c.text == "A" for c in taught + learned)
    assert all(c.requests == 1 for c in learned)
    assert second.lessons == first.lessons
    assert second.knowledge == first.knowledge
    assert first.knowledge.size == len(first.knowledge.changes) + len(first.knowledge.accepted) > 0
    # A known model's copy has nothing to hand on.
    assert backend_at(server, "gpt-4o-mini").knowledge.size == 0


def test_knowledge_merges_each_change_once_and_only_grows() -> None:
    from fairjudge.backends._capabilities import Change, Knowledge

    rename = Change("max_tokens", "max_completion_tokens", 400, "no", add=10)
    drop = Change("temperature", None, 400, "no")
    a = Knowledge((rename,), frozenset({"max_tokens"}))
    b = Knowledge((Change("max_tokens", "max_completion_tokens", 400, "other"), drop),
                  frozenset({"temperature"}))  # fmt: skip
    merged = a.merged(b)
    assert merged.changes == (rename, drop)  # the first copy's change for a parameter
    assert merged.accepted == {"max_tokens", "temperature"}
    assert merged.size >= max(a.size, b.size)
    assert merged.merged(a) == merged
