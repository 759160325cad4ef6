"""A private event loop on a background thread, so sync code can drive async judges.

A backend's connections belong to the loop that opened them, so one long-lived loop
keeps them valid for the judge's life, and the sync API works where a loop already
runs (a notebook): the caller's thread blocks until the batch is done.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import signal
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # asyncio itself loads with the loop, on first use (a rerun the store
    import asyncio  # answers entirely never starts one)

__all__ = ["EventLoopThread"]

T = TypeVar("T")

_CANCEL_GRACE_S = 10.0  # how long an interrupted caller waits for the run to wind down
_POLL_S = 0.2
_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class EventLoopThread:
    """Runs coroutines on one event loop in a daemon thread, started on first use.

    Args:
        name: The thread's name, for debuggers and ``py-spy``.
    """

    def __init__(self, name: str = "fairjudge-loop") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def started(self) -> bool:
        """Whether the loop's thread is running (it starts on first use)."""
        return self._loop is not None

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                import asyncio

                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=self._main, args=(loop,), name=self._name, daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    @staticmethod
    def _main(loop: asyncio.AbstractEventLoop) -> None:
        # Let Ctrl-C and friends go to the main thread, which waits on our futures.
        import asyncio

        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        asyncio.set_event_loop(loop)
        loop.run_forever()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the loop and return a thread-safe future for its result."""
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self._ensure())

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and block until it finishes.

        If the caller is interrupted (Ctrl-C), the coroutine is cancelled and given a
        moment to wind down (so finished calls reach the store) before the
        interruption propagates.

        Raises:
            RuntimeError: Called from the loop's own thread, which would deadlock.
        """
        if self._thread is not None and threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError(
                "a sync judge method was called from inside its own event loop; "
                "await the async method (ajudge_batch) instead"
            )
        future = self.submit(coro)
        try:
            while True:
                # A timeout, so that a signal delivered to another thread is still
                # noticed (Python runs signal handlers in the main thread only).
                with contextlib.suppress(concurrent.futures.TimeoutError):
                    return future.result(timeout=_POLL_S)
        except BaseException:
            if not future.done():
                future.cancel()
                concurrent.futures.wait([future], timeout=_CANCEL_GRACE_S)
            raise

    def close(self) -> None:
        """Stop the loop and join the thread. Safe to call twice; restarts on next use."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        if thread is threading.current_thread():
            raise RuntimeError("EventLoopThread.close() called from its own loop")
        import asyncio

        try:
            asyncio.run_coroutine_threadsafe(_drain(), loop).result(timeout=_CANCEL_GRACE_S)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()


async def _drain() -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    current = asyncio.current_task()
    tasks = [t for t in asyncio.all_tasks(loop) if t is not current]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await loop.shutdown_asyncgens()
    await loop.shutdown_default_executor()
