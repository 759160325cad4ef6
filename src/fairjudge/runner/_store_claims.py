"""The claims table's SQL: claim, renew and release keys, in the caller's transaction.

See :mod:`fairjudge.runner._claims` for what claims are for and how a run uses them;
:class:`~fairjudge.runner.Store` wraps each function in a transaction and its lock.
"""

from __future__ import annotations

import os
import secrets
import socket
import sqlite3
from collections.abc import Iterator, Sequence

__all__ = [
    "DEFAULT_LEASE_S",
    "claim_keys",
    "drop_dead_owners",
    "drop_expired",
    "new_owner",
    "release_keys",
    "renew_all",
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
