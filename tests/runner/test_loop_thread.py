"""The loop thread never leaves a caller waiting for ever.

A ``SystemExit`` or ``KeyboardInterrupt`` that a task lets out of the event loop ends
``run_forever`` and the loop's thread with it; every future still waiting on that
loop must then fail at once, and the next use must start a fresh loop. Each wait
here has a timeout, so a regression fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from fairjudge import FatalBackendError
from fairjudge.runner import EventLoopThread

WAIT_S = 60  # far above the time any of this takes; only a hang reaches it


async def _escapes(exc: BaseException) -> None:
    await asyncio.sleep(0)
    raise exc


async def _forever() -> None:
    await asyncio.Event().wait()


async def _answer() -> int:
    await asyncio.sleep(0)
    return 42


@pytest.mark.parametrize("escaping", [SystemExit(3), KeyboardInterrupt()])
def test_a_dead_loop_fails_every_waiting_future_and_the_next_use_starts_anew(
    escaping: BaseException,
) -> None:
    thread = EventLoopThread(name="test-loop")
    try:
        waiting = thread.submit(_forever())
        killer = thread.submit(_escapes(escaping))
        for future in (waiting, killer):
            with pytest.raises(FatalBackendError, match=type(escaping).__name__):
                future.result(timeout=WAIT_S)
        assert not thread.started
        assert thread.run(_answer()) == 42  # a fresh loop on a fresh thread
    finally:
        thread.close()


def test_run_raises_instead_of_waiting_on_a_dead_loop() -> None:
    thread = EventLoopThread(name="test-loop")
    raised: list[BaseException] = []

    def caller() -> None:
        try:
            thread.run(_escapes(SystemExit("bye")))
        except BaseException as exc:
            raised.append(exc)

    # run() blocks its caller: on a daemon thread, so that a hang fails the join below
    # and cannot keep the test process from exiting.
    waiter = threading.Thread(target=caller, daemon=True)
    waiter.start()
    waiter.join(WAIT_S)
    try:
        assert not waiter.is_alive(), "run() still waits on a loop that died"
        assert len(raised) == 1, raised
        assert isinstance(raised[0], FatalBackendError), raised
        assert "SystemExit" in str(raised[0])
    finally:
        if not waiter.is_alive():
            thread.close()
