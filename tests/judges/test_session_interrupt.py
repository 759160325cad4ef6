"""A Ctrl-C during a batch carries what the executor leaves running, in its own words.

A provider's batch, once submitted, runs on (and is billed) whatever happens here,
so the interruption says so as a note (PEP 678): a notebook's traceback shows it,
and the command line prints it after its own line, with no knowledge of executors.
"""

from __future__ import annotations

import _thread
import asyncio
import threading
from pathlib import Path

import pytest

from fairjudge import Reply
from fairjudge._call import CallSpec, Completion
from fairjudge.judges import JudgeSession
from fairjudge.judges._session import Job
from fairjudge.runner import AsyncioExecutor, Batch, BatchExecutor, RunOptions, RunResult
from tests.runner._fakes import FakeBackend

pytestmark = pytest.mark.usefixtures("ctrl_c_raises")


class _Hanging(AsyncioExecutor):
    """Starts the batch, then waits until the main thread is interrupted."""

    interrupt_note = "the calls it started run on elsewhere"

    async def execute(self, batch: Batch) -> RunResult:
        threading.Timer(0.05, _thread.interrupt_main).start()
        await asyncio.sleep(60)
        raise AssertionError("not interrupted")


def _text(completion: Completion, context: object) -> Reply:
    return Reply(None, payload={"text": completion.text})


def _interrupted(executor: AsyncioExecutor, tmp_path: Path) -> KeyboardInterrupt:
    backend = FakeBackend()
    spec = CallSpec(backend=backend.name, model=backend.model, messages=(("user", "q"),),
                    template="t", template_version="1", sample=0, kind="score")  # fmt: skip
    options = RunOptions(progress="quiet")
    session = JudgeSession(backend, store=tmp_path / "s.sqlite", options=options,
                           executor=executor)  # fmt: skip
    with session, pytest.raises(KeyboardInterrupt) as caught:
        session.run([Job(spec, None)], _text)
    return caught.value


def test_the_executors_note_rides_on_the_interruption(tmp_path: Path) -> None:
    assert _interrupted(_Hanging(), tmp_path).__notes__ == ["the calls it started run on elsewhere"]


def test_an_executor_with_nothing_to_say_adds_no_note(tmp_path: Path) -> None:
    class Plain(_Hanging):
        interrupt_note = ""

    assert not hasattr(_interrupted(Plain(), tmp_path), "__notes__")


def test_a_batch_executor_says_its_batch_runs_on_and_how_to_collect_it() -> None:
    assert BatchExecutor.interrupt_note == (
        "a batch already submitted keeps running at the provider (and is billed): run the "
        "same work again to collect it (nothing is submitted twice)"
    )
