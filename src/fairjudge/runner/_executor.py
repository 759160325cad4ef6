"""Where a batch of calls runs: :func:`run_calls`, the executor seam, the loop thread.

An executor takes backends, calls, store, options and a parser and returns one
:class:`~fairjudge.runner.RunResult`; each stores every finished call under its key
before returning, never calls a cached key again, and gives one outcome per key.
:class:`EventLoopThread` keeps one event loop on a background thread, so sync code
(a notebook's, where a loop may already run) drives the async engine and a backend's
connections stay on the loop that opened them.
"""

from __future__ import annotations

import contextlib
import random
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from fairjudge._call import Backend, CallSpec, route_of
from fairjudge._errors import ConfigError, FatalBackendError
from fairjudge.runner._limits import GRACEFUL_STOP, RunOptions, interrupt_grace_s
from fairjudge.runner._result import RunResult
from fairjudge.runner._store import Store

if TYPE_CHECKING:  # the engine (asyncio and all) loads with the first batch it runs
    import asyncio  # (a rerun the store answers entirely never starts a loop)
    import concurrent.futures

    from fairjudge.runner._run import Parser, Run

__all__ = ["AsyncioExecutor", "Batch", "EventLoopThread", "Executor", "run_calls"]


async def run_calls(
    backends: Backend | Sequence[Backend],
    specs: Iterable[CallSpec],
    *,
    store: Store,
    options: RunOptions | None = None,
    on_progress: Callable[[int], None] | None = None,
    parse: Parser | None = None,
    rng: random.Random | None = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
    on_stop: Callable[[RunResult], None] | None = None,
) -> RunResult:
    """Run judge calls through the store, the limits and the backends.

    Args:
        backends: Where uncached calls go. Each call goes to the backend whose
            ``(name, model, base_url)`` matches the spec's (:attr:`CallSpec.route`),
            so one run can carry several judges.
        specs: The calls; duplicates (equal keys) are made once.
        store: The cache and audit log.
        options: Concurrency, rate limits, budgets, retries and progress
            (:class:`~fairjudge.runner.RunOptions`; validated when built).
        on_progress: Called with the number of calls just settled (batched, a few
            times a second; cached calls are reported at once).
        parse: Turns each fresh reply into the JSON stored with it.
        rng: Source of retry jitter (for reproducible tests).
        clock: Seconds, for the rate limits and for a call's retries against
            ``RetryPolicy.max_call_s``; the event loop's clock by default.
        sleep: How the rate limits and retries wait; ``asyncio.sleep`` by default
            (tests pass one that moves a fake ``clock`` instead of waiting).
        on_stop: Called, before a :class:`FatalBackendError` is raised, with what the
            run had finished: the outcomes so far (``ok`` and ``error``), every other
            call ``not_run``, and the summary then. For a caller whose store keeps
            nothing (an undeclared Python judge's is in memory), so that the finished
            calls can still be returned (:meth:`~fairjudge.judges.JudgeSession.run`).

    Returns:
        One outcome per unique call and a summary. Calls that failed after their
        retries are outcomes with status ``error``; calls a budget kept from starting
        have status ``not_run`` and ``result.stopped`` names the budget.

    Raises:
        FatalBackendError: A backend rejected a call in a way retrying cannot fix
            (bad request, bad credentials, unknown model), or nothing answered at
            its address on any attempt of any call. Calls in flight are cancelled;
            every finished call is already in the store.
        ConfigError: A spec names a backend that is not among ``backends``.
    """
    pool = [backends] if isinstance(backends, Backend) else list(backends)
    from fairjudge.runner._run import Run

    specs = list(specs)  # read twice when the run stops (on_stop)
    if store.path == ":memory:":  # keeps nothing: the command line's Ctrl-C stops it gracefully
        GRACEFUL_STOP.arm()
    run = Run(
        {route_of(b): b for b in pool},
        store=store,
        options=options if options is not None else RunOptions(),
        on_progress=on_progress,
        parse=parse,
        rng=rng if rng is not None else random.Random(),
        clock=clock,
        sleep=sleep,
    )
    try:
        return await run.execute(specs)
    except FatalBackendError:
        if on_stop is not None:
            on_stop(_finished_so_far(run, specs))
        raise


def _finished_so_far(run: Run, specs: Sequence[CallSpec]) -> RunResult:
    """A stopped run's outcomes: those it reached, every other call ``not_run``."""
    from fairjudge.runner._result import CallOutcome

    outcomes = dict(run.outcomes)
    for spec in specs:
        if spec.key not in outcomes:
            outcomes[spec.key] = CallOutcome(spec.key, spec, "not_run")
    return RunResult(tuple(spec.key for spec in specs), outcomes, run.summary())


