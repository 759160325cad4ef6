"""The store: the cache and the audit log of judge calls, in one SQLite file.

One row per judge call, keyed by :attr:`fairjudge._call.CallSpec.key` (a SHA-256
over everything that determines the reply). A row with status ``ok`` is a cache hit
for every later run; a row with status ``error`` records the failure for the audit
and is retried by the next run. The row keeps the rendered call (its canonical
JSON), the raw reply, the parsed result as generic JSON (a verdict, rubric scores,
a vote: the store does not care), the logprobs, token usage, latency and cost.

Concurrency. The file is in WAL mode with a busy timeout, and every write is an
``INSERT ... ON CONFLICT DO UPDATE``, so two processes can fill the same store at
once. Within a process the runner funnels writes through one writer that commits
small batches, so a killed run loses at most the calls in flight. Once a key has an
``ok`` row it is never overwritten: the first successful reply is the cached one.

Secrets. A :class:`~fairjudge._call.CallSpec` holds no credentials, and error text
is scrubbed of key-shaped text and credential env values before it is written.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from os import PathLike
from pathlib import Path
from typing import Literal

from fairjudge._call import Completion
from fairjudge._closing import Closing
from fairjudge._errors import ConfigError
from fairjudge.runner._records import (
    COLUMNS,
    SCHEMA_VERSION,
    CallRecord,
    Row,
    from_row,
    to_row,
    utc_now,
)

__all__ = ["DEFAULT_STORE_PATH", "Store"]

DEFAULT_STORE_PATH = Path(".fairjudge") / "store.sqlite"
"""Where the store lives unless ``--store`` says otherwise (relative to the working dir)."""

_IN_CHUNK = 500  # keys per SELECT ... IN (...); well under SQLite's variable limit

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    key              TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    backend          TEXT NOT NULL,
    model            TEXT NOT NULL,
    base_url         TEXT,
    template         TEXT NOT NULL,
    template_version TEXT NOT NULL,
    sample           INTEGER NOT NULL,
    spec             TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    raw              TEXT,
    parsed           TEXT,
    top_logprobs     TEXT,
    response_model   TEXT,
    input_tokens     INTEGER,
    output_tokens    INTEGER,
    latency_s        REAL,
    cost_usd         REAL,
    attempts         INTEGER NOT NULL,
    error_kind       TEXT,
    error_message    TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    schema_version   INTEGER NOT NULL
);
"""

# An ok row is final; an error row is replaced by the next attempt, whatever it gives.
_UPSERT = (
    f"INSERT INTO calls ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
    "ON CONFLICT(key) DO UPDATE SET "
    + ", ".join(
        f"{c} = excluded.{c}" for c in COLUMNS if c not in ("key", "created_at", "attempts", "spec")
    )
    + ", attempts = calls.attempts + excluded.attempts"
    " WHERE calls.status != 'ok'"
)


class Store(Closing):
    """The SQLite cache and audit log.

    Args:
        path: The database file; parent folders are created. ``":memory:"`` keeps
            everything in memory (tests, throwaway runs).
        busy_timeout: Seconds to wait for another process's write lock.

    Raises:
        ConfigError: The file is not a fairjudge store, or was written by a newer
            fairjudge.

    Example:
        >>> with Store(":memory:") as store:
        ...     store.count()
        0
    """

    def __init__(
        self, path: str | PathLike[str] = DEFAULT_STORE_PATH, *, busy_timeout: float = 30.0
    ) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot open the store at {self.path!r}: {exc}") from exc
        try:
            self._setup(busy_timeout)
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise ConfigError(
                f"{self.path!r} is not a usable fairjudge store ({exc}); "
                "pass another path with --store"
            ) from exc
        except BaseException:
            self._conn.close()
            raise

    def _setup(self, busy_timeout: float) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        deadline = time.monotonic() + busy_timeout
        while True:
            # Switching to WAL needs a moment of exclusive access; a second process
            # opening the same new file can get SQLITE_BUSY here, so retry.
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                break
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        # WAL + NORMAL: a commit survives a killed process; only power loss can lose
        # the last few, and a lost call is simply made again.
        conn.execute("PRAGMA synchronous = NORMAL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise ConfigError(
                f"the store {self.path!r} has schema version {version}, newer than this "
                f"fairjudge understands ({SCHEMA_VERSION}); upgrade fairjudge or use "
                "another --store"
            )
        if version < SCHEMA_VERSION:
            conn.executescript(
                f"BEGIN IMMEDIATE;\n{_SCHEMA}\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;"
            )

    def close(self) -> None:
        """Close the database connection. Safe to call twice."""
        with self._lock:
            self._conn.close()

    def __repr__(self) -> str:
        return f"Store({self.path!r})"

    # -- writing -------------------------------------------------------------------

    def write(self, records: Sequence[CallRecord]) -> None:
        """Insert or update records in one transaction.

        An existing ``ok`` row is kept as it is (the first reply is the cached one);
        an ``error`` row is replaced. Error messages are redacted again here.
        """
        now = utc_now()
        self.write_rows([to_row(r, now) for r in records])

    def write_rows(self, rows: Sequence[Row]) -> None:
        """Insert or update rows built by :func:`call_row` (the runner's fast path)."""
        if not rows:
            return
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(_UPSERT, rows)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # -- reading -------------------------------------------------------------------

    def get_many(self, keys: Iterable[str]) -> dict[str, Completion]:
        """The cached replies among ``keys``: only ``ok`` rows, as :class:`Completion`.

        Keys are looked up in chunks with ``WHERE key IN (...)``, so thousands of
        keys cost a handful of queries.
        """
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Completion] = {}
        with self._lock:
            for start in range(0, len(wanted), _IN_CHUNK):
                chunk = wanted[start : start + _IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    "SELECT key, raw, top_logprobs, input_tokens, output_tokens, latency_s, "
                    f"response_model FROM calls WHERE status = 'ok' AND key IN ({marks})",
                    chunk,
                ).fetchall()
                for key, raw, logprobs, n_in, n_out, latency, model in rows:
                    found[key] = Completion(
                        text=raw if raw is not None else "",
                        top_logprobs=json.loads(logprobs) if logprobs else None,
                        input_tokens=n_in,
                        output_tokens=n_out,
                        latency_s=latency or 0.0,
                        model=model,
                    )
        return found

    def get(self, key: str) -> CallRecord | None:
        """The full record for one key, whatever its status."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {', '.join(COLUMNS)} FROM calls WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else from_row(row)

    def records(self, *, status: Literal["ok", "error"] | None = None) -> Iterator[CallRecord]:
        """Every record (optionally only one status), oldest first."""
        where = "" if status is None else " WHERE status = ?"
        params: tuple[str, ...] = () if status is None else (status,)
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {', '.join(COLUMNS)} FROM calls{where} ORDER BY created_at, key",
                params,
            ).fetchall()
        for row in rows:
            yield from_row(row)

    def count(self, *, status: Literal["ok", "error"] | None = None) -> int:
        """How many rows there are (optionally only one status)."""
        with self._lock:
            if status is None:
                row = self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()
            else:
                row = self._conn.execute(
                    "SELECT COUNT(*) FROM calls WHERE status = ?", (status,)
                ).fetchone()
        return int(row[0])
