"""A claim no process could hold does not keep a run waiting.

A run waits on calls another process has claimed, until that process stores them or
its lease runs out; leases are renewed one lease (120 s) ahead. A store handed over
with a claim planted in it (or hand-edited) that runs out in a year, or never, kept
every run on that store waiting on the call, without a word: such a claim is taken
over, while a claim within a few leases is still believed.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from fairjudge.runner import RunOptions, Store, run_calls
from fairjudge.runner._store_schema import DEFAULT_LEASE_S, LEASE_ROW
from tests.runner._fakes import FakeBackend, make_spec

NOW = 1_000_000.0
ELSEWHERE = "another-host/ns:123-abcd"  # not this host: no pid to look at


def _plant(path: Path, key: str, expires_at: object) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO claims VALUES (?, ?, ?)", (key, ELSEWHERE, expires_at))
    conn.close()


@pytest.mark.parametrize("expires_at", [1e12, "never"], ids=["in-30000-years", "text"])
def test_a_run_takes_over_a_claim_no_lease_reaches(tmp_path: Path, expires_at: object) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    _plant(path, make_spec(1).key, expires_at)
    backend = FakeBackend()

    async def run() -> object:
        with Store(path) as store:
            specs = [make_spec(i) for i in range(3)]
            options = RunOptions(progress="quiet")
            return await asyncio.wait_for(
                run_calls(backend, specs, store=store, options=options), 30
            )

    result = asyncio.run(run())  # the old code waited on call 1 until the claim ran out
    assert backend.calls == 3
    assert result.summary.made == 3  # type: ignore[attr-defined]


def test_a_claim_within_a_few_leases_is_still_believed(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    near, far = make_spec(1).key, make_spec(2).key
    _plant(path, near, NOW + 3 * DEFAULT_LEASE_S)  # a clock a few minutes ahead
    _plant(path, far, NOW + 6 * DEFAULT_LEASE_S)
    with Store(path, clock=lambda: NOW) as store:
        assert store.claim([near, far]) == [far]


def test_a_claim_under_a_long_lease_is_believed_for_that_lease(tmp_path: Path) -> None:
    """Review40 F7: another run believed a claim only up to five of *its own* leases
    ahead, so a library ``Store.claim(lease_s=3600)`` was taken over 10 minutes in
    and both processes made (and paid for) the call."""
    path = tmp_path / "s.sqlite"
    now = [NOW]
    key, other = make_spec(1).key, make_spec(2).key
    with Store(path, clock=lambda: now[0]) as holder, Store(path, clock=lambda: now[0]) as run:
        assert holder.claim([key], lease_s=3600) == [key]
        now[0] = NOW + 700  # past five default leases, well within the hour
        assert run.claim([key, other]) == [other]
        now[0] = NOW + 3000
        assert holder.renew(lease_s=3600) == 2  # the claim, and the row saying its lease
        now[0] = NOW + 6000  # an hour from the renewal, not from the claim
        assert run.claim([key]) == []
        now[0] = NOW + 3000 + 3600 + 1  # run out: taken over like any expired claim
        assert run.claim([key]) == [key]


def test_the_reader_s_own_lease_believes_no_claim_further_out(tmp_path: Path) -> None:
    """A planted claim six default leases out was believed by a run claiming for an
    hour (the horizon was five of the reader's leases); its owner said no such lease."""
    path = tmp_path / "s.sqlite"
    Store(path).close()
    key = make_spec(1).key
    _plant(path, key, NOW + 6 * DEFAULT_LEASE_S)
    with Store(path, clock=lambda: NOW) as store:
        assert store.claim([key], lease_s=3600) == [key]


def test_a_long_lease_row_does_not_cover_a_claim_past_it(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    near, far = make_spec(1).key, make_spec(2).key
    _plant(path, LEASE_ROW + ELSEWHERE, NOW + 3600)  # ELSEWHERE claims for an hour
    _plant(path, near, NOW + 3600)
    _plant(path, far, 1e12)
    with Store(path, clock=lambda: NOW) as store:
        assert store.claim([near, far]) == [far]
