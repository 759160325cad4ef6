"""The store's ``call_usage`` table: the token usage a ``calls`` row has no column for.

A table of its own, not new ``calls`` columns, because a store is migrated only by
adding what it lacks. A row is written only for an ``ok`` reply with something to
say, with its ``calls`` row, and never replaced.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from fairjudge.runner._records import USAGE_COLUMNS
from fairjudge.runner._store_read import DamagedColumn, count_of

__all__ = ["USAGE_TABLE", "checked_usage", "usage_rows", "write_usage"]

USAGE_TABLE = """
CREATE TABLE IF NOT EXISTS call_usage (
    key                 TEXT PRIMARY KEY,
    reasoning_tokens    INTEGER,
    cached_input_tokens INTEGER,
    cache_write_tokens  INTEGER,
    usage_problem       TEXT,
    batch               INTEGER NOT NULL CHECK (batch IN (0, 1))
) WITHOUT ROWID;
"""

_INSERT = (
    f"INSERT INTO call_usage (key, {', '.join(USAGE_COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT(key) DO NOTHING"
)


def write_usage(conn: sqlite3.Connection, rows: Iterable[tuple[Any, ...]]) -> None:
    """Insert ``(key, *usage_extras)`` rows, inside the caller's transaction."""
    conn.executemany(_INSERT, rows)


def usage_rows(conn: sqlite3.Connection, keys: list[str]) -> dict[str, dict[str, Any]]:
    """``{key: {column: value}}`` for the keys that have a row, as stored (unchecked)."""
    found: dict[str, dict[str, Any]] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for key, *values in conn.execute(
            f"SELECT key, {', '.join(USAGE_COLUMNS)} FROM call_usage WHERE key IN ({marks})",
            chunk,
        ):
            found[key] = dict(zip(USAGE_COLUMNS, values, strict=True))
    return found


def checked_usage(row: dict[str, Any]) -> dict[str, Any]:
    """A row of :func:`usage_rows` with each value checked, ``batch`` as a bool.

    Raises:
        DamagedColumn: A value that fairjudge never writes there (named by column).
    """
    for column in ("reasoning_tokens", "cached_input_tokens", "cache_write_tokens"):
        count_of(column, row[column])
    if not (row["usage_problem"] is None or type(row["usage_problem"]) is str):
        raise DamagedColumn("usage_problem", "is not text")
    if row["batch"] not in (0, 1) or type(row["batch"]) is not int:
        raise DamagedColumn("batch", "is not 0 or 1")
    return {**row, "batch": bool(row["batch"])}
