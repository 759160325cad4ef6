"""The store's batch tables: which provider batch holds which call, written before any poll.

A submitted batch is paid for whatever becomes of the process, so its id and each
call's ``custom_id`` are written right after the provider accepts it, before any
poll; the next run collects the same batch and never submits those calls again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "BATCH_TABLES",
    "UPLOADED",
    "OpenBatch",
    "collected",
    "open_batches",
    "record_batch",
    "renamed",
    "seen",
]

UPLOADED = "file:"
"""Prefix of a batch row recorded before its batch exists: ``file:<input file id>``.

OpenAI's batches are made in two steps (upload the file, create the batch over it).
The row is written after the upload, under the file's id, and renamed to the batch's
id once the provider created it; a run that finds such a row looks the batch up by
its input file before it creates one, so a kill between the steps costs no second
batch."""

BATCH_TABLES = """
CREATE TABLE IF NOT EXISTS batches (
    id           TEXT PRIMARY KEY,
    provider     TEXT NOT NULL,
    backend      TEXT NOT NULL,
    model        TEXT NOT NULL,
    base_url     TEXT,
    status       TEXT NOT NULL,
    requests     INTEGER NOT NULL,
    input_file   TEXT,
    submitted_at TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    collected_at TEXT
);
CREATE TABLE IF NOT EXISTS batch_calls (
    batch_id  TEXT NOT NULL,
    custom_id TEXT NOT NULL,
    key       TEXT NOT NULL,
    PRIMARY KEY (batch_id, custom_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS batch_calls_by_key ON batch_calls (key);
"""
"""The DDL of the batch tables; part of the store's schema."""

_CHUNK = 500  # keys per IN (...); well under SQLite's variable limit


@dataclass(frozen=True, slots=True)
class OpenBatch:
    """A submitted batch whose results are not yet in the store.

    Attributes:
        id: The provider's batch id.
        provider: ``"openai"`` or ``"anthropic"``.
        route: ``(backend, model, base_url)`` it was submitted to.
        status: The last status a poll saw (``submitted`` before the first).
        members: ``{custom_id: call key}`` of every request in it.
    """

    id: str
    provider: str
    route: tuple[str, str, str | None]
    status: str
    members: dict[str, str]


def record_batch(
    conn: sqlite3.Connection,
    *,
    batch_id: str,
    provider: str,
    route: tuple[str, str, str | None],
    members: Sequence[tuple[str, str]],
    input_file: str | None,
    now: str,
    status: str = "submitted",
) -> None:
    """Write a submitted batch and its ``(custom_id, key)`` members (caller's transaction)."""
    conn.execute(
        "INSERT INTO batches (id, provider, backend, model, base_url, status, requests, "
        "input_file, submitted_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (batch_id, provider, *route, status, len(members), input_file, now, now),
    )
    conn.executemany(
        "INSERT INTO batch_calls (batch_id, custom_id, key) VALUES (?, ?, ?)",
        [(batch_id, custom_id, key) for custom_id, key in members],
    )


def open_batches(conn: sqlite3.Connection, keys: Iterable[str]) -> list[OpenBatch]:
    """The batches not yet collected that hold any of ``keys``, each with all its members."""
    wanted = list(dict.fromkeys(keys))
    ids: set[str] = set()
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        ids.update(
            batch_id
            for (batch_id,) in conn.execute(
                "SELECT DISTINCT c.batch_id FROM batch_calls c JOIN batches b ON b.id = c.batch_id "
                f"WHERE b.collected_at IS NULL AND c.key IN ({marks})",
                chunk,
            )
        )
    found = []
    for batch_id in sorted(ids):
        row = conn.execute(
            "SELECT provider, backend, model, base_url, status FROM batches WHERE id = ?",
            (batch_id,),
        ).fetchone()
        members = dict(
            conn.execute(
                "SELECT custom_id, key FROM batch_calls WHERE batch_id = ?", (batch_id,)
            ).fetchall()
        )
        found.append(OpenBatch(batch_id, row[0], (row[1], row[2], row[3]), row[4], members))
    return found


def renamed(conn: sqlite3.Connection, old: str, new: str, status: str, now: str) -> None:
    """Give a row recorded under its upload (:data:`UPLOADED`) the id of its batch."""
    conn.execute(
        "UPDATE batches SET id = ?, status = ?, updated_at = ? WHERE id = ?",
        (new, status, now, old),
    )
    conn.execute("UPDATE batch_calls SET batch_id = ? WHERE batch_id = ?", (new, old))


def seen(conn: sqlite3.Connection, batch_id: str, status: str, now: str) -> None:
    """Remember the status a poll saw."""
    conn.execute(
        "UPDATE batches SET status = ?, updated_at = ? WHERE id = ?", (status, now, batch_id)
    )


def collected(conn: sqlite3.Connection, batch_id: str, status: str, now: str) -> None:
    """Mark a batch collected: its results are rows of ``calls`` now."""
    conn.execute(
        "UPDATE batches SET status = ?, updated_at = ?, collected_at = ? WHERE id = ?",
        (status, now, now, batch_id),
    )
