"""Text that is not UTF-8 in a store is named the same way by every read of it.

SQLite keeps whatever bytes a TEXT value is given (``CAST(X'41ff' AS TEXT)``: a hand
edit, another tool), and Python's reader fails on them naming no row. Every read of
the store goes through one lenient re-read (``_store_errors.fetch_all``), so:

- the check on open names a schema object whose name is not UTF-8 as one fairjudge
  never creates (before, it said the store "could not be written");
- reading records names the column, whichever it is, as "<column> is not UTF-8 text",
  as the batch tables' reads do (before, a key that was not UTF-8 was named by its
  Python ``bytes`` repr, with a DELETE command that deleted nothing, and other
  columns were "does not match the row's spec" or "does not fit the record");
- the error rows of a collected batch name every damaged row, as reading the records
  does (before, only the first);
- a claim whose owner is not UTF-8 (planted: fairjudge never writes one) is a claim
  like any other, not a failed write that stops the run.

The bytes are written with ``sqlite3`` directly, as in ``test_store_damage.py``.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.runner import Store
from fairjudge.runner._records import COLUMNS
from fairjudge.runner._store_errors import StoreRowDamaged
from fairjudge.runner._store_schema import _where, collected, failed_in_batches, record_batch
from tests.runner._hostile_rows import delete_sql_of, fill

BAD = b"A\xff"  # "A" and a byte that no UTF-8 text holds
BAD_AS_READ = "A\udcff"  # how a message and its DELETE command name it

# Every TEXT column but status (its CHECK takes 'ok' or 'error' only).
TEXT_COLUMNS = [
    "kind",
    "backend",
    "model",
    "base_url",
    "template",
    "template_version",
    "spec",
    "raw",
    "parsed",
    "top_logprobs",
    "response_model",
    "error_kind",
    "error_message",
    "created_at",
    "updated_at",
]


def _plant(path: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for sql, params in statements:
            conn.execute(sql, params)
    finally:
        conn.close()


def _not_utf8(column: str, key: str) -> tuple[str, tuple[object, ...]]:
    return f"UPDATE calls SET {column} = CAST(? AS TEXT) WHERE key = ?", (BAD, key)


def _schema_named(path: Path, name: bytes) -> None:
    """Add a table whose name (and so its CREATE statement) holds ``name``'s bytes."""
    sql = b'CREATE TABLE "' + name + b'" (a)'
    _plant(
        path,
        ("CREATE TABLE planted (a)", ()),
        ("PRAGMA writable_schema = ON", ()),
        (
            "UPDATE sqlite_master SET name = CAST(? AS TEXT), tbl_name = CAST(? AS TEXT), "
            "sql = CAST(? AS TEXT) WHERE name = 'planted'",
            (name, name, sql),
        ),
    )


def test_a_schema_name_that_is_not_utf8_is_refused_as_not_fairjudges(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    fill(path, 2)
    _schema_named(path, BAD)
    with pytest.raises(ConfigError) as caught:
        Store(path)
    message = str(caught.value)
    assert message.startswith(
        f"the store {str(path)!r} has a schema that fairjudge does not write: "
        "table 'A\\udcff' that fairjudge never creates (see it with `sqlite3 "
    )
    assert "could not be written" not in message


def test_a_foreign_database_with_a_table_name_that_is_not_utf8_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "other.sqlite"
    _schema_named(path, BAD)
    with pytest.raises(ConfigError) as caught:
        Store(path)
    assert "is not a usable fairjudge store: it holds tables 'A\\udcff' (user_version 0); " in str(
        caught.value
    )


@pytest.mark.parametrize("column", TEXT_COLUMNS)
def test_a_record_column_that_is_not_utf8_is_named_so_by_every_record_read(
    tmp_path: Path, column: str
) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 3)
    _plant(path, _not_utf8(column, keys[1]))
    expected = {keys[1]: f"{column} is not UTF-8 text"}
    with Store(path) as store:
        with pytest.raises(StoreRowDamaged) as by_get:
            store.get(keys[1])
        with pytest.raises(StoreRowDamaged) as by_records:
            list(store.records())
        assert store.get(keys[0]) is not None  # the rows beside it read as before
    assert by_get.value.damage == expected
    assert by_records.value.damage == expected


