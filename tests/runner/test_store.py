from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge._call import Completion
from fairjudge._redact import scrub
from fairjudge.runner import CallRecord, Store
from fairjudge.runner._records import SCHEMA_VERSION
from tests.runner._fakes import make_spec, run_in_process


def record(i: int, **changes: object) -> CallRecord:
    spec = make_spec(i)
    fields: dict[str, object] = {
        "key": spec.key,
        "kind": spec.kind,
        "backend": spec.backend,
        "model": spec.model,
        "base_url": spec.base_url,
        "template": spec.template,
        "template_version": spec.template_version,
        "sample": spec.sample,
        "spec": spec.canonical(),
        "status": "ok",
        "raw": f"reply {i}",
        "parsed": {"verdict": "A"},
        "top_logprobs": {"A": -0.1, "B": -2.5},
        "input_tokens": 12,
        "output_tokens": 1,
        "latency_s": 0.5,
        "cost_usd": 0.001,
    }
    fields.update(changes)
    return CallRecord.model_validate(fields)


def test_default_path_creates_parent_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Store() as store:
        assert store.path == str(Path(".fairjudge") / "store.sqlite")
    assert (tmp_path / ".fairjudge" / "store.sqlite").is_file()


def test_wal_mode_and_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "store.sqlite"
    Store(path).close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        rec = record(1)
        store.write([rec])
        got = store.get(rec.key)
        assert got is not None
        assert got.raw == "reply 1"
        assert got.parsed == {"verdict": "A"}
        assert got.top_logprobs == {"A": -0.1, "B": -2.5}
        assert got.spec == make_spec(1).canonical()
        assert (got.input_tokens, got.output_tokens, got.cost_usd) == (12, 1, 0.001)
        assert got.schema_version == SCHEMA_VERSION
        assert got.created_at is not None
        assert got.created_at == got.updated_at
        assert store.get("0" * 64) is None


def test_get_many_serves_ok_rows_only_in_chunks(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.write([record(i) for i in range(1200)])
        store.write([record(5000, status="error", raw=None, error_kind="ServerError")])
        keys = [make_spec(i).key for i in range(0, 1300)] + [make_spec(5000).key]
        found = store.get_many(keys)
        assert len(found) == 1200
        assert found[make_spec(7).key] == Completion(
            text="reply 7",
            top_logprobs={"A": -0.1, "B": -2.5},
            input_tokens=12,
            output_tokens=1,
            latency_s=0.5,
        )
        assert store.count() == 1201
        assert store.count(status="error") == 1


def test_ok_row_is_final_and_error_row_is_replaced(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        key = make_spec(1).key
        store.write([record(1, status="error", raw=None, error_kind="X", attempts=3)])
        store.write([record(1, raw="first", attempts=2)])
        store.write([record(1, raw="second")])
        store.write([record(1, status="error", raw=None, error_kind="Y")])
        got = store.get(key)
        assert got is not None
        assert (got.status, got.raw, got.error_kind) == ("ok", "first", None)
        # Every request counts, also those whose reply came too late to be cached
        # (issue "Nothing paid is lost": a second process's requests were dropped).
        assert got.attempts == 3 + 2 + 1 + 1


def test_error_messages_are_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "zz-very-secret-value-42"
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", secret)
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        message = f"401 bad key sk-abcdefghijklmnop; Authorization: Bearer tok123456789 {secret}"
        store.write([record(1, status="error", raw=None, error_message=message)])
        got = store.get(make_spec(1).key)
        assert got is not None
        assert got.error_message is not None
        assert "sk-abc" not in got.error_message
        assert "tok123456789" not in got.error_message
        assert secret not in got.error_message
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for needle in (b"sk-abcdefghijklmnop", b"tok123456789", secret.encode()):
        assert needle not in blob


def test_scrub_leaves_ordinary_text_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0123456789")
    text = "HTTP 500: upstream timed out after 30s"
    assert scrub(text) == text
    assert scrub("got tok-0123456789 back") == "got *** back"


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(ConfigError, match="newer"):
        Store(path)


def test_not_a_database_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ConfigError, match="not a usable fairjudge store"):
        Store(path)


def test_memory_store() -> None:
    with Store(":memory:") as store:
        store.write([record(1)])
        assert store.count(status="ok") == 1
        assert [r.key for r in store.records()] == [make_spec(1).key]


@pytest.mark.slow
def test_two_processes_fill_one_store(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    # Overlapping ranges: keys 200-299 may be written by both processes at once.
    procs = [
        ctx.Process(target=run_in_process, args=(path, start, stop, 0.001, barrier))
        for start, stop in ((0, 300), (200, 500))
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
    assert [proc.exitcode for proc in procs] == [0, 0]
    with Store(path) as store:
        assert store.count() == 500
        assert store.count(status="ok") == 500
        assert len(store.get_many(make_spec(i).key for i in range(500))) == 500
