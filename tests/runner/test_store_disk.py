"""The disk fills up in the middle of a run.

Every reply the backend sent after the store stopped taking rows is paid for, so
each one is counted in :class:`~fairjudge.runner.StoreWriteError`'s ``unsaved``. The
engine lets the calls in flight finish (cancelling one does not unpay it, and the
reply may still fit), starts no new call and sends no retry.

What is simulated: the full disk is the store's connection wrapped to raise SQLite's
``database or disk is full`` on every ``INSERT`` of call rows after the first
``ok_writes``. The store file and its claims are real.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from fairjudge import RateLimitError
from fairjudge._call import CallSpec, Completion
from fairjudge.runner import RetryPolicy, RunOptions, Store, run_calls
from fairjudge.runner._store_errors import StoreWriteError
from tests.runner._fakes import FakeBackend, make_spec


class DiskFillsUp:
    """The store's connection, whose call-row inserts fail after ``ok_writes`` of them."""

    def __init__(self, conn: sqlite3.Connection, ok_writes: int) -> None:
        self._conn = conn
        self.ok_writes = ok_writes
        self.refused = 0

    def executemany(self, sql: str, rows: Any) -> sqlite3.Cursor:
        if sql.startswith("INSERT INTO calls"):
            if self.ok_writes <= 0:
                self.refused += 1
                raise sqlite3.OperationalError("database or disk is full")
            self.ok_writes -= 1
        return self._conn.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    async def until_refused(self, seconds: float) -> None:
        """A retry's wait that lasts until a row was refused, whatever it was asked to be.

        No race with the machine's speed: the retry is due exactly when the store has
        failed (a minute's bound, so that a run that never fails ends the test).
        """
        for _ in range(60_000):
            if self.refused:
                return
            await asyncio.sleep(0.001)


class Staggered(FakeBackend):
    """Each call takes its own time, so replies arrive one by one, not in one batch."""

    def __init__(self, step: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.step = step
        self.started: list[str] = []

    async def complete(self, spec: CallSpec) -> Completion:
        i = int(spec.messages[-1][1].rsplit(" ", 1)[-1])
        self.latency = self.step * (1 + i % 16)
        self.started.append(spec.key)
        return await super().complete(spec)


def run_with_full_disk(
    path: Path,
    backend: FakeBackend,
    n: int,
    ok_writes: int,
    *,
    retry_when_refused: bool = False,
    **options: Any,
) -> tuple[StoreWriteError, int]:
    """Run ``n`` calls while the disk fills up; returns the error and the rows kept.

    With ``retry_when_refused``, a retry waits until the disk has refused a row
    (:meth:`DiskFillsUp.until_refused`), not for the delay it was given.
    """
    store = Store(path)
    disk = DiskFillsUp(store._conn, ok_writes)
    store._conn = disk  # type: ignore[assignment]
    with pytest.raises(StoreWriteError) as info:
        asyncio.run(
            run_calls(
                backend,
                [make_spec(i) for i in range(n)],
                store=store,
                options=RunOptions(progress="quiet", **options),
                sleep=disk.until_refused if retry_when_refused else None,
            )
        )
    store._conn = store._conn._conn  # type: ignore[attr-defined]
    kept = store.count()
    store.close()
    return info.value, kept


def test_every_reply_in_flight_when_the_disk_fills_is_counted(tmp_path: Path) -> None:
    # 16 calls at concurrency 16, finishing 20 ms apart: the first reply's row is
    # refused while the other 15 are still on the wire. All 16 are paid for.
    backend = Staggered(0.02)
    err, kept = run_with_full_disk(tmp_path / "s.sqlite", backend, 16, 0, concurrency=16)
    assert kept == 0
    assert backend.calls == 16
    assert backend.cancelled == 0  # no paid call is abandoned mid-reply
    assert err.unsaved == 16  # was 1: only the first refused batch was counted
    assert err.unsaved_errors == 0
    message = str(err)
    assert "16 paid replies could not be stored" in message
    assert message.count("\n") == 0


def test_disk_full_after_some_rows_loses_only_what_was_in_flight(tmp_path: Path) -> None:
    backend = Staggered(0.005)
    err, kept = run_with_full_disk(tmp_path / "s.sqlite", backend, 60, 10, concurrency=8)
    assert kept >= 10
    assert backend.cancelled == 0
    assert backend.calls == kept + err.unsaved  # every reply stored or counted
    assert 1 <= err.unsaved <= 8  # at most the calls in flight; none started after
    assert f"{err.unsaved} paid repl" in str(err)


def test_no_retry_is_sent_once_the_store_has_failed(tmp_path: Path) -> None:
    # Call 0 is rate-limited and waits to retry until call 1's row has been refused
    # (an injected wait, not a real 0.3 s). The retry would be a new paid reply with
    # nowhere to go: not sent.
    def script(spec: CallSpec, attempt: int) -> Completion | BaseException | str:
        if spec.key == make_spec(0).key and attempt == 1:
            return RateLimitError("429", retry_after=0.3)
        return "A"

    backend = FakeBackend(script, latency=0.01)
    err, kept = run_with_full_disk(
        tmp_path / "s.sqlite",
        backend,
        2,
        0,
        retry_when_refused=True,
        concurrency=2,
        retry=RetryPolicy(max_attempts=3, base_delay=0.0),
    )
    assert backend.attempts[make_spec(0).key] == 1
    assert backend.calls == 2
    assert kept == 0
    assert err.unsaved == 1  # call 1's reply; call 0 never got one
    assert err.unsaved_errors == 0  # call 0 just stops: no reply, no row to write
    assert "1 paid reply could not be stored" in str(err)
