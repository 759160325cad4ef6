"""The kind-agnostic engine: concurrency, rate limits, retries, budgets, cache, audit.

Nothing here knows what a call is for: a call is a :class:`~fairjudge._call.CallSpec`,
a backend answers it, a parser supplied by the caller reads the reply, and the store
keeps both. :class:`RunOptions` is the one bundle of run options; an
:class:`Executor` is the seam where a batch runs: on this process's event loop
(:class:`AsyncioExecutor`), on a Ray cluster (:class:`RayExecutor`, which imports
Ray only when it first runs a batch), or through the providers' batch APIs at half
the price (:class:`BatchExecutor`).
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface

if TYPE_CHECKING:
    from fairjudge._errors import BatchPending
    from fairjudge.runner._batch import DEFAULT_POLL_S, BatchExecutor
    from fairjudge.runner._call_record import CallRecord
    from fairjudge.runner._executor import (
        AsyncioExecutor,
        Batch,
        EventLoopThread,
        Executor,
        run_calls,
    )
    from fairjudge.runner._limits import Prices, RetryPolicy, RunOptions
    from fairjudge.runner._progress import (
        PROGRESS_LABEL,
        announce_plan,
        make_progress,
        progress_label,
    )
    from fairjudge.runner._ray import RayExecutor
    from fairjudge.runner._result import (
        KEPT_SENTENCE,
        CallOutcome,
        RunResult,
        RunSummary,
        restate_kept,
    )
    from fairjudge.runner._store import DEFAULT_STORE_PATH, Store
    from fairjudge.runner._tally import serve_from_store

__all__ = [
    "DEFAULT_POLL_S",
    "DEFAULT_STORE_PATH",
    "KEPT_SENTENCE",
    "PROGRESS_LABEL",
    "AsyncioExecutor",
    "Batch",
    "BatchExecutor",
    "BatchPending",
    "CallOutcome",
    "CallRecord",
    "EventLoopThread",
    "Executor",
    "Prices",
    "RayExecutor",
    "RetryPolicy",
    "RunOptions",
    "RunResult",
    "RunSummary",
    "Store",
    "announce_plan",
    "make_progress",
    "progress_label",
    "restate_kept",
    "run_calls",
    "serve_from_store",
]

# Every name loads on first use (PEP 562): asking for RunSummary or RunOptions does
# not import asyncio, sqlite3 or pydantic.
_LAZY = {
    "BatchPending": "fairjudge._errors",
    "BatchExecutor": "fairjudge.runner._batch",
    "DEFAULT_POLL_S": "fairjudge.runner._batch",
    "serve_from_store": "fairjudge.runner._tally",
    "CallRecord": "fairjudge.runner._call_record",
    "AsyncioExecutor": "fairjudge.runner._executor",
    "Batch": "fairjudge.runner._executor",
    "Executor": "fairjudge.runner._executor",
    "run_calls": "fairjudge.runner._executor",
    "Prices": "fairjudge.runner._limits",
    "RetryPolicy": "fairjudge.runner._limits",
    "RunOptions": "fairjudge.runner._limits",
    "EventLoopThread": "fairjudge.runner._executor",
    "PROGRESS_LABEL": "fairjudge.runner._progress",
    "make_progress": "fairjudge.runner._progress",
    "announce_plan": "fairjudge.runner._progress",
    "progress_label": "fairjudge.runner._progress",
    "RayExecutor": "fairjudge.runner._ray",
    "CallOutcome": "fairjudge.runner._result",
    "RunResult": "fairjudge.runner._result",
    "RunSummary": "fairjudge.runner._result",
    "KEPT_SENTENCE": "fairjudge.runner._result",
    "restate_kept": "fairjudge.runner._result",
    "DEFAULT_STORE_PATH": "fairjudge.runner._store",
    "Store": "fairjudge.runner._store",
}

package_surface(globals(), _LAZY)
