"""Group commits from the event loop: every finished call is durable before its slot frees.

Workers hand their record to :class:`BatchWriter` and await the returned future.
All records that arrive during one pass of the event loop are committed together at
the start of the next pass, so a run at any concurrency pays one SQLite transaction
per loop pass instead of one per call, and a worker only takes its next call once
its last one is on disk. A process killed at any moment therefore loses at most the
calls that were in flight.
"""

from __future__ import annotations

import asyncio

from fairjudge.runner._records import Row
from fairjudge.runner._store import Store

__all__ = ["BatchWriter"]


class BatchWriter:
    """Collects records and commits them in one transaction per event-loop pass.

    Args:
        store: Where the records go.
        loop: The running loop; all methods must be called from its thread.
    """

    __slots__ = ("_done", "_loop", "_records", "_store")

    def __init__(self, store: Store, loop: asyncio.AbstractEventLoop) -> None:
        self._store = store
        self._loop = loop
        self._records: list[Row] = []
        self._done: asyncio.Future[None] | None = None

    def write(self, record: Row) -> asyncio.Future[None]:
        """Queue a row; the future resolves once it is committed."""
        self._records.append(record)
        done = self._done
        if done is None:
            done = self._done = self._loop.create_future()
            self._loop.call_soon(self.flush)
        return done

    def flush(self) -> None:
        """Commit everything queued now. Safe to call at any time, and twice."""
        records, done = self._records, self._done
        self._records, self._done = [], None
        try:
            self._store.write_rows(records)
        except Exception as exc:
            # A cancelled waiter cancels the shared future; the rows are still written.
            if done is not None and not done.done():
                done.set_exception(exc)
                return
            raise
        if done is not None and not done.done():
            done.set_result(None)
