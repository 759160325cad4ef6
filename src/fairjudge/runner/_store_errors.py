"""Why the store cannot be written, in words that say what to fix.

At open, a failure is a :class:`~fairjudge.ConfigError` before any call; mid-run it
is a :class:`StoreWriteError` that stops new calls. :func:`cause_of` finds the reason
a person can act on; :class:`StoreRowDamaged` names a damaged row and how to delete it.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import shutil
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge._redact import scrub

__all__ = [
    "MIN_FREE_BYTES",
    "StoreRowDamaged",
    "StoreWriteError",
    "cause_of",
    "free_bytes",
    "is_corruption",
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


def _key_sql(key: str) -> str:
    """``key`` as an SQL literal that is safe inside a double-quoted shell word."""
    if _PLAIN_KEY.fullmatch(key):
        return f"'{key}'"
    return f"CAST(X'{key.encode('utf-8', 'surrogatepass').hex()}' AS TEXT)"


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
        keys = ", ".join(_key_sql(key) for key in self.damage)
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
