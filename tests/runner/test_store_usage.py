"""The ``call_usage`` table: each reply's reasoning, cached and batch usage, kept and checked."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from fairjudge._call import Completion
from fairjudge.runner import RunOptions, Store, run_calls
from fairjudge.runner._store_errors import StoreRowDamaged
from tests.runner._fakes import FakeBackend, make_spec
from tests.runner.test_store import record


def test_a_record_with_usage_round_trips(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.write([
            record(1, reasoning_tokens=40, cached_input_tokens=8, batch=True),
            record(2),  # nothing beyond the calls columns: no call_usage row
            record(3, status="error", raw=None, usage_problem="ignored on an error row"),
        ])  # fmt: skip
        got = {r.key: r for r in store.records()}
    one, two, three = (got[make_spec(i).key] for i in (1, 2, 3))
    assert (one.reasoning_tokens, one.cached_input_tokens, one.batch) == (40, 8, True)
    assert (two.reasoning_tokens, two.batch) == (None, False)
    assert three.usage_problem is None
    conn = sqlite3.connect(tmp_path / "s.sqlite")
    assert conn.execute("SELECT COUNT(*) FROM call_usage").fetchone() == (1,)
    conn.close()


def test_the_runner_stores_what_the_ledger_read(tmp_path: Path) -> None:
    def reply(spec: object, attempt: int) -> Completion:
        return Completion(
            "A", input_tokens=100, output_tokens=30, reasoning_tokens=25, cache_write_tokens=60,
            batch=True,
        )  # fmt: skip

    with Store(tmp_path / "s.sqlite") as store:
        asyncio.run(
            run_calls(FakeBackend(reply), [make_spec(0)], store=store,
                      options=RunOptions(progress="quiet"))
        )  # fmt: skip
        stored = store.get(make_spec(0).key)
    assert stored is not None
    assert (stored.reasoning_tokens, stored.cache_write_tokens, stored.batch) == (25, 60, True)


def test_the_first_reply_keeps_its_usage(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.write([record(1, reasoning_tokens=5)])
        store.write([record(1, reasoning_tokens=7, raw="a later reply")])
        got = store.get(make_spec(1).key)
    assert got is not None
    assert (got.raw, got.reasoning_tokens) == ("reply 1", 5)


def test_an_older_store_gains_the_table_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.write([record(1)])
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE call_usage")  # as a store written before the table existed
    conn.commit()
    conn.close()
    with Store(path) as store:
        (old,) = store.records()
        store.write([record(2, cached_input_tokens=9)])
        new = store.get(make_spec(2).key)
    assert (old.raw, old.cached_input_tokens) == ("reply 1", None)
    assert new is not None
    assert new.cached_input_tokens == 9


@pytest.mark.parametrize(
    ("column", "value"),
    [("reasoning_tokens", "'lots'"), ("cached_input_tokens", "-1"), ("usage_problem", "x'00'"),
     ("cache_write_tokens", "1.5")],
)  # fmt: skip
def test_a_damaged_usage_row_is_named(tmp_path: Path, column: str, value: str) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.write([record(1, reasoning_tokens=5)])
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE call_usage SET {column} = {value}")
    conn.commit()
    conn.close()
    with Store(path) as store:
        with pytest.raises(StoreRowDamaged, match=column):
            list(store.records())
        with pytest.raises(StoreRowDamaged, match=column):
            store.get(make_spec(1).key)