@dataclass(frozen=True, slots=True)
class Batch:
    """One batch of calls for an executor to run.

    Attributes:
        backends: Where calls go, each by its ``(name, model, base_url)`` route.
        specs: The calls (duplicates are made once).
        store: The cache and audit log.
        options: Concurrency, limits, budgets, retries, progress.
        parse: Reads each fresh reply into the JSON stored with it.
        on_progress: Called with the number of calls just settled.
        on_stop: Called with what a run that stops had finished (:func:`run_calls`);
            an executor that cannot say it leaves it uncalled.
    """

    backends: Sequence[Backend]
    specs: Sequence[CallSpec]
    store: Store
    options: RunOptions
    parse: Parser | None = None
    on_progress: Callable[[int], None] | None = None
    on_stop: Callable[[RunResult], None] | None = None


@runtime_checkable
class Executor(Protocol):
    """Runs a batch of calls against the store; see the module docstring for the contract."""

    async def execute(self, batch: Batch) -> RunResult:
        """Make the uncached calls, store every finished one, and return the outcomes."""
        ...


class AsyncioExecutor:
    """Runs the calls on the current event loop with :func:`~fairjudge.runner.run_calls`.

    Args:
        rng: Source of retry jitter; seed it for reproducible tests.
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng

    async def execute(self, batch: Batch) -> RunResult:
        """Run the batch on this event loop: bounded concurrency, limits, retries, store."""
        return await run_calls(
            batch.backends,
            batch.specs,
            store=batch.store,
            options=batch.options,
            parse=batch.parse,
            on_progress=batch.on_progress,
            rng=self.rng,
            on_stop=batch.on_stop,
        )


T = TypeVar("T")

_CANCEL_GRACE_S = 10.0  # how long an interrupted caller waits for the run to wind down
_POLL_S = 0.2
_STORING_S = 0.5  # past the grace: for the replies that came in to be committed
_TICK_S = 0.05  # how often the grace looks whether the calls in flight have finished
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
        self._pending: set[concurrent.futures.Future[Any]] = set()

    @property
    def started(self) -> bool:
        """Whether the loop's thread is running (it starts on first use)."""
        return self._loop is not None

    def _ensure(self) -> asyncio.AbstractEventLoop:
        # Called with ``_lock`` held.
        if self._loop is None:
            import asyncio

            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=self._main, args=(loop,), name=self._name, daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
        return self._loop

    def _main(self, loop: asyncio.AbstractEventLoop) -> None:
        # Let Ctrl-C and friends go to the main thread, which waits on our futures.
        import asyncio

        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        except BaseException as exc:  # a SystemExit or KeyboardInterrupt a task let out
            self._died(loop, exc)

    def _died(self, loop: asyncio.AbstractEventLoop, exc: BaseException) -> None:
        """The loop stopped for good: fail every future waiting on it; the next use starts anew.

        Without this a caller would wait for ever on a future that no one completes.
        """
        import concurrent.futures

        with self._lock:
            if self._loop is loop:
                self._loop = self._thread = None
            pending, self._pending = self._pending, set()
        error = FatalBackendError(
            f"the event loop that runs the judge calls stopped: {type(exc).__name__}"
            f"{exc.args!r} escaped it (from outside any judge call: a callback, or a task "
            "a judge left running); the calls stored before it stopped are kept"
        )
        error.__cause__ = exc
        for future in list(pending):  # each one, once failed, leaves the set
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                future.set_exception(error)
        loop.close()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the loop and return a thread-safe future for its result."""
        import asyncio

        with self._lock:  # so that a loop dying now fails this future too (:meth:`_died`)
            future = asyncio.run_coroutine_threadsafe(coro, self._ensure())
            self._pending.add(future)
        future.add_done_callback(self._pending.discard)
        return future

    def run(self, coro: Coroutine[Any, Any, T], *, calls: bool = True) -> T:
        """Run ``coro`` on the loop and block until it finishes.

        If the caller is interrupted (Ctrl-C), the runs on the loop start no new call,
        and the calls in flight get a grace period (:meth:`_grace`) to finish and be
        stored; then the coroutine is cancelled and the interruption propagates.
        ``calls=False`` (closing the backends) makes no call, so the grace is not read:
        a value set wrong since the last run never stops a close.

        Raises:
            RuntimeError: Called from the loop's own thread, which would deadlock.
            ConfigError: ``$FAIRJUDGE_INTERRUPT_GRACE`` is no number of seconds: said
                before any call, not at the Ctrl-C that reads it.
        """
        if self._thread is not None and threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError(
                "a sync judge method was called from inside its own event loop; "
                "await the async method (ajudge_batch) instead"
            )
        try:
            if calls:
                interrupt_grace_s()
        except ConfigError:
            coro.close()
            raise
        import concurrent.futures

        future = self.submit(coro)
        try:
            while True:
                # A timeout, so that a signal delivered to another thread is still
                # noticed (Python runs signal handlers in the main thread only).
                with contextlib.suppress(concurrent.futures.TimeoutError):
                    return future.result(timeout=_POLL_S)
        except BaseException as exc:
            try:
                if isinstance(exc, KeyboardInterrupt) and not future.done():
                    self._grace(exc)
            finally:  # a second Ctrl-C in the grace (from Python: a KeyboardInterrupt) too
                if not future.done():
                    future.cancel()
                    concurrent.futures.wait([future], timeout=_CANCEL_GRACE_S)
            raise

    def _grace(self, interrupt: KeyboardInterrupt) -> None:
        """Wait up to :func:`~fairjudge.runner._limits.interrupt_grace_s` for the calls in flight.

        Their replies are billed whether or not they are waited for; each that comes
        in is stored as any reply (:func:`_wind_down`), so the rerun is served it. The
        wait is bounded here, in the caller's thread, whatever the loop does (a judge
        that blocks it, llama.cpp's thread that cannot be stopped): the grace and
        half a second to commit. What it kept and abandoned rides on ``interrupt`` as
        a note (PEP 678), which the command line prints after its own line.
        """
        import asyncio
        import concurrent.futures
        import time

        try:
            seconds = interrupt_grace_s()
        except ConfigError:  # set since :meth:`run` read it, before any call
            seconds = 0.0
        loop = self._loop
        if seconds <= 0 or loop is None:
            return
        ends = time.monotonic() + seconds + _STORING_S
        wind = asyncio.run_coroutine_threadsafe(_wind_down(seconds), loop)
        while (left := ends - time.monotonic()) > 0:
            try:
                counts = wind.result(timeout=min(_POLL_S, left))
            except concurrent.futures.TimeoutError:
                continue
            except Exception:  # the grace's own failure (a store past writing): no count said
                return
            if counts is not None:
                interrupt.add_note(_grace_note(*counts, seconds))
            return
        wind.cancel()

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


async def _wind_down(seconds: float) -> tuple[int, int, int] | None:
    """Stop the runs on this loop from sending calls; wait ``seconds`` for those in flight.

    Each reply that comes in meanwhile is stored as usual (:meth:`Run._succeeded`)
    and committed here. Nothing waits for a judge that keeps nothing (an undeclared
    Python judge's store is in memory).

    In flight means at the backend now (``Run.sent``): a call backing off after a
    failed attempt, or waiting for its model's probe (``Run._in_line``), has nothing
    at the server, is never sent once halted, and is not counted.

    Returns:
        Of the calls in flight at the interrupt: those whose reply was stored ``ok``
        (the rerun is served them), those that ended in an error (an error row, or a
        retryable error: halted, it is not sent again; the rerun makes them again),
        and those abandoned (still at the backend when the grace ended); ``None`` when
        none was in flight.
    """
    import asyncio

    from fairjudge.runner._run import MAKING

    loop = asyncio.get_running_loop()
    runs = [r for r in list(MAKING) if r.loop is loop and r.store.path != ":memory:"]
    for run in runs:
        run.halted = True  # start no call, send no retry
    flying = sum(len(r.sent) for r in runs)
    if not flying:
        return None
    with contextlib.suppress(OSError, ValueError):  # a closed stderr does not end the wait
        print(
            f"interrupted: waiting up to {seconds:g} s for the {_calls(flying)} in flight, "
            f"so that {'its reply is' if flying == 1 else 'their replies are'} stored; a "
            "second Ctrl-C or SIGTERM stops at once",
            file=sys.stderr, flush=True,
        )  # fmt: skip
    before = sum(r.done for r in runs)
    ends = loop.time() + seconds
    # Run.sent holds the calls in flight; no event says it is empty, so it is looked at.
    while any(r.sent for r in runs) and loop.time() < ends:  # noqa: ASYNC110
        await asyncio.sleep(_TICK_S)
    for run in runs:
        run.writer.flush()  # what came in, committed before the caller goes on to exit
    # Halted, no call enters Run.sent; one that left it is counted done when it was ok.
    kept = sum(r.done for r in runs) - before
    abandoned = sum(len(r.sent) for r in runs)
    return kept, flying - kept - abandoned, abandoned


def _calls(n: int) -> str:
    return f"{n} call" if n == 1 else f"{n} calls"


def _grace_note(kept: int, failed: int, abandoned: int, seconds: float) -> str:
    """What the grace period kept: said after the interruption's own line."""
    note = (
        f"of the {_calls(kept + failed + abandoned)} in flight, {kept} finished within the "
        f"{seconds:g} s grace period and {'is' if kept == 1 else 'are'} stored"
    )
    if failed:  # an error is no reply to serve: the rerun makes the call again
        note += f", {failed} failed"
        if not abandoned:
            note += f" (the rerun makes {'it' if failed == 1 else 'them'} again)"
    note += f", {abandoned} {'was' if abandoned == 1 else 'were'} abandoned"
    if abandoned:
        redo = "it" if abandoned == 1 else "them"
        note += f" (the rerun makes {f'these {failed + abandoned}' if failed else redo} again)"
    return note


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
