"""The executor seam: where a batch of calls actually runs.

A judge session hands an executor its backends, the calls, the store, the options
and a parser, and gets one :class:`~fairjudge.runner.RunResult` back. Today's
executor runs everything on one asyncio event loop in this process
(:class:`AsyncioExecutor`). A distributed executor (Ray, say) implements the same
method with the same store contract: every finished call is a row keyed by
:attr:`CallSpec.key` before the run returns, a cached key is never called again,
and the result holds one outcome per unique key.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from fairjudge._call import Backend, CallSpec
from fairjudge.runner._options import RunOptions
from fairjudge.runner._result import RunResult
from fairjudge.runner._run import Parser, run_calls
from fairjudge.runner._store import Store

__all__ = ["AsyncioExecutor", "Batch", "Executor"]


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
