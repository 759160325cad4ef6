"""A batch the store answers entirely: no event-loop thread, no backend call, no model load."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from fairjudge import Reply
from fairjudge._call import CallSpec, Completion
from fairjudge.judges import JudgeSession
from fairjudge.judges._session import Job
from fairjudge.runner import RunOptions
from tests.runner._fakes import FakeBackend

QUIET = RunOptions(progress="quiet")


def spec(backend: object, text: str) -> CallSpec:
    return CallSpec(
        backend=backend.name,  # type: ignore[attr-defined]
        model=backend.model,  # type: ignore[attr-defined]
        messages=(("user", text),),
        template="t",
        template_version="1",
    )


def read(completion: Completion, context: str) -> Reply:
    return Reply(None, payload={"text": completion.text, "context": context})


class Untouchable(FakeBackend):
    """Answers nothing: a call to it would be a bug on a fully cached batch."""

    async def complete(self, spec: CallSpec) -> Completion:
        raise AssertionError("a cached call reached the backend")


def session_threads(before: set[threading.Thread]) -> list[str]:
    """fairjudge's threads started since ``before`` was taken.

    Only new ones: a session closed just before (this test's first, or another
    test's on the same worker) may still be winding its threads down.
    """
    return [
        t.name for t in threading.enumerate() if t.name.startswith("fairjudge") and t not in before
    ]


def test_a_fully_cached_batch_starts_no_thread_and_asks_no_backend(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first = FakeBackend(lambda s, n: s.messages[-1][1].upper())
    jobs = [Job(spec(first, f"q{i % 3}"), f"ctx{i}") for i in range(5)]  # duplicates too
    with JudgeSession(first, store=store, options=QUIET) as session:
        fresh = session.run(jobs, read)

    progress: list[int] = []
    again = Untouchable()
    before = set(threading.enumerate())
    session = JudgeSession(again, store=store, options=QUIET)
    cached = session.run(jobs, read, progress=progress.append)
    assert not session._loop.started
    assert session_threads(before) == []
    session.close()
    assert again.calls == 0
    assert again.closed  # closed without starting the loop's thread
    assert session_threads(before) == []

    assert [r.payload for r in cached] == [r.payload for r in fresh]
    assert [r.raw for r in cached] == [r.raw for r in fresh]
    assert [r.key for r in cached] == [r.key for r in fresh]
    assert all(r.cached for r in cached)
    assert not any(r.cached for r in fresh)
    assert sum(progress) == len(jobs)
    summary = session.last_run
    assert summary is not None
    assert (summary.total, summary.cached, summary.made, summary.requests) == (3, 3, 0, 0)


def test_one_missing_call_runs_the_batch_on_the_engine(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    backend = FakeBackend(lambda s, n: "ok")
    with JudgeSession(backend, store=store, options=QUIET) as session:
        session.run([Job(spec(backend, "q0"), "")], read)
        replies = session.run([Job(spec(backend, "q0"), ""), Job(spec(backend, "q1"), "")], read)
        assert session._loop.started
    assert [r.cached for r in replies] == [True, False]
    assert backend.calls == 2


def test_a_cached_rerun_never_loads_the_local_model(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    from fairjudge.backends import LocalBackend

    store = tmp_path / "s.sqlite"
    model_id = "never-loaded@000000000000"
    stand_in = FakeBackend(lambda s, n: "A", model=model_id)
    stand_in.name = "local"  # the same route as the local backend below
    jobs = [Job(spec(stand_in, "q"), "")]
    with JudgeSession(stand_in, store=store, options=QUIET) as session:
        session.run(jobs, read)

    local = LocalBackend(tmp_path / "no-such-model.gguf", model_id=model_id)
    with JudgeSession(local, store=store, options=QUIET) as session:
        replies = session.run(jobs, read)
        assert not session._loop.started
    assert replies[0].raw == "A"
    assert local.load_s is None  # the GGUF file does not even exist
    assert local._server is None
