"""The judge session: one run over several backends, each reply parsed once, with its context."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fairjudge import BudgetExceeded, ConfigError, Item, ParseFailure, Reply, evaluate_pairs
from fairjudge._call import CallSpec, Completion
from fairjudge.judges import Job, JudgeSession, LLMJudge
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
        with pytest.raises(BudgetExceeded, match="--max-calls 3"):
            evaluate_pairs(second, items[:1])  # 1 left of the session's 3
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
