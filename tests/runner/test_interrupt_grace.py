"""A KeyboardInterrupt gives the calls in flight a bounded grace period, and stores them.

In a process of its own the command line's Ctrl-C is tested with a real signal
(``tests/cli/test_interrupt_grace.py``); here a session is interrupted in this
process as a notebook's kernel is (``_thread.interrupt_main``), once the backend has
every concurrency slot's call in flight. Every wait has a bound far above what the
step takes.
"""

from __future__ import annotations

import _thread
import threading
import time
from pathlib import Path

import pytest

from fairjudge import ConfigError, Reply
from fairjudge._call import CallSpec, Completion
from fairjudge.judges import JudgeSession
from fairjudge.judges._session import Job
from fairjudge.runner import RunOptions, Store
from fairjudge.runner._limits import DEFAULT_GRACE_S, GRACE_ENV, interrupt_grace_s
from tests.runner._fakes import FakeBackend, make_spec

N_CALLS = 12
CONCURRENCY = 4
WAIT_S = 60  # far above what any step takes; only a hang reaches it


def _text(completion: Completion, context: object) -> Reply:
    return Reply(None, payload={"text": completion.text})


def _interrupt_when_all_in_flight(backend: FakeBackend) -> None:
    def watch() -> None:
        deadline = time.monotonic() + WAIT_S
        while backend.in_flight < CONCURRENCY and time.monotonic() < deadline:
            time.sleep(0.005)
        _thread.interrupt_main()

    threading.Thread(target=watch, daemon=True).start()


def _interrupted(backend: FakeBackend, store: Path) -> tuple[KeyboardInterrupt, float]:
    """Run ``N_CALLS`` calls and interrupt them; the interruption and the seconds it took."""
    options = RunOptions(concurrency=CONCURRENCY, progress="quiet")
    jobs = [Job(make_spec(i), None) for i in range(N_CALLS)]
    with JudgeSession(backend, store=store, options=options) as session:
        _interrupt_when_all_in_flight(backend)
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt) as caught:
            session.run(jobs, _text)
        return caught.value, time.monotonic() - began


def _stored(store: Path) -> int:
    with Store(store) as opened:
        return len(opened.get_many({make_spec(i).key: make_spec(i) for i in range(N_CALLS)}))


def test_the_calls_in_flight_finish_in_the_grace_and_are_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(GRACE_ENV, "30")
    backend = FakeBackend(latency=0.5)
    interrupt, _ = _interrupted(backend, tmp_path / "s.sqlite")
    assert interrupt.__notes__ == [
        "of the 4 calls in flight, 4 finished within the 30 s grace period and are stored, "
        "0 were abandoned"
    ]
    assert (backend.calls, backend.cancelled) == (CONCURRENCY, 0)  # none started after it
    assert _stored(tmp_path / "s.sqlite") == CONCURRENCY  # what a rerun is served


def _first_to_end_fails(error: BaseException) -> FakeBackend:
    """A backend whose first call to end raises ``error``; every other call answers."""
    ended: list[int] = []

    def script(spec: CallSpec, attempt: int) -> BaseException | str:
        ended.append(attempt)
        return error if len(ended) == 1 else "A"

    return FakeBackend(script, latency=0.5)


def test_a_call_that_fails_in_the_grace_is_said_apart_from_those_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review40 F3: an error row is no reply the rerun is served.

    The note counted it as "finished ... and stored", and said "0 were abandoned".
    """
    monkeypatch.setenv(GRACE_ENV, "30")
    backend = _first_to_end_fails(ValueError("the gateway said no"))
    interrupt, _ = _interrupted(backend, tmp_path / "s.sqlite")
    assert interrupt.__notes__ == [
        "of the 4 calls in flight, 3 finished within the 30 s grace period and are stored, "
        "1 failed (the rerun makes it again), 0 were abandoned"
    ]
    assert _stored(tmp_path / "s.sqlite") == CONCURRENCY - 1


def test_the_grace_is_bounded_and_the_rest_are_abandoned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(GRACE_ENV, "0.2")
    backend = FakeBackend(latency=3600)
    interrupt, took = _interrupted(backend, tmp_path / "s.sqlite")
    assert interrupt.__notes__ == [
        "of the 4 calls in flight, 0 finished within the 0.2 s grace period and are stored, "
        "4 were abandoned (the rerun makes them again)"
    ]
    assert took < WAIT_S
    assert backend.cancelled == CONCURRENCY
    assert _stored(tmp_path / "s.sqlite") == 0


def test_no_grace_cancels_the_calls_in_flight_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(GRACE_ENV, "0")
    backend = FakeBackend(latency=3600)
    interrupt, _ = _interrupted(backend, tmp_path / "s.sqlite")
    assert not hasattr(interrupt, "__notes__")


def test_the_grace_is_read_from_the_environment() -> None:
    assert interrupt_grace_s({}) == DEFAULT_GRACE_S == 5.0
    assert interrupt_grace_s({GRACE_ENV: " "}) == DEFAULT_GRACE_S
    assert interrupt_grace_s({GRACE_ENV: " 2.5 "}) == 2.5
    assert interrupt_grace_s({GRACE_ENV: "0"}) == 0.0
    for bad in ("soon", "-1", "nan", "inf"):
        with pytest.raises(ConfigError, match=f"{GRACE_ENV}='{bad}' is not a number of seconds"):
            interrupt_grace_s({GRACE_ENV: bad})


def test_a_grace_set_wrong_after_a_run_never_stops_the_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing makes no call, so a bad ``$FAIRJUDGE_INTERRUPT_GRACE`` set since (a
    notebook's ``os.environ``) does not stop it (review F8): the close raised
    ConfigError and left the backends open. A run after it is still refused."""
    monkeypatch.delenv(GRACE_ENV, raising=False)
    backend = FakeBackend()
    session = JudgeSession(
        backend, store=tmp_path / "s.sqlite", options=RunOptions(progress="quiet")
    )
    session.run([Job(make_spec(0), None)], _text)
    monkeypatch.setenv(GRACE_ENV, "soon")
    with pytest.raises(ConfigError):
        session.run([Job(make_spec(1), None)], _text)
    session.close()
    assert backend.closed
