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
from typing import Protocol, runtime_checkable

from fairjudge._call import Backend, CallSpec
from fairjudge.runner._options import RunOptions
from fairjudge.runner._result import RunResult
from fairjudge.runner._run import Parser, run_calls
from fairjudge.runner._store import Store

__all__ = ["AsyncioExecutor", "Executor"]


@runtime_checkable
class Executor(Protocol):
    """Runs a batch of calls against the store; see the module docstring for the contract."""

    async def execute(
        self,
        backends: Sequence[Backend],
        specs: Sequence[CallSpec],
        *,
        store: Store,
        options: RunOptions,
        parse: Parser | None,
        on_progress: Callable[[int], None] | None,
    ) -> RunResult:
        """Make the uncached calls, store every finished one, and return the outcomes."""
        ...


class AsyncioExecutor:
    """Runs the calls on the current event loop with :func:`~fairjudge.runner.run_calls`.

    Args:
        rng: Source of retry jitter; seed it for reproducible tests.
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng

    async def execute(
        self,
        backends: Sequence[Backend],
        specs: Sequence[CallSpec],
        *,
        store: Store,
        options: RunOptions,
        parse: Parser | None,
        on_progress: Callable[[int], None] | None,
    ) -> RunResult:
        """Run the batch on this event loop: bounded concurrency, limits, retries, store."""
        return await run_calls(
            backends,
            specs,
            store=store,
            options=options,
            parse=parse,
            on_progress=on_progress,
            rng=self.rng,
        )