def test_a_key_that_is_not_utf8_is_named_and_its_delete_command_finds_the_row(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    keys = fill(path, 3)
    _plant(path, _not_utf8("key", keys[1]))
    with Store(path) as store, pytest.raises(StoreRowDamaged) as caught:
        list(store.records())
    assert caught.value.damage == {BAD_AS_READ: "key is not UTF-8 text"}
    message = str(caught.value)
    assert "has 1 damaged row: call 'A\\udcff': key is not UTF-8 text. " in message
    delete = delete_sql_of(message)
    assert delete == "DELETE FROM calls WHERE key IN (CAST(X'41ff' AS TEXT))"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute(delete)
        assert conn.execute("SELECT count(*) FROM calls").fetchone() == (2,)
    finally:
        conn.close()
    with Store(path) as store:
        assert sorted(r.key for r in store.records()) == sorted([keys[0], keys[2]])


def test_a_collected_batchs_error_rows_are_named_as_the_record_reads_name_them(
    tmp_path: Path,
) -> None:
    """The batch read of error rows and :meth:`Store.records` agree, row for row."""
    path = tmp_path / "s.sqlite"
    keys = fill(path, 4)
    route = ("openai", "m", None)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute(
            "UPDATE calls SET status = 'error', raw = NULL, parsed = NULL, top_logprobs = NULL, "
            "error_kind = 'refused', error_message = 'too long'"
        )
        members = [(f"r{i}", key) for i, key in enumerate(keys)]
        record_batch(
            conn,
            batch_id="b1",
            provider="openai",
            route=route,
            members=members,
            input_file=None,
            now="2026-01-01T00:00:00Z",
        )
        collected(conn, "b1", "completed", "2026-01-01T00:01:00Z")
        conn.execute(*_not_utf8("error_message", keys[1]))
        conn.execute(*_not_utf8("error_kind", keys[3]))
        with pytest.raises(StoreRowDamaged) as by_batch:
            failed_in_batches(conn, keys)
        assert failed_in_batches(conn, [keys[0], keys[2]]) == {
            keys[0]: ("refused", "too long"),
            keys[2]: ("refused", "too long"),
        }
    finally:
        conn.close()
    with Store(path) as store, pytest.raises(StoreRowDamaged) as by_records:
        list(store.records(status="error"))
    expected = {
        keys[1]: "error_message is not UTF-8 text",
        keys[3]: "error_kind is not UTF-8 text",
    }
    assert by_batch.value.damage == expected
    assert by_records.value.damage == expected
    assert by_batch.value.path == str(path)


def _claimed(path: Path, key: str, owner: bytes) -> None:
    """A live claim on ``key`` (a minute left) whose owner holds ``owner``'s bytes."""
    sql = "INSERT INTO claims VALUES (?, CAST(? AS TEXT), ?)"
    _plant(path, (sql, (key, owner, time.time() + 60)))


def test_a_live_claim_whose_owner_is_not_utf8_is_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    _claimed(path, "k1", b"elsewhere/ns:1-" + BAD)
    with Store(path) as store:
        assert store.claim(["k1", "k2"]) == ["k2"]
        assert store.write_failures == 0


def test_a_claim_of_a_dead_process_here_whose_owner_is_not_utf8_is_taken_over(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    _claimed(path, "k1", f"{_where()}:{gone.pid}-".encode() + BAD)
    with Store(path) as store:  # no waiting out its lease: its process is gone
        assert store.claim(["k1", "k2"]) == ["k1", "k2"]


def test_every_text_column_is_covered(tmp_path: Path) -> None:
    """The columns above are all of ``calls``' TEXT columns but ``key`` and ``status``."""
    path = tmp_path / "s.sqlite"
    fill(path, 1)
    conn = sqlite3.connect(path)
    try:
        declared = {row[1]: row[2] for row in conn.execute("PRAGMA table_info(calls)")}
    finally:
        conn.close()
    text = [c for c in COLUMNS if declared[c] == "TEXT" and c not in ("key", "status")]
    assert text == TEXT_COLUMNS
