"""Why the store cannot be written or read, in words that say what to fix.

At open, a failure is a :class:`~fairjudge.ConfigError` before any call; mid-run it
is a :class:`StoreWriteError` that stops new calls. :func:`cause_of` finds the reason
a person can act on; :class:`StoreRowDamaged` names a damaged row and how to delete it.
Every read of the store that may meet text that is not UTF-8 goes through
:func:`fetch_all`, which hands such a value over as :class:`NotUtf8` for the reader
to report, instead of failing in Python's reader.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import shutil
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge._redact import scrub

__all__ = [
    "MIN_FREE_BYTES",
    "NotUtf8",
    "StoreRowDamaged",
    "StoreWriteError",
    "as_text",
    "cause_of",
    "fetch_all",
    "fetch_checked",
    "free_bytes",
    "is_corruption",
    "sql_text",
    "store_file",
]

MIN_FREE_BYTES = 16 * 1024 * 1024
"""Free space a store's disk must have when the store is opened.

A stored call takes a few kilobytes (its messages, the reply, the parsed result), so
16 MiB is room for some thousands of calls; less than that is a disk that will fill
up during the run, after the calls are paid for. A disk can still fill up mid-run
(other programs write too): then :class:`StoreWriteError` stops the run.
"""

# SQLite primary result codes (the low byte of an extended code).
_SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 5, 6, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL = 10, 11, 13
_SQLITE_CANTOPEN, _SQLITE_NOTADB = 14, 26


def _code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_corruption(exc: BaseException) -> bool:
    """Whether SQLite said the file is damaged or not a database at all."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    return _code(exc) in (_SQLITE_CORRUPT, _SQLITE_NOTADB)


def free_bytes(folder: Path) -> int | None:
    """Bytes free for this user on the disk holding ``folder``; ``None`` if unknown."""
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def _read_only_fs(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs on Windows
        return False


def cause_of(path: str, exc: BaseException | None = None) -> str:
    """The reason ``path`` cannot be used as a store, found by looking at the file system.

    Args:
        path: The store file.
        exc: What SQLite or the OS raised, if anything; it is quoted when the file
            system shows no better reason.

    Returns:
        One clause, e.g. ``"the folder /data is read-only for this user"``.
    """
    p = Path(path)
    for parent in reversed(p.parents):
        if parent.exists() and not parent.is_dir():
            return f"{parent} is a file, not a folder"
    if p.is_dir():
        return f"{p} is a folder, not a file"
    folder = p.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if _read_only_fs(folder) or (isinstance(exc, OSError) and exc.errno == errno.EROFS):
        return f"the file system holding {folder} is read-only"
    if p.exists() and not os.access(p, os.W_OK):
        return "the file is read-only for this user"
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"the folder {folder} is read-only for this user (SQLite also writes "
            f"{p.name}-wal and {p.name}-shm next to the store)"
        )
    free = free_bytes(folder)
    code = _code(exc) if exc is not None else None
    if free is not None and (free < MIN_FREE_BYTES or code == _SQLITE_FULL):
        return f"the disk holding {folder} is full ({free / 2**20:.1f} MiB free)"
    said = f" (SQLite: {exc})" if isinstance(exc, sqlite3.Error) else f" ({exc})" if exc else ""
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return f"another process kept the store locked for longer than the busy timeout{said}"
    if code == _SQLITE_READONLY:
        return f"SQLite could not write to the file{said}"
    if code == _SQLITE_FULL:
        return f"the disk is full{said}"
    if code in (_SQLITE_IOERR, _SQLITE_CANTOPEN):
        return f"the file could not be read or written{said}"
    return f"it could not be written{said}"


