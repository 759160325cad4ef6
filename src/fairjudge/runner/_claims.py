"""Claims: processes that share a store never make the same call at the same time.

A process claims a call's key under a renewed lease before making it, and
releases it with the stored row, so a killed process holds its keys for at most one
lease.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from types import TracebackType
from typing import Self

from fairjudge._call import CallSpec, Completion
from fairjudge.runner._store import Store
from fairjudge.runner._store_schema import DEFAULT_LEASE_S

__all__ = ["DEFAULT_LEASE_S", "ClaimQueue", "Leases", "OnCached"]

_MAX_POLL_S = 5.0  # a worker waiting on another process's calls looks at least this often

OnCached = Callable[[str, CallSpec, Completion], None]
"""Called with ``(key, spec, completion)`` for a call another process finished."""


class ClaimQueue:
    """Calls a run still has to make, claimed in the store a batch at a time.

    An iterator of ``(key, spec)`` pairs for the engine's workers: each pair is
    claimed by this store object, and no process has answered it. ``next`` returns
    nothing (``StopIteration``) when nothing is claimable *now*; :meth:`wait` then
    says whether to look again, because other processes hold calls that may still
    come back (their holder failed, or died and its lease ran out).

    A queue also stops, for good, once a store write has failed after it was made
    (:attr:`Store.write_failures <fairjudge.runner.Store.write_failures>` changed):
    a run whose replies cannot be stored starts no new call.

    Args:
        store: The shared store.
        items: The calls not in the store when the run began, as ``(key, spec)``.
        on_cached: Called for each call another process finished meanwhile; the
            engine records it as a cached outcome.
        batch: Keys claimed per transaction (claiming ahead saves transactions;
            claiming too far ahead keeps other processes waiting).
        lease_s: Lease length (:class:`Leases` renews it).
        poll_s: First wait before looking again at calls another process holds;
            it doubles up to 5 s.
    """

    def __init__(
        self,
        store: Store,
        items: Iterable[tuple[str, CallSpec]],
        on_cached: OnCached,
        *,
        batch: int = 16,
        lease_s: float = DEFAULT_LEASE_S,
        poll_s: float = 0.25,
    ) -> None:
        self._store, self._on_cached = store, on_cached
        self._todo = dict(items)
        self._batch, self._lease_s, self._poll_s = batch, lease_s, poll_s
        self._pending: deque[str] = deque(self._todo)  # not yet tried
        self._ready: deque[str] = deque()  # claimed by us, not yet handed out
        self._elsewhere: list[str] = []  # held by another process when last tried
        self.claimed: set[str] = set()
        """Every key this queue has claimed (made, or to be released at the end)."""
        self._failures = store.write_failures
        self._lock = asyncio.Lock()

    @property
    def waiting_on_others(self) -> int:
        """Calls held by other processes, to be looked at again by :meth:`wait`."""
        return len(self._elsewhere)

    def _broken(self) -> bool:
        return self._store.write_failures != self._failures

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> tuple[str, CallSpec]:
        """The next claimed call; ``StopIteration`` when none is claimable right now.

        Raises:
            StoreWriteError: The claims could not be written (make no call).
        """
        if self._broken():
            raise StopIteration
        while not self._ready and self._pending:
            self._claim_batch()
        if not self._ready:
            raise StopIteration
        key = self._ready.popleft()
        return key, self._todo[key]

    def _claim_batch(self) -> None:
        n = min(self._batch, len(self._pending))
        keys = [self._pending.popleft() for _ in range(n)]
        claimed = self._store.claim(keys, lease_s=self._lease_s)
        self._ready.extend(claimed)
        self.claimed.update(claimed)
        if len(claimed) < len(keys):
            mine = set(claimed)
            self._settle([key for key in keys if key not in mine], self._elsewhere)

    def _settle(self, keys: list[str], unanswered: list[str] | deque[str]) -> None:
        """Serve the keys another process answered; put the rest in ``unanswered``."""
        done = self._store.get_many(keys)
        for key in keys:
            if key in done:
                self._on_cached(key, self._todo[key], done[key])
            else:
                unanswered.append(key)

    async def wait(self) -> bool:
        """Wait for calls other processes hold; ``False`` when nothing is left to take.

        A worker calls this when the iterator is empty. Waiters take turns: one
        sleeps, then serves the calls others have finished from the store and puts
        the rest back to be claimed again.
        """
        async with self._lock:
            if self._broken():
                return False
            if self._ready or self._pending:
                return True
            if not self._elsewhere:
                return False
            await asyncio.sleep(self._poll_s)
            self._poll_s = min(self._poll_s * 2, _MAX_POLL_S)
            keys, self._elsewhere = self._elsewhere, []
            self._settle(keys, self._pending)
            return True

    def release(self) -> None:
        """Give back the claims this queue took and did not use (made calls are free already)."""
        if self.claimed:
            self._store.release(self.claimed)


class Leases:
    """Keeps a run's claims alive while it runs, and gives back the unused ones after.

    ``async with Leases(store, queues):`` renews every claim of ``store`` each
    quarter lease, so a run's claims outlive its slowest call; on the way out it
    calls :meth:`ClaimQueue.release` on each queue. ``queues`` is read at the end, so
    a dict's ``.values()`` may still be filling when the block starts.

    Args:
        store: The shared store.
        queues: The run's queues.
        lease_s: Lease length; as given to the queues.
        sleep: Waits between renewals (tests pass one that moves a fake clock).
    """

    def __init__(
        self,
        store: Store,
        queues: Iterable[ClaimQueue],
        *,
        lease_s: float = DEFAULT_LEASE_S,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._store, self._queues, self._lease_s = store, queues, lease_s
        self._sleep = sleep
        self._renewer: asyncio.Task[None] | None = None

    async def _renew(self) -> None:
        while True:
            await self._sleep(self._lease_s / 4)
            # A failed renewal is not the run's error: a failed write reports that.
            with contextlib.suppress(Exception):
                self._store.renew(lease_s=self._lease_s)

    async def __aenter__(self) -> Self:
        self._renewer = asyncio.get_running_loop().create_task(self._renew())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        for queue in self._queues:
            with contextlib.suppress(Exception):  # unreleased claims expire anyway
                queue.release()
