"""Claims: processes sharing a store never make the same call twice at once.

Two processes on one store paid twice and logged once: 1,600 requests for 800 calls,
with ``attempts`` summing to 800. With claims, processes sharing a store never make
the same call at once, and ``attempts`` counts every request any of them sent.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import CallSpec, Completion
from fairjudge.runner import Store
from fairjudge.runner._claims import ClaimQueue, Leases
from fairjudge.runner._records import call_row
from fairjudge.runner._run import BatchWriter
from fairjudge.runner._store_errors import StoreWriteError
from tests.runner._fakes import FakeClock, make_spec
from tests.runner.test_store import record

KEYS = [make_spec(i).key for i in range(10)]


def test_claim_skips_answered_calls_and_live_claims(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as a, Store(path) as b:
        a.write([record(9)])
        assert a.claim(KEYS[:5]) == KEYS[:5]
        assert a.claim(KEYS[:2]) == KEYS[:2]  # its own claims: renewed, given again
        assert b.claim(KEYS) == KEYS[5:9]  # 0-4 held by a, 9 answered
        a.write([record(0)])  # storing a call releases its claim...
        a.release([KEYS[1]])  # ...and so does giving it up
        assert b.claim(KEYS[:3]) == [KEYS[1]]  # 0 is answered, 2 still held


def test_an_expired_lease_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    clock = FakeClock()
    with Store(path, clock=clock) as a, Store(path, clock=clock) as b:
        assert a.claim(KEYS, lease_s=0.3) == KEYS
        assert b.claim(KEYS) == []
        clock.advance(0.4)
        assert b.claim(KEYS) == KEYS


def test_closing_a_store_releases_its_claims(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as a:
        a.claim(KEYS)
    with Store(path) as b:
        assert b.claim(KEYS) == KEYS


def test_attempts_add_up_when_two_processes_answer_one_call(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as a, Store(path) as b:
        a.write([record(1, raw="first", attempts=2)])
        b.write([record(1, raw="second", attempts=3)])
        got = a.get(make_spec(1).key)
        assert got is not None
        assert (got.raw, got.attempts) == ("first", 5)


def hold_claims(path: str, lease_s: float, ready: Any) -> None:
    """Child process: claim every key, say so, and hang until killed."""
    store = Store(path)
    assert store.claim(KEYS, lease_s=lease_s) == KEYS
    ready.set()
    time.sleep(600)


@pytest.mark.slow
def test_claims_of_a_killed_process_on_this_host_are_taken_over_at_once(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "s.sqlite")
    Store(path).close()
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    proc = ctx.Process(target=hold_claims, args=(path, 60.0, ready))
    proc.start()
    assert ready.wait(timeout=60)
    assert proc.pid is not None
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(timeout=10)
    with Store(path) as store:  # its process is gone: no need to wait out the 60 s lease
        assert store.claim(KEYS) == KEYS


def test_claims_of_an_owner_elsewhere_wait_for_the_lease(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite")
    clock = FakeClock()
    with Store(path, clock=clock) as store:
        store._conn.execute(  # a live-looking owner on another host
            "INSERT INTO claims VALUES (?, ?, ?)", (KEYS[0], "other-host:1-abcd", clock() + 0.5)
        )
        store._conn.commit()
        assert KEYS[0] not in store.claim(KEYS)
        clock.advance(0.6)
        assert KEYS[0] in store.claim(KEYS)


# -- two real processes on one store, driving the claim API directly ---------------------


def make_calls(path: str, n: int, log: str, barrier: Any) -> None:
    """Child process: make calls 0..n-1 that no other process is making or has made.

    A "call" appends its key to ``log`` (one line per request sent); its row is
    written with ``attempts=1``, which also releases its claim.
    """
    keys = {make_spec(i).key: make_spec(i) for i in range(n)}
    left = list(keys)
    with Store(path) as store:
        barrier.wait(timeout=60)
        while left:
            mine = store.claim(left[:8])
            for key in mine:
                with open(log, "a") as fh:
                    fh.write(key + "\n")
                time.sleep(0.002)
                store.write_rows([call_row(keys[key], key, "ok", completion=Completion("A"))])
            done = set(mine) | set(store.get_many(left))
            left = [key for key in left if key not in done]
            if left and not mine:
                time.sleep(0.01)  # all held by the other process: look again soon


@pytest.mark.slow
def test_two_processes_never_make_the_same_call(tmp_path: Path) -> None:
    path, log, n = str(tmp_path / "s.sqlite"), str(tmp_path / "requests.log"), 200
    Store(path).close()
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=make_calls, args=(path, n, log, barrier)) for _ in range(2)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
    assert [proc.exitcode for proc in procs] == [0, 0]
    requests = Counter(Path(log).read_text().split())
    assert len(requests) == n
    assert max(requests.values()) == 1  # no call made twice
    with Store(path) as store:
        assert store.count(status="ok") == n
        assert sum(r.attempts for r in store.records()) == n  # every request counted


# -- the engine's side: ClaimQueue with a worker pool, as run_calls will use it ----------


async def engine(store: Store, specs: list[CallSpec], log: str) -> tuple[int, int]:
    """A minimal run_calls with the claim hooks: returns (calls made, served from others)."""
    todo = {s.key: s for s in specs}
    cached = store.get_many(todo)
    served: list[str] = []
    writer = BatchWriter(store, asyncio.get_running_loop())
    made = 0

    async def worker(queue: ClaimQueue) -> None:
        nonlocal made
        while True:
            while (item := next(queue, None)) is not None:
                key, spec = item
                with open(log, "a") as fh:  # noqa: ASYNC230 (a tiny append; test only)
                    fh.write(key + "\n")
                await asyncio.sleep(0.002)
                made += 1
                await writer.write(call_row(spec, key, "ok", completion=Completion("A")))
            if not await queue.wait():
                return

    items = [(key, spec) for key, spec in todo.items() if key not in cached]
    queue = ClaimQueue(store, items, lambda key, spec, c: served.append(key), poll_s=0.01)
    async with Leases(store, [queue]):
        await asyncio.gather(*(worker(queue) for _ in range(4)))
    assert made + len(served) + len(cached) == len(specs)
    return made, len(served) + len(cached)


def run_engine(path: str, n: int, log: str, barrier: Any, out: Any) -> None:
    with Store(path) as store:
        barrier.wait(timeout=60)
        out.put(asyncio.run(engine(store, [make_spec(i) for i in range(n)], log)))


@pytest.mark.slow
def test_claim_queue_shares_work_between_processes(tmp_path: Path) -> None:
    path, log, n = str(tmp_path / "s.sqlite"), str(tmp_path / "requests.log"), 300
    Store(path).close()
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=run_engine, args=(path, n, log, barrier, out)) for _ in range(2)]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    assert [proc.exitcode for proc in procs] == [0, 0]
    requests = Counter(Path(log).read_text().split())
    assert len(requests) == n
    assert max(requests.values()) == 1
    assert sum(made for made, _ in results) == n
    with Store(path) as store:
        assert store.count(status="ok") == n
        assert sum(r.attempts for r in store.records()) == n


def test_claim_queue_serves_calls_another_store_finished(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    specs = [make_spec(i) for i in range(6)]
    with Store(path) as mine, Store(path) as other:
        other.claim([s.key for s in specs[:3]])
        served: list[str] = []

        async def main() -> list[str]:
            items = [(s.key, s) for s in specs]
            queue = ClaimQueue(mine, items, lambda k, s, c: served.append(k), poll_s=0.01)
            async with Leases(mine, [queue]):
                taken = [key for key, _ in queue]
                assert queue.waiting_on_others == 3
                rows = [call_row(s, s.key, "ok", completion=Completion("B")) for s in specs[:3]]
                other.write_rows(rows)
                assert await queue.wait()
                assert next(queue, None) is None
                assert not await queue.wait()
            return taken

        taken = asyncio.run(main())
        assert taken == [s.key for s in specs[3:]]
        assert served == [s.key for s in specs[:3]]
        # Claimed and never made: released when the run's Leases block ends.
        assert other.claim(taken) == taken


def test_claim_queue_stops_after_a_failed_write(tmp_path: Path) -> None:
    items = [(make_spec(i).key, make_spec(i)) for i in range(4)]
    with Store(tmp_path / "s.sqlite") as store:
        queue = ClaimQueue(store, items, lambda k, s, c: None)
        assert next(queue, None) is not None
        store.write_failures += 1  # what a failed commit does
        assert next(queue, None) is None
        assert not asyncio.run(queue.wait())


def test_leases_are_renewed_while_the_run_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    items = [(make_spec(i).key, make_spec(i)) for i in range(4)]
    clock = FakeClock()  # time passes only in the renewer's sleeps
    with Store(path, clock=clock) as mine, Store(path, clock=clock) as other:

        async def main() -> None:
            queue = ClaimQueue(mine, items, lambda k, s, c: None, lease_s=0.4)
            async with Leases(mine, [queue], lease_s=0.4, sleep=clock.sleep):
                assert [key for key, _ in queue] == [key for key, _ in items]
                end = clock() + 1.0  # 2.5 leases: alive only if renewed
                # The renewer's sleeps move the clock; yield to it until they pass `end`.
                while clock() < end:  # noqa: ASYNC110
                    await asyncio.sleep(0)
                assert other.claim(key for key, _ in items) == []

        asyncio.run(main())
        assert other.claim(key for key, _ in items) == [key for key, _ in items]


class BrokenConnection:
    """Simulated: the store's connection, failing every write like an I/O error."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def executemany(self, sql: str, rows: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def test_batch_writer_counts_every_reply_it_could_not_store(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    store._conn = BrokenConnection(store._conn)  # type: ignore[assignment]

    async def main() -> StoreWriteError:
        writer = BatchWriter(store, asyncio.get_running_loop())
        futures = [writer.write(call_row(make_spec(i), make_spec(i).key, "ok")) for i in range(3)]
        with pytest.raises(StoreWriteError) as info:
            await futures[0]
        for future in futures[1:]:
            assert future.exception() is info.value
        with pytest.raises(StoreWriteError) as again:  # a later failed write: the same error
            await writer.write(call_row(make_spec(8), make_spec(8).key, "error"))
        assert again.value is info.value
        writer.write(call_row(make_spec(9), make_spec(9).key, "ok")).cancel()
        writer.flush()  # its waiter is gone: counted, and nothing raised twice
        return info.value

    err = asyncio.run(main())
    assert (err.unsaved, err.unsaved_errors) == (4, 1)
    assert "4 paid replies and 1 failed-call records could not be stored" in str(err)
    assert store.write_failures == 3
    store._conn = store._conn._conn  # type: ignore[attr-defined]
    store.close()