class StoreWriteError(FairJudgeError):
    """Finished calls could not be written to the store in the middle of a run.

    The engine starts no new call once it sees this error; the calls already stored
    are kept, and the ones that are not will be made again by the next run. One run
    shares one instance across all its failed writes (see
    :class:`~fairjudge.runner._run.BatchWriter`), so the counts keep growing until
    the run has stopped, and the message is built when it is read.

    Attributes:
        path: The store file.
        cause: Why, in words a person can act on (see :func:`cause_of`).
        unsaved: Replies received (and paid for) that are not in the store.
        unsaved_errors: Failed calls whose audit row is not in the store.
    """

    params = ("store",)

    def __init__(self, path: str, cause: str) -> None:
        super().__init__(path, cause)
        self.path = path
        self.cause = cause
        self.unsaved = 0
        self.unsaved_errors = 0

    def add(self, other: StoreWriteError) -> None:
        """Count another failed write of the same run in this error."""
        self.unsaved += other.unsaved
        self.unsaved_errors += other.unsaved_errors

    def __str__(self) -> str:
        lost = f"{self.unsaved} paid {'reply' if self.unsaved == 1 else 'replies'}"
        if self.unsaved_errors:
            lost += f" and {self.unsaved_errors} failed-call records"
        return scrub(
            f"cannot write to the store {self.path}: {self.cause}. {lost} could not be "
            "stored (the next run makes those calls again), so the run stopped starting "
            "calls; every call stored before this is kept. Fix the cause, or pass "
            "another store, and run again."
        )


_PLAIN_KEY = re.compile(r"[0-9A-Za-z_.:-]{1,128}")
_SHOWN = 3  # damaged rows described in the message; every one is in the command
_DELETABLE = 200  # more than this many damaged rows: the store is damaged, not a row


def _key_shown(key: str) -> str:
    return key if _PLAIN_KEY.fullmatch(key) else ascii(key)[:80]


def sql_text(text: str) -> str:
    """``text`` as an SQL literal that is safe inside a double-quoted shell word.

    Text read from the store as :class:`NotUtf8` (its bytes that are not UTF-8 as
    lone surrogates) is written back as the very bytes it was read from.
    """
    if _PLAIN_KEY.fullmatch(text):
        return f"'{text}'"
    return f"CAST(X'{text.encode('utf-8', 'surrogateescape').hex()}' AS TEXT)"


class StoreRowDamaged(ConfigError):
    """Rows of the store hold values fairjudge never writes: the rows are damaged.

    SQLite keeps whatever type a column is given, so a hand edit, a bad disk or
    another tool can leave ``[1,2`` in ``top_logprobs`` or text in ``input_tokens``.
    What fairjudge does with such a row:

    - A column that can be rebuilt from the reply is: a cached call is served from
      its ``raw`` text and parsed again, so a damaged ``parsed`` does not stop a run
      (nor a ``parsed`` verdict that contradicts ``raw``: it is never served).
    - A row whose ``spec`` does not hash to its key (the spec or the key was edited,
      or a row copied under another call's key) is not the record of the call it is
      stored under, so its reply is refused like a damaged column's. A reply copied
      into a row whose spec was left alone cannot be told from the real one: a store
      from someone else is as trustworthy as they are.
    - A column the cached reply itself needs (``raw``, ``top_logprobs``, the token
      counts, ``latency_s``, ``response_model``) cannot be rebuilt, so the run
      refuses before it makes any call, with this error (a :class:`ConfigError`:
      exit 2 in the CLI). The call is not made again behind the user's back: that
      would be paid for, and an ``ok`` row is final, so the new reply could not
      replace the damaged one. Deleting the rows (the message gives the ``sqlite3``
      command) lets the next run make those calls again.
    - Reading a full record (:meth:`Store.get <fairjudge.runner.Store.get>`,
      :meth:`Store.records <fairjudge.runner.Store.records>`) raises this error for
      a damaged row, whichever column it is in, as does
      :meth:`Store.usage_rows <fairjudge.runner.Store.usage_rows>` for the numbers.

    Attributes:
        path: The store file.
        damage: ``{key: "<column> <what is wrong>"}`` for every damaged row found.
    """

    def __init__(self, path: str, damage: Mapping[str, str]) -> None:
        super().__init__(path)
        self.args = (path, dict(damage))  # as the constructor takes them: pickles round-trip
        self.path = path
        self.damage = dict(damage)
        self.params = ("store",) if len(self.damage) > _DELETABLE else ()

    @property
    def delete_sql(self) -> str:
        """The SQL statement that deletes every damaged row."""
        keys = ", ".join(sql_text(key) for key in self.damage)
        return f"DELETE FROM calls WHERE key IN ({keys})"

    def __str__(self) -> str:
        n = len(self.damage)
        shown = "; ".join(
            f"call {_key_shown(key)}: {why}" for key, why in list(self.damage.items())[:_SHOWN]
        )
        more = f"; and {n - _SHOWN} more" if n > _SHOWN else ""
        head = (
            f"the store {self.path!r} has {n} damaged {'row' if n == 1 else 'rows'}: "
            f"{shown}{more}. fairjudge neither serves nor changes a damaged row"
        )
        if n > _DELETABLE:
            return (
                f"{head}. So many damaged rows mean a damaged file: move it aside and pass "
                "another store (`sqlite3 STORE .recover` can save the readable rows)"
            )
        return (
            f"{head}. Use another store, or delete {'it' if n == 1 else 'them'} and the "
            f"next run makes those calls again (at their cost): sqlite3 "
            f'{shlex.quote(self.path)} "{self.delete_sql}"'
        )


