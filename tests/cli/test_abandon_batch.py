"""``--abandon-batch ID``: give up a recorded batch from the command line, at once.

The library has had ``BatchExecutor(abandon=[...])`` (31c3110); the command line had only
the printed ``sqlite3`` command. Against the batch emulator on 127.0.0.1.
"""

from __future__ import annotations

import json
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


def test_json_says_the_batch_was_given_up_and_paid_again(
    server: BatchServer, tmp_path: Path
) -> None:
    """Before, ``--json``'s ``calls`` dropped the notes: a reader of the JSON alone never
    learned that 40 calls were paid for a second time."""
    server.configure_batches(delay_polls=1000)
    store = str(tmp_path / "s.sqlite")
    argv = ["compare", str(PAIRS), "--judge", "openai/gpt-4o-mini", "--base-url",
            server.base_url, "--store", store, "--batch-api", "--batch-poll", "0.01"]  # fmt: skip
    assert invoke(*argv).exit_code == 8
    ((first, _),) = _batches(store)
    server.configure_batches(delay_polls=0)

    done = invoke(*argv, "--wait", "--json", "--abandon-batch", first)

    assert done.exit_code == 0, done.output
    notes = json.loads(done.stdout)["calls"]["notes"]
    (lost,) = [n for n in notes if n["label"] == "lost batch"]
    assert f"batch {first} (40 calls)" in lost["text"]
    assert "paid for again" in lost["text"]
    assert "(--abandon-batch)" in lost["text"]  # in the command line's words


def test_a_page_reads_the_notes_back_from_out(tmp_path: Path) -> None:
    """An --out header's calls with notes still give the page its usage (not dropped)."""
    from fairjudge.report._page import recorded_run
    from fairjudge.runner import RunSummary

    run = RunSummary(
        total=2, made=2, cached=0, failed=0, not_run=0, requests=2, retries=0,
        input_tokens=10, output_tokens=2, cost_usd=None, wall_s=0.1, backoff_s=0.0,
        notes=(("lost batch", "batch b was lost"),),
    )  # fmt: skip
    header = type("Header", (), {"calls": run.to_dict()})()
    back = recorded_run(header)  # type: ignore[arg-type]
    assert back is not None
    assert back.notes == (("lost batch", "batch b was lost"),)
    assert back.made == 2
