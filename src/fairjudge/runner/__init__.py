"""The async runner and the store: concurrency, rate limits, retries, budgets, cache, audit."""

from fairjudge.runner._limits import Prices, RetryPolicy, TokenBucket
from fairjudge.runner._portal import EventLoopThread
from fairjudge.runner._progress import (
    PlainProgress,
    ProgressMode,
    RichProgress,
    RunProgress,
    Snapshot,
    make_progress,
)
from fairjudge.runner._records import SCHEMA_VERSION, CallRecord
from fairjudge.runner._result import CallOutcome, CallStatus, RunResult, RunSummary, StopReason
from fairjudge.runner._run import Parser, run_calls
from fairjudge.runner._store import DEFAULT_STORE_PATH, Store

__all__ = [
    "DEFAULT_STORE_PATH",
    "SCHEMA_VERSION",
    "CallOutcome",
    "CallRecord",
    "CallStatus",
    "EventLoopThread",
    "Parser",
    "PlainProgress",
    "Prices",
    "ProgressMode",
    "RetryPolicy",
    "RichProgress",
    "RunProgress",
    "RunResult",
    "RunSummary",
    "Snapshot",
    "StopReason",
    "Store",
    "TokenBucket",
    "make_progress",
    "run_calls",
]
