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
from typing import Any

import pytest

from fairjudge import ConfigError, Reply
from fairjudge._call import CallSpec, Completion
from fairjudge._errors import RateLimitError
from fairjudge.backends import OpenAIBackend
from fairjudge.judges import JudgeSession
from fairjudge.judges._session import Job
from fairjudge.runner import RunOptions, Store
from fairjudge.runner._limits import DEFAULT_GRACE_S, GRACE_ENV, interrupt_grace_s
from tests.backends._calls import PROMPT, spec_for
from tests.runner._fakes import FakeBackend, make_spec
from tests.server import Script

pytestmark = pytest.mark.usefixtures("ctrl_c_raises")

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


class _OneBacksOff(FakeBackend):
    """Call 0's first attempt is refused at once with a 429 asking a minute's wait; every
    other request answers after ``latency``."""

    def __init__(self, latency: float) -> None:
        super().__init__(latency=latency)
        self.refused = threading.Event()

    async def complete(self, spec: CallSpec) -> Completion:
        if spec.key == make_spec(0).key and not self.refused.is_set():
            self.calls += 1
            self.attempts[spec.key] += 1
            self.refused.set()
            raise RateLimitError("HTTP 429: slow down", retry_after=60.0)
        return await super().complete(spec)


def test_a_call_backing_off_at_the_interrupt_is_not_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review40 F4: a call sleeping in its back-off stayed in ``Run.sent``.

    The grace waited for it to the end, and the note called it abandoned although
    nothing of it was at the server: "of the 4 calls in flight, 3 finished within the
    5 s grace period and are stored, 1 was abandoned". It is not sent again either.
    """
    monkeypatch.setenv(GRACE_ENV, "5")
    backend = _OneBacksOff(latency=1.0)
    options = RunOptions(concurrency=4, progress="quiet")
    jobs = [Job(make_spec(i), None) for i in range(4)]

    def watch() -> None:
        deadline = time.monotonic() + WAIT_S
        while not (backend.refused.is_set() and backend.in_flight == 3):
            if time.monotonic() > deadline:
                break
            time.sleep(0.005)
        _thread.interrupt_main()

    with JudgeSession(backend, store=tmp_path / "s.sqlite", options=options) as session:
        threading.Thread(target=watch, daemon=True).start()
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt) as caught:
            session.run(jobs, _text)
        took = time.monotonic() - began
    assert caught.value.__notes__ == [
        "of the 3 calls in flight, 3 finished within the 5 s grace period and are stored, "
        "0 were abandoned"
    ]
    assert backend.attempts[make_spec(0).key] == 1  # not sent again after the interrupt
    assert took < 5  # the grace ended with the last reply, not at its end


def test_no_call_in_line_behind_an_unknown_model_s_probe_starts_in_the_grace(
    serve_reasoner: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unknown model's calls wait for its probe's answer; a Ctrl-C came meanwhile.

    They waited in the backend's line, counted in flight, and went out when the probe
    was answered in the grace: "of the 12 calls in flight, 12 finished ...", twelve
    replies paid for after the interrupt. Now only the probe was in flight.
    """
    monkeypatch.setenv(GRACE_ENV, "30")
    server = serve_reasoner(Script(latency=1.0))  # the refusals come at once, answers in 1 s
    backend = OpenAIBackend("acme-reasoner", base_url=server.base_url)
    specs = [spec_for(backend, prompt=PROMPT.replace("2 + 2?", f"2 + {i}?")) for i in range(12)]
    options = RunOptions(concurrency=12, progress="quiet")

    def watch() -> None:  # the probe has learned its three lessons: its answer is coming
        server.emulator.wait_for("refused", 3, timeout=WAIT_S)
        _thread.interrupt_main()

    with JudgeSession(backend, store=tmp_path / "s.sqlite", options=options) as session:
        threading.Thread(target=watch, daemon=True).start()
        with pytest.raises(KeyboardInterrupt) as caught:
            session.run([Job(spec, None) for spec in specs], _text)
    assert caught.value.__notes__ == [
        "of the 1 call in flight, 1 finished within the 30 s grace period and is stored, "
        "0 were abandoned"
    ]
    assert server.count("ok") == 1  # nothing sent after the interrupt
