"""``--abandon-batch ID``: give up a recorded batch from the command line, at once.

The library has had ``BatchExecutor(abandon=[...])`` (31c3110); the command line had only
the printed ``sqlite3`` command. Against the batch emulator on 127.0.0.1.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli._invoke import ROOT, invoke
from tests.server._batch_emulator import BatchServer, provider_batches

PAIRS = ROOT / "src" / "fairjudge" / "examples" / "demo_pairs.jsonl"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[BatchServer]:
    with provider_batches(monkeypatch) as running:
        yield running


def _batches(store: str) -> list[tuple[str, str]]:
    with sqlite3.connect(store) as conn:
        return list(conn.execute("SELECT id, status FROM batches ORDER BY submitted_at"))


def test_a_pending_batch_given_up_is_lost_and_its_calls_sent_again(
    server: BatchServer, tmp_path: Path
) -> None:
    server.configure_batches(delay_polls=1000)  # the first batch never ends
    store = str(tmp_path / "s.sqlite")
    argv = ["compare", str(PAIRS), "--judge", "openai/gpt-4o-mini", "--base-url",
            server.base_url, "--store", store, "--batch-api", "--batch-poll", "0.01"]  # fmt: skip
    assert invoke(*argv).exit_code == 8  # submitted, pending
    ((first, _),) = _batches(store)

    server.configure_batches(delay_polls=0)
    done = invoke(*argv, "--wait", "--abandon-batch", first)

    assert done.exit_code == 0, done.output
    said = " ".join(done.output.replace("│", " ").split())  # the note is a table row
    assert f"batch {first} (40 calls), recorded in the store, is given up as asked" in said
    assert "(--abandon-batch)" in said
    assert "paid for again" in said
    rows = dict(_batches(store))
    assert rows[first] == "lost"  # its record stays
    assert len(rows) == 2  # and its 40 calls went in a new batch


def test_an_id_the_store_does_not_record_is_refused_naming_the_flag(
    server: BatchServer, tmp_path: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    argv = ["compare", str(PAIRS), "--judge", "openai/gpt-4o-mini", "--base-url",
            server.base_url, "--store", store, "--batch-api", "--batch-poll", "0.01"]  # fmt: skip
    done = invoke(*argv, "--abandon-batch", "batch_nope")
    assert done.exit_code == 2, done.output
    said = " ".join(done.output.split())
    assert (
        "--abandon-batch: cannot give up batch 'batch_nope': the store does not record it" in said
    )
    assert server.stats().get("batches_created", 0) == 0


def test_it_applies_with_batch_api_only() -> None:
    done = invoke("compare", str(PAIRS), "--judge", "openai/gpt-4o-mini", "--abandon-batch", "b")
    assert done.exit_code == 2
    assert "--abandon-batch applies with --batch-api only" in done.output
