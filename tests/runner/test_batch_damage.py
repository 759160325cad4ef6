"""Text that is not UTF-8 in the batch tables: a damaged batch record, exit 2, never an error.

SQLite keeps whatever bytes a TEXT value is given (``CAST(X'ff' AS TEXT)``), as a hand
edit or another tool can leave them. Before, reading such a record failed in Python's
reader, naming no row, and the store reported it as a write it could not make ("cannot
write to the store ... it could not be written", exit 1). Now a batch run, and an
online run over the same calls, refuse it naming the store, the row and the column,
with the command that deletes the batch's record; after it, the calls are submitted
again. The bytes are written with ``sqlite3`` directly, as the row tests of the
``calls`` table do (``test_store_damage.py``).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from fairjudge._errors import BatchPending
from fairjudge.runner import BatchExecutor, Store
from fairjudge.runner._store_errors import StoreRowDamaged
from fairjudge.runner._store_schema import BatchRecordDamaged
from tests.cli._invoke import invoke
from tests.runner.test_batch_executor import CALLS, ITEMS, MODEL, PAIRS, _compare
from tests.server._batch_emulator import BatchServer, provider_batches

BAD = "CAST(X'41ff' AS TEXT)"  # "A" and a byte that no UTF-8 text holds
ONE_MEMBER = "custom_id = (SELECT min(custom_id) FROM batch_calls)"

DAMAGE = {
    "batches.status": ([f"UPDATE batches SET status = {BAD}"], "the batches row", "status"),
    "batches.model": ([f"UPDATE batches SET model = {BAD}"], "the batches row", "model"),
    "batch_calls.key": (
        [f"UPDATE batch_calls SET key = {BAD} WHERE {ONE_MEMBER}"],
        "the batch_calls row",
        "key",
    ),
    "batch_calls.custom_id": (
        [f"UPDATE batch_calls SET custom_id = {BAD} WHERE {ONE_MEMBER}"],
        "the batch_calls row",
        "custom_id",
    ),
    "the batch id": (  # the id in both tables, as a rename would leave it
        [f"UPDATE batches SET id = {BAD}", f"UPDATE batch_calls SET batch_id = {BAD}"],
        "the batch_calls row of batch 'A\\udcff'",
        "batch_id",
    ),
}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchServer]:
    """OpenAI's chat emulator behind the batch emulator."""
    with provider_batches(monkeypatch) as running:
        yield running


def _pending(server: BatchServer, store: Path, damage: list[str]) -> None:
    """A batch submitted and not collected, its record then damaged by ``damage``."""
    server.configure_batches(delay_polls=3)
    with pytest.raises(BatchPending):
        _compare(server, store, BatchExecutor(wait=False))
    with sqlite3.connect(store) as conn:
        for sql in damage:
            conn.execute(sql)


def _delete_command(message: str, store: Path) -> str:
    """The SQL the message gives to run with ``sqlite3 STORE``."""
    found = re.search(rf'sqlite3 {re.escape(str(store))} "([^"]+)"$', message)
    assert found is not None, message
    return found.group(1)


@pytest.mark.parametrize("online", [False, True], ids=["batch run", "online run"])
@pytest.mark.parametrize("where", sorted(DAMAGE))
def test_a_batch_record_that_is_not_utf8_is_damaged_named_and_deletable(
    server: BatchServer, tmp_path: Path, where: str, online: bool
) -> None:
    damage, row, column = DAMAGE[where]
    store = tmp_path / "s.sqlite"
    _pending(server, store, damage)
    server.reset()
    with pytest.raises(BatchRecordDamaged) as caught:
        _compare(server, store, None if online else BatchExecutor(wait=False))
    message = str(caught.value)
    assert message.startswith(f"the store {str(store)!r} has a damaged batch record: in {row}")
    assert f", {column} is not UTF-8 text. fairjudge neither uses nor changes" in message
    assert "Use another store, or delete the batch's record and the next run submits" in message
    assert caught.value.params == ()  # the CLI's exit 2, with no flag to blame
    assert server.stats().get("requests", 0) == 0  # nothing was paid for
    assert server.stats().get("batch_requests", 0) == 0
    with sqlite3.connect(store) as conn:  # the command the message gives, as given
        conn.executescript(_delete_command(message, store))
        assert conn.execute("SELECT count(*) FROM batch_calls").fetchone() == (0,)
    server.configure_batches(delay_polls=0)
    again = _compare(server, store, BatchExecutor(poll_s=0.01)).to_dict()
    assert (again["calls"]["made"], again["n_not_run"]) == (CALLS, 0)


def test_a_batch_error_row_that_is_not_utf8_is_a_damaged_row(
    server: BatchServer, tmp_path: Path
) -> None:
    """A collected batch's error rows are read (to serve a refused request's error): checked."""
    marker = "OVERLONG"
    items = [dict(ITEMS[0], question=ITEMS[0]["question"] + " " + marker), *ITEMS[1:]]
    server.configure(too_long_marker=marker)
    store = tmp_path / "s.sqlite"
    assert (
        _compare(server, store, BatchExecutor(poll_s=0.01), items=items).to_dict()["n_call_errors"]
        == 2
    )
    with Store(store) as opened:
        key = next(iter(opened.records(status="error"))).key
    with sqlite3.connect(store) as conn:
        conn.execute(f"UPDATE calls SET error_message = {BAD} WHERE key = ?", (key,))
    with pytest.raises(StoreRowDamaged) as caught:
        _compare(server, store, BatchExecutor(wait=False), items=items)
    assert caught.value.damage == {key: "error_message is not UTF-8 text"}
    assert f"DELETE FROM calls WHERE key IN ('{key}')" in str(caught.value)


def test_the_command_line_says_so_and_exits_2(server: BatchServer, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    _pending(server, store, DAMAGE["batches.status"][0])
    pairs = tmp_path / "pairs.jsonl"  # the items the library runs judged
    pairs.write_text("".join(PAIRS.read_text().splitlines(keepends=True)[: len(ITEMS)]))
    done = invoke("compare", str(pairs), "--judge", MODEL, "--base-url", server.base_url,
                  "--store", str(store), "--batch-api")  # fmt: skip
    assert done.exit_code == 2, done.output
    said = " ".join(done.stderr.split())
    assert "has a damaged batch record: in the batches row of batch" in said
    assert "status is not UTF-8 text" in said
    assert "Traceback" not in done.output
    assert "cannot write to the store" not in said
