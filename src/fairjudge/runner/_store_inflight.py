"""The store's tables of calls in flight: claims and provider batches, as SQL.

Claims say which process is making which call right now: see
:mod:`fairjudge.runner._claims` for what they are for and how a run uses them;
:class:`~fairjudge.runner.Store` wraps each claims function in a transaction and its
lock.

The batch tables say which provider batch holds which call. A submitted batch is paid
for whatever becomes of the process, so its id and each call's ``custom_id`` are
written right after the provider accepts it, before any poll; the next run collects
the same batch and never submits those calls again.
"""

from __future__ import annotations

import os
import secrets
import socket
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "BATCH_TABLES",
    "DEFAULT_LEASE_S",
    "UPLOADED",
    "OpenBatch",
    "claim_keys",
    "collected",
    "drop_dead_owners",
    "drop_expired",
    "new_owner",
    "open_batches",
    "record_batch",
    "release_keys",
    "renamed",
    "renew_all",
    "seen",
]


DEFAULT_LEASE_S = 120.0
"""How long a claim lasts unless renewed. A run renews its claims every quarter lease,
so only a process that died (or froze for two minutes) loses them."""

_CHUNK = 500  # keys per statement; well under SQLite's variable limit


def _where() -> str:
    """This host and PID namespace: where a pid means the same process as ours.

    Containers can share a hostname without sharing process ids, so the namespace
    (Linux: ``/proc/self/ns/pid``) is part of it; elsewhere the host alone.
    """
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    return f"{socket.gethostname()}/{namespace}"


def new_owner() -> str:
    """A claim owner id: host and PID namespace, pid, and a random part."""
    return f"{_where()}:{os.getpid()}-{secrets.token_hex(4)}"


def _dead_here(owner: str, host: str) -> bool:
    """Whether ``owner`` was a process on this host that no longer runs.

    A SIGKILLed run's claims need not wait out their lease when its process is
    visibly gone: on the same host, ``kill(pid, 0)`` tells. Owners on other hosts
    (a store on a shared disk) and unknown forms keep their lease.
    """
    owner_host, sep, rest = owner.rpartition(":")
    if os.name != "posix" or not sep or owner_host != host:
        return False  # elsewhere kill(pid, 0) is not a harmless probe
    pid_text = rest.partition("-")[0]
    if not pid_text.isdigit() or int(pid_text) == os.getpid():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, owned by someone else
        return False
    return False


def drop_dead_owners(conn: sqlite3.Connection) -> None:
    """Drop the claims of processes on this host that died holding them."""
    host = _where()
    dead = [o for (o,) in conn.execute("SELECT DISTINCT owner FROM claims") if _dead_here(o, host)]
    conn.executemany("DELETE FROM claims WHERE owner = ?", [(o,) for o in dead])


def _chunks(keys: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(keys), _CHUNK):
        yield keys[start : start + _CHUNK]


def claim_keys(
    conn: sqlite3.Connection, owner: str, keys: Sequence[str], lease_s: float, now: float
) -> list[str]:
    """Claim the keys nobody has answered or holds; the caller runs the transaction.

    Must run inside ``BEGIN IMMEDIATE``: holding the write lock while reading makes
    the read and the insert one step for every process sharing the file. Keys this
    owner already holds are renewed and returned again; an expired claim, or one whose
    process on this host is gone (killed), is taken over. ``now`` is the wall-clock
    time (:func:`time.time`) that leases are measured in.
    """
    drop_dead_owners(conn)
    claimed: list[str] = []
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        taken = {
            key
            for (key,) in conn.execute(
                f"SELECT key FROM calls WHERE status = 'ok' AND key IN ({marks})", chunk
            )
        }
        taken.update(
            key
            for (key,) in conn.execute(
                f"SELECT key FROM claims WHERE owner != ? AND expires_at > ? AND key IN ({marks})",
                (owner, now, *chunk),
            )
        )
        mine = [key for key in dict.fromkeys(chunk) if key not in taken]
        conn.executemany(
            "INSERT INTO claims (key, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT(key) "
            "DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at",
            [(key, owner, now + lease_s) for key in mine],
        )
        claimed.extend(mine)
    return claimed


def drop_expired(conn: sqlite3.Connection, now: float) -> None:
    """Forget expired claims (of processes that died) whose keys nobody claimed again."""
    conn.execute("DELETE FROM claims WHERE expires_at <= ?", (now,))


def renew_all(conn: sqlite3.Connection, owner: str, lease_s: float, now: float) -> int:
    """Extend every claim ``owner`` holds by a lease from ``now``; returns how many."""
    cur = conn.execute("UPDATE claims SET expires_at = ? WHERE owner = ?", (now + lease_s, owner))
    return cur.rowcount


def release_keys(conn: sqlite3.Connection, owner: str, keys: Sequence[str] | None) -> None:
    """Drop ``owner``'s claims on ``keys`` (``None``: all of them)."""
    if keys is None:
        conn.execute("DELETE FROM claims WHERE owner = ?", (owner,))
        return
    for chunk in _chunks(keys):
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM claims WHERE owner = ? AND key IN ({marks})", (owner, *chunk))


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
