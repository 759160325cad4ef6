"""The judge session: one run over several backends, each reply parsed once, with its context."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fairjudge import ConfigError, Item, ParseFailure, Reply, evaluate_pairs
from fairjudge._call import CallSpec, Completion
from fairjudge.judges import JudgeSession, LLMJudge
from fairjudge.judges._session import Job
from fairjudge.runner import AsyncioExecutor, Batch, RunOptions, RunResult
from tests.runner._fakes import FakeBackend

QUIET = RunOptions(progress="quiet")


def spec(backend: FakeBackend, text: str, sample: int = 0) -> CallSpec:
    return CallSpec(
        backend=backend.name,
        model=backend.model,
        messages=(("user", text),),
        template="t",
        template_version="1",
        sample=sample,
        kind="score",
    )


def test_one_run_routes_each_call_to_its_own_backend(tmp_path: Path) -> None:
    a = FakeBackend(lambda s, n: "from a", model="model-a")
    b = FakeBackend(lambda s, n: "from b", model="model-b")
    with JudgeSession([a, b], store=tmp_path / "s.sqlite", options=QUIET) as session:
        jobs = [Job(spec(a, "q1"), "ctx-a"), Job(spec(b, "q1"), "ctx-b")]
        replies = session.run(jobs, lambda c, ctx: Reply(None, payload={"text": c.text}))
        assert [r.payload for r in replies] == [{"text": "from a"}, {"text": "from b"}]
        assert (a.calls, b.calls) == (1, 1)
        assert session.last_run is not None
        assert session.last_run.made == 2
    assert a.closed
    assert b.closed


def test_each_reply_is_parsed_once_with_its_own_context(tmp_path: Path) -> None:
    backend = FakeBackend(lambda s, n: s.messages[-1][1].upper())
    seen: list[tuple[str, str]] = []

    def parse(completion: Completion, context: str) -> Reply:
        seen.append((completion.text, context))
        return Reply(None, payload={"context": context})

    jobs = [Job(spec(backend, f"q{i}"), f"ctx{i}") for i in range(3)]
    jobs.append(Job(spec(backend, "q0"), "ctx0"))  # a duplicate call: made and parsed once
    with JudgeSession(backend, store=tmp_path / "s.sqlite", options=QUIET) as session:
        replies = session.run(jobs, parse)
        assert sorted(seen) == [("Q0", "ctx0"), ("Q1", "ctx1"), ("Q2", "ctx2")]
        assert [r.payload for r in replies][-1] == {"context": "ctx0"}
        assert [r.raw for r in replies] == ["Q0", "Q1", "Q2", "Q0"]
        seen.clear()
        again = session.run(jobs, parse)  # from the store: parsed once more, no calls
        assert sorted(seen) == [("Q0", "ctx0"), ("Q1", "ctx1"), ("Q2", "ctx2")]
        assert all(r.cached for r in again)
        assert backend.calls == 3
        record = session.store.get(jobs[1].spec.key)
        assert record is not None
        assert record.parsed == {
            "verdict": None,
            "probabilities": None,
            "payload": {"context": "ctx1"},
        }


def test_a_parser_that_raises_is_a_parse_failure_and_the_reply_is_kept(tmp_path: Path) -> None:
    backend = FakeBackend(lambda s, n: "paid for")

    def parse(completion: Completion, context: None) -> Reply:
        raise KeyError("scores")

    with JudgeSession(backend, store=tmp_path / "s.sqlite", options=QUIET) as session:
        (reply,) = session.run([Job(spec(backend, "q"), None)], parse)
        assert isinstance(reply.failure, ParseFailure)
        assert "the parser raised KeyError" in reply.failure.reason
        assert reply.raw == "paid for"


def test_a_call_for_an_unknown_backend_is_refused_before_any_call(tmp_path: Path) -> None:
    known, other = FakeBackend(model="known"), FakeBackend(model="other")
    with JudgeSession(known, store=tmp_path / "s.sqlite", options=QUIET) as session:
        with pytest.raises(ConfigError, match="no backend for the call to fake/other"):
            session.run([Job(spec(known, "q"), None), Job(spec(other, "q"), None)], _text)
        assert known.calls == 0


def _text(completion: Completion, context: object) -> Reply:
    return Reply(None, payload={"text": completion.text})


def test_the_budget_covers_the_session_across_judges(tmp_path: Path) -> None:
    a, b = FakeBackend(model="a"), FakeBackend(model="b")
    options = RunOptions(max_calls=3, progress="quiet")
    items = [Item(f"q{i}", "x", "y") for i in range(2)]
    with JudgeSession(store=tmp_path / "s.sqlite", options=options) as session:
        first = LLMJudge(a, session=session)
        second = LLMJudge(b, session=session)
        evaluate_pairs(first, items[:1])  # 2 calls
        result = evaluate_pairs(second, items[:1])  # 1 left of the session's 3
        assert result.stopped is not None
        assert "the max_calls=3 budget is spent" in result.stopped
        assert a.calls + b.calls == 3


def test_a_custom_executor_sees_the_batch(tmp_path: Path) -> None:
    batches: list[Batch] = []

    class Recording(AsyncioExecutor):
        async def execute(self, batch: Batch) -> RunResult:
            batches.append(batch)
            return await super().execute(batch)

    backend = FakeBackend()
    session = JudgeSession(
        backend, store=tmp_path / "s.sqlite", options=QUIET, executor=Recording()
    )
    with session:
        session.run([Job(spec(backend, "q"), None)], _text)
    (batch,) = batches
    assert [s.key for s in batch.specs] == [spec(backend, "q").key]
    assert batch.options.progress == "quiet"


def test_arun_inside_a_running_loop(tmp_path: Path) -> None:
    backend = FakeBackend(lambda s, n: "ok")

    async def main() -> list[Reply]:
        with JudgeSession(backend, store=tmp_path / "s.sqlite", options=QUIET) as session:
            return await session.arun([Job(spec(backend, "q"), None)], _text, None)

    (reply,) = asyncio.run(main())
    assert reply.payload == {"text": "ok"}


def test_a_session_with_no_backends_runs_an_empty_batch(tmp_path: Path) -> None:
    with JudgeSession(store=tmp_path / "s.sqlite", options=QUIET) as session:
        assert session.run([], _text) == []


def test_two_judges_on_one_model_share_the_backend_but_keep_their_params(tmp_path: Path) -> None:
    class Sampling(FakeBackend):
        def __init__(self, temperature: float) -> None:
            super().__init__(model="same")
            self.temperature = temperature

        def default_params(self, *, label_only: bool) -> dict[str, object]:
            return {"temperature": self.temperature}

    first, second = Sampling(0.0), Sampling(0.9)
    with JudgeSession(store=tmp_path / "s.sqlite", options=QUIET) as session:
        greedy = LLMJudge(first, session=session)
        sampled = LLMJudge(second, session=session)
        assert sampled.backend is first  # one backend per route
        assert second.closed  # the spare was closed at once
        assert (greedy.params["temperature"], sampled.params["temperature"]) == (0.0, 0.9)


def test_store_or_options_with_a_session_is_an_error(tmp_path: Path) -> None:
    with JudgeSession(store=tmp_path / "s.sqlite", options=QUIET) as session:
        with pytest.raises(ConfigError, match="store= does not apply with session="):
            LLMJudge(FakeBackend(), session=session, store=tmp_path / "other.sqlite")
        with pytest.raises(ConfigError, match="options= does not apply with session="):
            LLMJudge(FakeBackend(), session=session, options=QUIET)


def test_a_slow_one_call_backend_does_not_starve_a_fast_one(tmp_path: Path) -> None:
    import time

    finished: dict[str, list[float]] = {"local-like": [], "http-like": []}

    def script(spec: CallSpec, attempt: int) -> str:
        finished[spec.model].append(time.monotonic())
        return "A"

    slow = FakeBackend(script, model="local-like", latency=0.05, max_concurrency=1)
    fast = FakeBackend(script, model="http-like", latency=0.02)
    # The slow calls come first: one shared pool of workers would all park on the slow
    # backend's single slot, and the fast calls would wait for every slow one.
    jobs = [Job(spec(slow, f"s{i}"), None) for i in range(16)]
    jobs += [Job(spec(fast, f"f{i}"), None) for i in range(64)]
    options = RunOptions(concurrency=16, progress="quiet")
    with JudgeSession([slow, fast], store=tmp_path / "s.sqlite", options=options) as session:
        replies = session.run(jobs, _text)
    assert all(r.ok for r in replies)
    assert slow.max_in_flight == 1
    assert max(finished["http-like"]) < max(finished["local-like"])
    assert fast.max_in_flight >= 8
