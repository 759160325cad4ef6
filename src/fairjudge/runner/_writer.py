"""Group commits from the event loop: every finished call is durable before its slot frees.

Records arriving in one event-loop pass commit together, one transaction per pass,
and a worker takes its next call only once its last is on disk. A failed commit is a
:class:`~fairjudge.runner.StoreWriteError` that counts every paid reply not saved.
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
