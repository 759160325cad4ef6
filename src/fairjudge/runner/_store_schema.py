"""The store's schema, checked on every open, and its tables of calls in flight.

Only a store whose schema is exactly fairjudge's own DDL is opened, so no trigger or
view can rewrite the audit log. The claims and batch tables say which process makes
which call now and which provider batch holds it (design: ``docs/internals.md``).
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import socket
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from fairjudge._errors import ConfigError
from fairjudge.runner._store_errors import (
    NotUtf8,
    StoreRowDamaged,
    as_text,
    fetch_all,
    fetch_checked,
    sql_text,
    store_file,
)

__all__ = [
    "BATCH_TABLES",
    "DEFAULT_LEASE_S",
    "UPLOADED",
    "BatchRecordDamaged",
    "OpenBatch",
    "SchemaObject",
    "check_schema",
    "claim_keys",
    "collected",
    "drop_dead_owners",
    "drop_expired",
    "expected_schema",
    "failed_in_batches",
    "in_chunks",
    "lost",
    "new_owner",
    "open_batches",
    "record_batch",
    "release_keys",
    "renamed",
    "renew_all",
    "schema_of",
    "seen",
    "shown",
]


_SHOWN = 5  # objects named in one message; the rest are counted
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Whitespace outside SQL's quoted tokens ('text', "name", `name`, [name]); a quoted
# token is matched first and kept as it is, so only whitespace between tokens folds.
_TOKEN_OR_SPACE = re.compile(r"""('(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\])|\s+""")


@dataclass(frozen=True, slots=True)
class SchemaObject:
    """One entry of ``sqlite_master``, with what SQLite reports about its columns.

    Attributes:
        type: ``table``, ``index``, ``trigger`` or ``view``.
        name: The object's name.
        table: The table it belongs to (its own name for a table or view).
        sql: Its ``CREATE`` statement with whitespace folded; ``None`` for the indexes
            SQLite makes itself for a ``PRIMARY KEY`` or ``UNIQUE`` constraint.
        columns: ``PRAGMA table_xinfo`` rows (a table) or ``index_xinfo`` rows (an
            index) without their position: (name, type, not null, default, key,
            hidden) or (column, name, descending, collation, key); none for the rest.
    """

    type: str
    name: str
    table: str
    sql: str | None
    columns: tuple[tuple[object, ...], ...]


def _folded(sql: str | None) -> str | None:
    if sql is None:
        return None
    return _TOKEN_OR_SPACE.sub(lambda m: m.group(1) or " ", sql).strip()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def schema_of(conn: sqlite3.Connection) -> dict[tuple[str, str], SchemaObject]:
    """Every object in the database of ``conn``, keyed by ``(type, name)``.

    Reads ``sqlite_master`` and the column pragmas only: nothing in the schema runs.
    Text that is not UTF-8 (a name, a statement) is read as :func:`as_text` gives it,
    so that the check names the object instead of failing to read it.
    """
    found: dict[tuple[str, str], SchemaObject] = {}
    for row in fetch_all(conn, "SELECT type, name, tbl_name, sql FROM sqlite_master"):
        kind, name, table, sql = as_text(row)
        # Not a view's columns: reading them runs the view's query, which can fail (a
        # table it names is gone) or call functions; its CREATE statement says it all.
        # Nor those of a name that is not UTF-8: no statement can name it, nor is it ours.
        pragma = {"table": "table_xinfo", "index": "index_xinfo"}
        columns: tuple[tuple[object, ...], ...] = ()
        if kind in pragma and not isinstance(row[1], NotUtf8):
            listed = fetch_all(conn, f"PRAGMA {pragma[kind]}({_quoted(name)})")
            columns = tuple(as_text(info[1:]) for info in listed)
        found[(kind, name)] = SchemaObject(kind, name, table, _folded(sql), columns)
    return found


def expected_schema(
    write: Callable[[sqlite3.Connection], None],
) -> dict[tuple[str, str], SchemaObject]:
    """The schema that ``write`` (the store's own DDL) makes in an empty database."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.execute("PRAGMA trusted_schema = OFF")
        write(conn)
        return schema_of(conn)
    finally:
        conn.close()


def check_schema(
    conn: sqlite3.Connection,
    path: str,
    expected: dict[tuple[str, str], SchemaObject],
) -> bool:
    """Refuse a store whose schema holds anything fairjudge does not write.

    Returns:
        Whether an object of ``expected`` is missing (an older store): the caller
        writes the schema, which adds it.

    Raises:
        ConfigError: An object that is not fairjudge's, or one of fairjudge's that
            was changed; the message names each (up to five) and the ``sqlite3``
            command that shows it.
    """
    found = schema_of(conn)
    problems = [
        (obj, why)
        for key, obj in sorted(found.items())
        if (why := _what_is_wrong(obj, expected.get(key))) is not None
    ]
    # An index SQLite made for a refused table's key is that table's, not news.
    refused = {obj.name for obj, _ in problems if obj.type == "table"}
    problems = [
        (obj, why)
        for obj, why in problems
        if not (obj.type == "index" and obj.sql is None and obj.table in refused)
    ]
    if problems:
        raise _foreign(path, problems)
    return any(key not in found for key in expected)


def shown(name: str) -> str:
    """A name as a message shows it: as is when plain, else escaped (it is the file's text)."""
    return name if _PLAIN_NAME.fullmatch(name) else ascii(name)


def _what_is_wrong(obj: SchemaObject, ours: SchemaObject | None) -> str | None:
    if ours is None:
        return "that fairjudge never creates"
    if obj.type == "table" and obj.columns != ours.columns:
        return _column_change(obj.columns, ours.columns)
    if obj.columns != ours.columns or obj.sql != ours.sql or obj.table != ours.table:
        return "defined otherwise than fairjudge defines it (a constraint, collation or option)"
    return None


def _column_change(
    found: tuple[tuple[object, ...], ...], ours: tuple[tuple[object, ...], ...]
) -> str:
    names, our_names = [str(c[0]) for c in found], [str(c[0]) for c in ours]
    extra = [n for n in names if n not in our_names]
    if extra:
        return f"with a column {shown(extra[0])} that fairjudge does not write"
    missing = [n for n in our_names if n not in names]
    if missing:
        return f"without the column {shown(missing[0])} that fairjudge writes"
    if names != our_names:
        return "with its columns in another order than fairjudge's"
    for column, our_column in zip(found, ours, strict=True):
        if column[1] != our_column[1]:
            declared = f"as {shown(str(column[1]))}" if column[1] else "without a type"
            return (
                f"whose column {shown(str(column[0]))} is declared {declared} where "
                f"fairjudge declares it as {our_column[1]}"
            )
    changed = next(n for n, c, o in zip(names, found, ours, strict=True) if c != o)
    return (
        f"whose column {shown(changed)} is declared otherwise than fairjudge declares it "
        "(NOT NULL, default, key or generated)"
    )


def _foreign(path: str, problems: list[tuple[SchemaObject, str]]) -> ConfigError:
    named = "; ".join(_described(path, obj, why) for obj, why in problems[:_SHOWN])
    more = len(problems) - _SHOWN
    if more > 0:
        named += f"; and {more} more (`sqlite3 {shlex.quote(path)} .schema` shows them all)"
    return ConfigError(
        f"the store {path!r} has a schema that fairjudge does not write: {named}. "
        "A trigger or view in a store can rewrite what a run stores or reads back, and "
        "a changed table can change what is kept, so fairjudge did not open it and no "
        "call was made. Its rows may already have been rewritten: do not reuse them; "
        "pass another path with store",
        params="store",
    )


def _described(path: str, obj: SchemaObject, why: str) -> str:
    on = f" on table {shown(obj.table)}" if obj.type in ("index", "trigger") else ""
    # ``.schema NAME`` selects by table name: for an index or trigger it is the
    # table's name, which shows the table with its indexes and triggers.
    if _PLAIN_NAME.fullmatch(obj.name) and _PLAIN_NAME.fullmatch(obj.table):
        command = f"sqlite3 {shlex.quote(path)} '.schema {obj.table}'"
    else:  # a name a dot-command could misread: show the whole schema
        command = f"sqlite3 {shlex.quote(path)} .schema"
    return f"{obj.type} {shown(obj.name)}{on} {why} (see it with `{command}`)"


DEFAULT_LEASE_S = 120.0
"""How long a claim lasts unless renewed. A run renews its claims every quarter lease,
so only a process that died (or froze for two minutes) loses them."""

_CHUNK = 500  # keys per statement; well under SQLite's variable limit
_BELIEVED_LEASES = 5
"""A claim running out later than this many leases from now is no process's lease.

A run renews its claims to one default lease ahead, so only a hand edit, a store handed
over with claims planted in it, or a clock hours ahead on another host puts one further
out (unless its owner claims for longer: LEASE_ROW). Believed, it would keep every run
waiting on that call until then. Five leases leave room for clocks minutes apart."""
# An owner claiming for longer than DEFAULT_LEASE_S (Store.claim) keeps a row keyed
# LEASE_ROW + its id beside its claims, running out with the longest of them; its claims
# are believed up to that. No call's key looks so (they are hex); the row is renewed,
# released and dropped with its owner's claims.
LEASE_ROW = "~lease "


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
    """Drop the claims of processes on this host that died holding them.

    An owner that is not UTF-8 (planted: fairjudge never writes one) is read as
    :class:`NotUtf8`, judged by its text, and deleted by its very bytes.
    """
    host = _where()
    owners = fetch_all(conn, "SELECT DISTINCT owner FROM claims")
    dead = [(o,) for (o,) in owners if _dead_here(str(o), host)]
    conn.executemany("DELETE FROM claims WHERE owner = CAST(? AS TEXT)", dead)


def in_chunks(keys: Iterable[str]) -> Iterator[tuple[list[str], str]]:
    """The distinct ``keys`` in chunks for ``WHERE key IN (...)``, each with its ``?`` marks."""
    wanted = list(dict.fromkeys(keys))
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        yield chunk, ",".join("?" * len(chunk))


def claim_keys(
    conn: sqlite3.Connection, owner: str, keys: Sequence[str], lease_s: float, now: float
) -> list[str]:
    """Claim the keys nobody has answered or holds; the caller runs the transaction.

    Must run inside ``BEGIN IMMEDIATE``: holding the write lock while reading makes
    the read and the insert one step for every process sharing the file. Keys this
    owner already holds are renewed and returned again; an expired claim, one whose
    process on this host is gone (killed), or one running out later than its owner's
    lease reaches is taken over: later than five default leases
    (:data:`_BELIEVED_LEASES`), or than the :data:`LEASE_ROW` of an owner claiming for
    longer. The reader's own ``lease_s`` plays no part. ``now`` is the wall-clock time
    (:func:`time.time`) that leases are measured in.
    """
    latest = now + _BELIEVED_LEASES * DEFAULT_LEASE_S
    drop_dead_owners(conn)
    claimed: list[str] = []
    for chunk, marks in in_chunks(keys):
        answered = f"SELECT key FROM calls WHERE status = 'ok' AND key IN ({marks})"
        taken = {key for (key,) in conn.execute(answered, chunk)}
        taken.update(
            key
            for (key,) in conn.execute(
                "SELECT key FROM claims c WHERE owner != ? AND expires_at > ? AND (expires_at <= ? "
                "OR expires_at <= (SELECT expires_at FROM claims WHERE key = ? || c.owner)) "
                f"AND key IN ({marks})",
                (owner, now, latest, LEASE_ROW, *chunk),
            )
        )
        mine = [key for key in chunk if key not in taken]
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
    for chunk, marks in in_chunks(keys):
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
        submitted_at: When it was recorded (ISO 8601 UTC, ``submitted_at``): how old it
            is, when the provider says it does not know it; empty when not known.
    """

    id: str
    provider: str
    route: tuple[str, str, str | None]
    status: str
    members: dict[str, str]
    submitted_at: str = ""


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


_MEMBERS = (
    "SELECT c.batch_id, c.custom_id, c.key, b.provider, b.backend, b.model, b.base_url, b.status, "
    "b.submitted_at FROM batches b JOIN batch_calls c ON c.batch_id = b.id WHERE b.id = ?"
)
"""A batch's members, each with the batch's own columns."""


def open_batches(conn: sqlite3.Connection, keys: Iterable[str]) -> list[OpenBatch]:
    """The batches not yet collected that hold any of ``keys``, each with all its members."""
    ids: set[str] = set()
    for chunk, marks in in_chunks(keys):
        ids.update(
            batch_id
            for (batch_id,) in fetch_checked(
                conn,
                "SELECT DISTINCT c.batch_id FROM batch_calls c JOIN batches b ON b.id = c.batch_id "
                f"WHERE b.collected_at IS NULL AND c.key IN ({marks})",
                chunk,
                _batch_row,
            )
        )
    found = []
    for bid in sorted(ids):
        rows = fetch_checked(conn, _MEMBERS, (bid,), _batch_row)
        provider, backend, model, base_url, status, submitted = rows[0][3:]
        members = {cid: key for _, cid, key, *_ in rows}
        route = (backend, model, base_url)
        found.append(OpenBatch(bid, provider, route, status, members, submitted or ""))
    return found


def failed_in_batches(
    conn: sqlite3.Connection, keys: Iterable[str]
) -> dict[str, tuple[str | None, str | None]]:
    """``{key: (error_kind, error_message)}`` of ``keys`` a collected batch ended in error.

    Error rows of calls that a collected batch held: what batch results wrote (the
    caller runs the transaction). A lost batch (:func:`lost`) answered nothing.

    Raises:
        StoreRowDamaged: Naming every such row with text that is not UTF-8, as
            reading the records (:meth:`Store.get <fairjudge.runner.Store.get>`) does.
    """
    found: dict[str, tuple[str | None, str | None]] = {}
    damage: dict[str, str] = {}
    for chunk, marks in in_chunks(keys):
        for key, kind, message in fetch_all(
            conn,
            "SELECT c.key, c.error_kind, c.error_message FROM calls c WHERE c.status = 'error' "
            f"AND c.key IN ({marks}) AND EXISTS (SELECT 1 FROM batch_calls m JOIN batches b "
            "ON b.id = m.batch_id WHERE m.key = c.key AND b.collected_at IS NOT NULL "
            "AND b.status <> 'lost')",
            chunk,
        ):
            texts = zip(_ERROR_TEXTS, (kind, message), strict=True)
            bad = next((column for column, v in texts if type(v) is NotUtf8), None)
            if bad is not None:
                damage[key] = f"{bad} {NotUtf8.problem}"
            found[key] = (kind, message)
    if damage:
        raise StoreRowDamaged(store_file(conn), damage)
    return found


_ERROR_TEXTS = ("error_kind", "error_message")


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


def lost(conn: sqlite3.Connection, batch_id: str, now: str) -> None:
    """Mark a batch the provider does not know ``lost``: closed, its calls in no open batch.

    Its row stays (``status`` ``lost``, ``collected_at`` set) and so do its
    ``batch_calls``, so the store keeps what was submitted, under which batch id (an
    audit log: the provider may have billed it). Being closed, it holds no call
    (:func:`open_batches`) and answered none (:func:`failed_in_batches`), so a run
    submits or makes its calls again. ``SELECT c.key FROM batch_calls c JOIN batches b
    ON b.id = c.batch_id WHERE b.status = 'lost'`` lists them.
    """
    conn.execute(
        "UPDATE batches SET status = 'lost', updated_at = ?, collected_at = ? WHERE id = ?",
        (now, now, batch_id),
    )


# _batch_teach.py imports it under this name; it is :func:`_store_errors.sql_text` now.
_sql_text = sql_text


def _batch_row(path: str, column: str, row: tuple[Any, ...]) -> BatchRecordDamaged:
    """The damaged record of a ``(batch_id, [custom_id, ...])`` row."""
    return BatchRecordDamaged(path, row[0], column, row[1] if len(row) > 1 else None)


class BatchRecordDamaged(ConfigError):
    """The record of a submitted batch holds text that is not UTF-8: the record is damaged.

    SQLite keeps whatever bytes a TEXT value is given (a hand edit, another tool), and
    the batch tables are what a run finds, polls and collects a submitted batch by. So
    a damaged record is neither used nor changed, as a damaged row of ``calls`` is not
    (:class:`~fairjudge.runner._store_errors.StoreRowDamaged`): the run stops before
    it makes a call for those keys, naming the store, the row and the column, and the
    ``sqlite3`` command that deletes the batch's record (a :class:`ConfigError`: exit
    2 in the CLI). Its calls are then submitted again, at their cost.

    Attributes:
        path: The store file.
        table: ``batches`` or ``batch_calls``.
        batch: The batch's id (its bytes that are not UTF-8 as lone surrogates).
        column: The column that is not UTF-8 text.
        request: The ``custom_id`` of the ``batch_calls`` row, for a row of that table.
    """

    def __init__(self, path: str, batch: str, column: str, request: str | None = None) -> None:
        super().__init__(path)
        self.args = (path, batch, column, request)  # as the constructor takes them: pickles
        self.path, self.batch, self.column = path, batch, column
        self.table = "batch_calls" if column in ("batch_id", "custom_id", "key") else "batches"
        self.request = request if self.table == "batch_calls" else None

    def __str__(self) -> str:
        row = f"the {self.table} row of batch {self.batch!a}"
        if self.request is not None:
            row += f", request {self.request!a}"
        bid = sql_text(self.batch)
        return (
            f"the store {self.path!r} has a damaged batch record: in {row}, {self.column} "
            f"{NotUtf8.problem}. fairjudge neither uses nor changes a damaged record, and no call "
            "was made for it. Use another store, or delete the batch's record and the next "
            "run submits its calls again (at their cost; a batch the provider has run is "
            f'billed as well): sqlite3 {shlex.quote(self.path)} "DELETE FROM batch_calls '
            f'WHERE batch_id = {bid}; DELETE FROM batches WHERE id = {bid}"'
        )
