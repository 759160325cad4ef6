"""Group commits from the event loop: every finished call is durable before its slot frees.

Workers hand their record to :class:`BatchWriter` and await the returned future.
All records that arrive during one pass of the event loop are committed together at
the start of the next pass, so a run at any concurrency pays one SQLite transaction
per loop pass instead of one per call, and a worker only takes its next call once
its last one is on disk. A process killed at any moment therefore loses at most the
calls that were in flight.

A failed commit (full disk, read-only file, I/O error) is a
:class:`~fairjudge.runner.StoreWriteError`, never a bare ``sqlite3`` traceback. One
run shares one instance: the first failure calls ``on_error`` at once (the engine
stops starting calls and retries) and is raised to the workers whose rows were in the
batch; the calls still in flight finish, and a later failure, such as the rows of
those calls, is added to its count of unsaved replies, so it counts every paid reply
that did not reach the disk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fairjudge.runner._records import Row
from fairjudge.runner._store import Store
from fairjudge.runner._store_errors import StoreWriteError

__all__ = ["BatchWriter"]


class BatchWriter:
    """Collects records and commits them in one transaction per event-loop pass.

    Args:
        store: Where the records go.
        loop: The running loop; all methods must be called from its thread.
        on_error: Called once, when the first commit fails, before any waiter hears
            of it (the engine stops starting calls there).

    Attributes:
        error: The run's :class:`StoreWriteError` once a commit has failed; its
            ``unsaved`` counts every paid reply that could not be stored.
    """

    __slots__ = ("_done", "_loop", "_on_error", "_raised", "_records", "_store", "error")

    def __init__(
        self,
        store: Store,
        loop: asyncio.AbstractEventLoop,
        *,
        on_error: Callable[[], None] | None = None,
    ) -> None:
        self._store = store
        self._loop = loop
        self._on_error = on_error
        self._records: list[Row] = []
        self._done: asyncio.Future[None] | None = None
        self._raised = False
        self.error: StoreWriteError | None = None

    def write(self, record: Row) -> asyncio.Future[None]:
        """Queue a row; the future resolves once it is committed."""
        self._records.append(record)
        done = self._done
        if done is None:
            done = self._done = self._loop.create_future()
            self._loop.call_soon(self.flush)
        return done

    def flush(self) -> None:
        """Commit everything queued now. Safe to call at any time, and twice.

        Raises:
            StoreWriteError: The commit failed and no waiting worker was told (all
                were cancelled); once the run has been told, a later failure only
                adds to :attr:`error`'s counts.
        """
        records, done = self._records, self._done
        self._records, self._done = [], None
        try:
            self._store.write_rows(records)
        except StoreWriteError as exc:
            if self.error is None:
                self.error = exc
                if self._on_error is not None:
                    self._on_error()
            else:
                self.error.add(exc)
            if done is not None and not done.done():
                self._raised = True
                done.set_exception(self.error)
            elif not self._raised:
                self._raised = True
                raise self.error from exc.__cause__
            return
        except Exception as exc:
            # A cancelled waiter cancels the shared future; the rows are still written.
            if done is not None and not done.done():
                done.set_exception(exc)
                return
            raise
        if done is not None and not done.done():
            done.set_result(None)
