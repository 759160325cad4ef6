"""Local calls on daemon threads of their own, so an interrupted call is abandoned.

llama.cpp's in-process API cannot stop a prompt being evaluated (a long prompt takes
tens of seconds on a small CPU). :func:`asyncio.to_thread` would make the event
loop's shutdown and the interpreter's exit join the call's thread, so a Ctrl-C would
wait for it; here a cancelled await returns at once and the call's result, when it
comes, is dropped. A Python program that exits normally still waits for such calls
(an ``atexit`` hook), as tearing llama.cpp down under a running prompt would crash
the interpreter; the command line ends an interrupted run with ``os._exit``.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["on_daemon_thread"]

T = TypeVar("T")


async def on_daemon_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on a daemon thread of its own; cancelling the await abandons it.

    Unlike :func:`asyncio.to_thread`, whose executor threads the event loop's
    shutdown and the interpreter's exit both join, an abandoned call here holds
    neither: its result, when it comes, is dropped.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled: the caller has gone
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            result, error = fn(*args), None
        except BaseException as exc:  # handed to the awaiting task, raised there
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is waiting
            loop.call_soon_threadsafe(settle, result, error)
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.discard(threading.current_thread())

    thread = threading.Thread(target=run, name="fairjudge-llama-call", daemon=True)
    with _IN_FLIGHT_LOCK:
        _IN_FLIGHT.add(thread)
    thread.start()
    return await future


_IN_FLIGHT: set[threading.Thread] = set()
_IN_FLIGHT_LOCK = threading.Lock()


@atexit.register
def _wait_for_calls() -> None:
    """At a normal interpreter exit, let abandoned calls finish before llama.cpp goes."""
    with _IN_FLIGHT_LOCK:
        threads = list(_IN_FLIGHT)
    for thread in threads:
        thread.join()