class NotUtf8(bytes):
    """The bytes of a text value that is not UTF-8 (a store's reader names its column).

    ``str()`` of it is the text with each byte that is not UTF-8 as a lone surrogate
    (``surrogateescape``): what a message shows (escaped) and :func:`sql_text` turns
    back into the same bytes, so a damaged row's key still finds the row.
    """

    problem = "is not UTF-8 text"
    """What a damaged row's report says of the column."""

    def __str__(self) -> str:
        """The value as text, its bytes that are not UTF-8 as lone surrogates."""
        return self.decode("utf-8", "surrogateescape")


def _lenient(data: bytes) -> str | bytes:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return NotUtf8(data)


def as_text(row: Sequence[Any]) -> tuple[Any, ...]:
    """``row`` with each :class:`NotUtf8` value as its ``str()``, the rest as they are."""
    return tuple(str(v) if isinstance(v, NotUtf8) else v for v in row)


def _fetch(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> tuple[list[Any], Any]:
    """The rows, and the ``description`` of the lenient query (``None``: all text was UTF-8)."""
    try:
        return conn.execute(sql, params).fetchall(), None
    except sqlite3.OperationalError as exc:
        if "decode to UTF-8" not in str(exc):
            raise
    conn.text_factory = _lenient
    try:
        cursor = conn.execute(sql, params)
        return cursor.fetchall(), cursor.description
    finally:
        conn.text_factory = str


def fetch_all(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """``conn.execute(sql, params).fetchall()``, even over text that is not UTF-8.

    SQLite keeps whatever bytes a TEXT value is given (``CAST(X'ff' AS TEXT)``), and
    Python's reader raises on the first it cannot decode, naming no row (the store
    reported it as a write it could not make). Then the query runs again, such values
    read as :class:`NotUtf8`, for the caller to name each damaged row. The usual query
    pays nothing for it.
    """
    return _fetch(conn, sql, params)[0]


def fetch_checked(
    conn: sqlite3.Connection,
    sql: str,
    params: Sequence[Any],
    damaged: Callable[[str, str, tuple[Any, ...]], ConfigError],
) -> list[Any]:
    """:func:`fetch_all` where a row with text that is not UTF-8 is refused.

    Raises:
        ConfigError: ``damaged(store file, column, row)`` for the first such row, its
            values as :func:`as_text` gives them.
    """
    rows, description = _fetch(conn, sql, params)
    if description is not None:
        for row in rows:
            for value, about in zip(row, description, strict=True):
                if isinstance(value, NotUtf8):
                    raise damaged(store_file(conn), about[0], as_text(row))
    return rows


def store_file(conn: sqlite3.Connection) -> str:
    """The file of the store ``conn`` has open (as SQLite names it: the full path)."""
    return next((f for _, name, f in conn.execute("PRAGMA database_list") if name == "main"), "")
