"""The kind-agnostic engine: concurrency, rate limits, retries, budgets, cache, audit.

Nothing here knows what a call is for: a call is a :class:`~fairjudge._call.CallSpec`,
a backend answers it, a parser supplied by the caller reads the reply, and the store
keeps both. :class:`RunOptions` is the one bundle of run options; an
:class:`Executor` is the seam where a batch runs (asyncio today).
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes, module_dir

if TYPE_CHECKING:
    from fairjudge.runner._call_record import CallRecord
    from fairjudge.runner._claims import ClaimQueue, Leases
    from fairjudge.runner._executor import AsyncioExecutor, Batch, Executor, run_calls
    from fairjudge.runner._limits import Prices, RetryPolicy, TokenBucket
    from fairjudge.runner._options import RunOptions
    from fairjudge.runner._portal import EventLoopThread
    from fairjudge.runner._progress import (
        PlainProgress,
        ProgressMode,
        RichProgress,
        RunProgress,
        Snapshot,
        make_progress,
    )
    from fairjudge.runner._records import SCHEMA_VERSION
    from fairjudge.runner._result import (
        CallOutcome,
        CallStatus,
        RunResult,
        RunSummary,
        StopReason,
    )
    from fairjudge.runner._run import Parser
    from fairjudge.runner._store import DEFAULT_STORE_PATH, Store
    from fairjudge.runner._store_claims import DEFAULT_LEASE_S
    from fairjudge.runner._store_errors import StoreRowDamaged, StoreWriteError
    from fairjudge.runner._store_open import APPLICATION_ID

# Every name loads on first use (PEP 562): asking for RunSummary or RunOptions does
# not import asyncio, sqlite3 or pydantic.
__getattr__ = lazy_attributes(
    __name__,
    {
        "fairjudge.runner._call_record": "CallRecord",
        "fairjudge.runner._claims": "ClaimQueue Leases",
        "fairjudge.runner._executor": "AsyncioExecutor Batch Executor run_calls",
        "fairjudge.runner._limits": "Prices RetryPolicy TokenBucket",
        "fairjudge.runner._options": "RunOptions",
        "fairjudge.runner._portal": "EventLoopThread",
        "fairjudge.runner._progress": (
            "PlainProgress ProgressMode RichProgress RunProgress Snapshot make_progress"
        ),
        "fairjudge.runner._records": "SCHEMA_VERSION",
        "fairjudge.runner._result": "CallOutcome CallStatus RunResult RunSummary StopReason",
        "fairjudge.runner._run": "Parser",
        "fairjudge.runner._store": "DEFAULT_STORE_PATH Store",
        "fairjudge.runner._store_claims": "DEFAULT_LEASE_S",
        "fairjudge.runner._store_errors": "StoreRowDamaged StoreWriteError",
        "fairjudge.runner._store_open": "APPLICATION_ID",
    },
)

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_LEASE_S",
    "DEFAULT_STORE_PATH",
    "SCHEMA_VERSION",
    "AsyncioExecutor",
    "Batch",
    "CallOutcome",
    "CallRecord",
    "CallStatus",
    "ClaimQueue",
    "EventLoopThread",
    "Executor",
    "Leases",
    "Parser",
    "PlainProgress",
    "Prices",
    "ProgressMode",
    "RetryPolicy",
    "RichProgress",
    "RunOptions",
    "RunProgress",
    "RunResult",
    "RunSummary",
    "Snapshot",
    "StopReason",
    "Store",
    "StoreRowDamaged",
    "StoreWriteError",
    "TokenBucket",
    "make_progress",
    "run_calls",
]


__dir__ = module_dir(globals(), __all__)
