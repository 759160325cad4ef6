"""Where a batch of calls runs: :func:`run_calls`, and the executor seam around it.

An executor takes backends, calls, store, options and a parser and returns one
:class:`~fairjudge.runner.RunResult`; each stores every finished call under its key
before returning, never calls a cached key again, and gives one outcome per key.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from fairjudge._call import Backend, CallSpec, route_of
from fairjudge.runner._limits import RunOptions
from fairjudge.runner._result import RunResult
from fairjudge.runner._store import Store

if TYPE_CHECKING:  # the engine (asyncio and all) loads with the first batch it runs
    from fairjudge.runner._run import Parser

__all__ = ["AsyncioExecutor", "Batch", "Executor", "run_calls"]


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
    return await run.execute(specs)


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
    """

    backends: Sequence[Backend]
    specs: Sequence[CallSpec]
    store: Store
    options: RunOptions
    parse: Parser | None = None
    on_progress: Callable[[int], None] | None = None


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
        )
