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

from fairjudge._lazy import lazy_attributes, module_dir, publish

if TYPE_CHECKING:
    from fairjudge._errors import BatchPending as BatchPending
    from fairjudge.runner._batch import DEFAULT_POLL_S as DEFAULT_POLL_S
    from fairjudge.runner._batch import BatchExecutor
    from fairjudge.runner._cached import serve_from_store as serve_from_store
    from fairjudge.runner._call_record import CallRecord
    from fairjudge.runner._claims import ClaimQueue as ClaimQueue
    from fairjudge.runner._claims import Leases as Leases
    from fairjudge.runner._executor import AsyncioExecutor, Batch, Executor, run_calls
    from fairjudge.runner._limits import Prices, RetryPolicy
    from fairjudge.runner._limits import TokenBucket as TokenBucket
    from fairjudge.runner._options import RunOptions
    from fairjudge.runner._portal import EventLoopThread as EventLoopThread
    from fairjudge.runner._progress import PROGRESS_LABEL as PROGRESS_LABEL
    from fairjudge.runner._progress import PlainProgress as PlainProgress
    from fairjudge.runner._progress import ProgressMode as ProgressMode
    from fairjudge.runner._progress import RichProgress as RichProgress
    from fairjudge.runner._progress import RunProgress as RunProgress
    from fairjudge.runner._progress import Snapshot as Snapshot
    from fairjudge.runner._progress import make_progress as make_progress
    from fairjudge.runner._progress import progress_label as progress_label
    from fairjudge.runner._ray import RayExecutor
    from fairjudge.runner._records import SCHEMA_VERSION as SCHEMA_VERSION
    from fairjudge.runner._result import CallOutcome as CallOutcome
    from fairjudge.runner._result import CallStatus as CallStatus
    from fairjudge.runner._result import RunResult, RunSummary
    from fairjudge.runner._result import StopReason as StopReason
    from fairjudge.runner._run import Parser as Parser
    from fairjudge.runner._store import DEFAULT_STORE_PATH as DEFAULT_STORE_PATH
    from fairjudge.runner._store import Store
    from fairjudge.runner._store_claims import DEFAULT_LEASE_S as DEFAULT_LEASE_S
    from fairjudge.runner._store_errors import StoreRowDamaged as StoreRowDamaged
    from fairjudge.runner._store_errors import StoreWriteError as StoreWriteError
    from fairjudge.runner._store_open import APPLICATION_ID as APPLICATION_ID

# Every name loads on first use (PEP 562): asking for RunSummary or RunOptions does
# not import asyncio, sqlite3 or pydantic.
__getattr__ = lazy_attributes(__name__, __file__)

__all__ = [
    "AsyncioExecutor",
    "Batch",
    "BatchExecutor",
    "CallRecord",
    "Executor",
    "Prices",
    "RayExecutor",
    "RetryPolicy",
    "RunOptions",
    "RunResult",
    "RunSummary",
    "Store",
    "run_calls",
]


__dir__ = module_dir(globals(), __all__)

publish(globals())  # each public name reports this namespace (see fairjudge._lazy.publish)
