"""The store: the cache and the audit log of judge calls, in one SQLite file.

One row per call, keyed by :attr:`fairjudge._call.CallSpec.key`: an ``ok`` row is a
cache hit for every later run, an ``error`` row is kept for the audit and retried.
Several processes may fill one store at once (WAL, upserts, claims).
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import fairjudge.runner._records as _records
from fairjudge._call import Closing, Completion
from fairjudge._redact import Redactor
from fairjudge.runner._records import COLUMNS, SCHEMA_VERSION, USAGE_COLUMNS, Row, utc_now
from fairjudge.runner._store_errors import (
    NotUtf8,
    StoreRowDamaged,
    StoreWriteError,
    cause_of,
    fetch_all,
)
from fairjudge.runner._store_open import open_store
from fairjudge.runner._store_schema import (
    DEFAULT_LEASE_S,
    LEASE_ROW,
    claim_keys,
    drop_expired,
    in_chunks,
    new_owner,
    release_keys,
    renew_all,
)

if TYPE_CHECKING:
    from fairjudge.runner._call_record import CallRecord

__all__ = [
    "DEFAULT_STORE_PATH",
    "DamagedColumn",
    "Store",
    "Usage",
    "check_json",
    "checked_usage",
    "count_of",
    "number_of",
    "record_of",
    "reply_of",
    "served",
    "usage_of",
    "usage_rows",
    "version_of",
    "write_usage",
]


DEFAULT_STORE_PATH = Path(".fairjudge") / "store.sqlite"
"""Where the store lives unless ``--store`` says otherwise (relative to the working dir)."""

_STATUS = COLUMNS.index("status")
_ROWS = f"SELECT {', '.join(COLUMNS)} FROM calls"  # every column, in order
_T = TypeVar("_T")

# An ok row is final; an error row is replaced by the next attempt, whatever it gives.
# Either way the requests add up: ``attempts`` counts every request any process sent.
_UPSERT = (
    f"INSERT INTO calls ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))}) "
    "ON CONFLICT(key) DO UPDATE SET "
    + ", ".join(
        f"{c} = CASE WHEN calls.status = 'ok' THEN calls.{c} ELSE excluded.{c} END"
        for c in COLUMNS
        if c not in ("key", "created_at", "attempts", "spec")
    )
    + ", attempts = calls.attempts + excluded.attempts"
)
# The call's claim ends in the transaction that stores its row.
_RELEASE = "DELETE FROM claims WHERE key = ? AND owner = ?"
# A claim for longer than the default says so, for other runs to believe (LEASE_ROW).
_LONG = (
    "INSERT INTO claims VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET "
    "expires_at = MAX(expires_at, excluded.expires_at)"
)


class Store(Closing):
    """The SQLite cache and audit log.

    Opening checks the file before any call is made (see
    :mod:`fairjudge.runner._store_open`): it must be a fairjudge store (or a path
    where one can be created), whole, from this or an older fairjudge, and writable.

    Args:
        path: The database file; parent folders are created. ``":memory:"`` keeps
            everything in memory (tests, throwaway runs).
        busy_timeout: Seconds to wait for another process's write lock.
        clock: Wall-clock time in seconds, that claims' leases are measured in; every
            process sharing the store must use the same one. Tests pass a fake.

    Raises:
        ConfigError: The file is another program's, empty, damaged or from a newer
            fairjudge, or it cannot be written (read-only file or folder, a parent
            path that is a file, a full disk). The message names the path and the cause.

    Attributes:
        owner: This store object's id in the ``claims`` table.
        write_failures: How many writes have failed since it was opened; a run
            stops starting calls when this changes (see :class:`~fairjudge.runner.ClaimQueue`).

    Example:
        >>> with Store(":memory:") as store:
        ...     store.count()
        0
    """

    def __init__(
        self,
        path: str | PathLike[str] = DEFAULT_STORE_PATH,
        *,
        busy_timeout: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = str(path)
        self._clock = clock
        self.owner = new_owner()
        self.write_failures = 0
        self._lock = threading.Lock()
        self._closed = False
        self._conn = open_store(self.path, busy_timeout)

    def close(self) -> None:
        """Release this store's claims and close the connection. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with contextlib.suppress(StoreWriteError):  # unreleased claims expire anyway
                self._transaction(self._tidy_claims)
            self._conn.close()

    def _tidy_claims(self) -> None:
        release_keys(self._conn, self.owner, None)
        drop_expired(self._conn, self._clock())

    def __repr__(self) -> str:
        return f"Store({self.path!r})"

    # -- writing -------------------------------------------------------------------

    def write(self, records: Sequence[CallRecord]) -> None:
        """Insert or update records in one transaction.

        An existing ``ok`` row is kept as it is (the first reply is the cached one);
        an ``error`` row is replaced. ``attempts`` adds up either way. Error messages
        are redacted again here.

        Raises:
            StoreWriteError: The rows could not be written (full disk, read-only file,
                I/O error, a lock held past the busy timeout).
        """
        from fairjudge.runner._call_record import to_row

        now = utc_now()
        self.write_rows([to_row(r, now) for r in records])

    def write_rows(self, rows: Sequence[Row]) -> None:
        """Insert or update rows built by :func:`call_row` (the runner's fast path).

        The same transaction releases this store's claims on the rows' keys.

        Raises:
            StoreWriteError: As for :meth:`write`; it counts the rows not stored.
        """
        if not rows:
            return
        with self._lock:
            try:
                self._transaction(lambda: self._write(rows))
            except StoreWriteError as exc:
                ok = sum(1 for row in rows if row[_STATUS] == "ok")
                exc.unsaved, exc.unsaved_errors = ok, len(rows) - ok
                raise

    def _write(self, rows: Sequence[Row]) -> None:
        n = len(COLUMNS)  # a row may carry its call_usage values after the columns
        self._conn.executemany(_UPSERT, [row[:n] if len(row) > n else row for row in rows])
        write_usage(self._conn, [(row[0], *row[n:]) for row in rows if len(row) > n])
        self._conn.executemany(_RELEASE, [(row[0], self.owner) for row in rows])

    def _transaction(self, work: Callable[[], _T]) -> _T:
        """Run ``work()`` in ``BEGIN IMMEDIATE``; the caller holds ``self._lock``."""
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            result = work()
            conn.execute("COMMIT")
        except BaseException as exc:
            # After a full disk or an I/O error SQLite may have rolled back already.
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):  # disk full, read-only, I/O error, ...
                self.write_failures += 1
                raise StoreWriteError(self.path, cause_of(self.path, exc)) from exc
            raise
        return result

    # -- claims (see _claims.py) -----------------------------------------------------

    def claim(self, keys: Iterable[str], *, lease_s: float = DEFAULT_LEASE_S) -> list[str]:
        """Claim the calls among ``keys`` that no process has answered or is making.

        One ``BEGIN IMMEDIATE`` transaction: keys with an ``ok`` row, and keys another
        store object (this process or another) holds under a live lease, are skipped;
        the rest are claimed for ``lease_s`` seconds (this store's own claims are
        renewed). An expired claim (a killed process's) is taken over. Another run
        believes a claim up to five default leases ahead (a claim further out, planted
        in a store handed over, is taken over); a ``lease_s`` above the default is
        recorded beside the claims (``runner._store_schema.LEASE_ROW``), so that it
        is believed as long, and :meth:`renew` counts that row too.

        Returns:
            The claimed keys, in the order given. Make exactly these calls; write each
            one's row (which releases its claim) or :meth:`release` it.

        Raises:
            StoreWriteError: The claims could not be written; make no call.
        """
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return []

        def claim() -> list[str]:
            claimed = claim_keys(self._conn, self.owner, wanted, lease_s, now := self._clock())
            if claimed and lease_s > DEFAULT_LEASE_S:
                self._conn.execute(_LONG, (LEASE_ROW + self.owner, self.owner, now + lease_s))
            return claimed

        with self._lock:
            return self._transaction(claim)

    def renew(self, *, lease_s: float = DEFAULT_LEASE_S) -> int:
        """Extend all of this store's claims to ``lease_s`` from now; returns how many.

        Raises:
            StoreWriteError: The claims could not be written.
        """
        with self._lock:
            return self._transaction(
                lambda: renew_all(self._conn, self.owner, lease_s, self._clock())
            )

    def release(self, keys: Iterable[str] | None = None) -> None:
        """Give up this store's claims on ``keys`` (``None``: all of them).

        Raises:
            StoreWriteError: The claims could not be written; they expire anyway.
        """
        wanted = None if keys is None else list(keys)
        if wanted == []:
            return
        with self._lock:
            self._transaction(lambda: release_keys(self._conn, self.owner, wanted))

    # -- reading -------------------------------------------------------------------

    def _select(self, columns: str, where: str, keys: Iterable[str]) -> list[tuple[Any, ...]]:
        """``SELECT key, columns`` of the rows among ``keys`` (distinct) that meet ``where``.

        Keys are looked up in chunks with ``WHERE key IN (...)``, so thousands of keys
        cost a handful of queries.
        """
        rows: list[tuple[Any, ...]] = []
        sql = f"SELECT key, {columns} FROM calls WHERE {where} key IN "
        with self._lock:
            for chunk, marks in in_chunks(keys):
                rows += fetch_all(self._conn, f"{sql}({marks})", chunk)
        return rows

    def get_many(self, keys: Iterable[str]) -> dict[str, Completion]:
        """The cached replies among ``keys``: only ``ok`` rows, as :class:`Completion`.

        Raises:
            StoreRowDamaged: A row's reply columns hold what fairjudge never writes
                there (every damaged row among ``keys`` is named); nothing is served.
        """
        rows = self._select(
            "raw, top_logprobs, input_tokens, output_tokens, latency_s, response_model, "
            "cost_usd, schema_version, spec",
            "status = 'ok' AND",
            keys,
        )
        scrub = Redactor.current().completion  # a row written unscrubbed is served scrubbed
        return self._checked(rows, lambda row: scrub(_cached_reply(row)))

    def usage_rows(self, keys: Iterable[str]) -> dict[str, Usage]:
        """``(status, input_tokens, output_tokens, latency_s, cost_usd, reasoning_tokens)`` per key.

        Rows of any status: a failed call's tokens and cost count too. ``reasoning_tokens``
        is ``None`` where the reply did not report them (or there was no reply).

        Raises:
            StoreRowDamaged: A row's numbers are not numbers.
        """
        reasoning = "(SELECT reasoning_tokens FROM call_usage u WHERE u.key = calls.key)"
        rows = self._select(
            f"status, input_tokens, output_tokens, latency_s, cost_usd, {reasoning}", "", keys
        )
        return self._checked(rows, usage_of)

    def _checked(self, rows: Iterable[Row], read: Callable[[Row], _T]) -> dict[str, _T]:
        """``{key: read(row)}`` over rows that start with the key.

        Raises:
            StoreRowDamaged: Naming every row ``read`` found damaged.
        """
        found: dict[str, _T] = {}
        damage: dict[str, str] = {}
        for row in rows:
            try:
                found[row[0]] = read(row)
            except DamagedColumn as exc:
                damage[str(row[0])] = str(exc)
        if damage:
            raise StoreRowDamaged(self.path, damage)
        return found

    def has_all(self, keys: Iterable[str]) -> bool:
        """Whether every one of ``keys`` has an ``ok`` row; reads the keys only, in chunks."""
        with self._lock:
            for chunk, marks in in_chunks(keys):
                (found,) = self._conn.execute(
                    f"SELECT COUNT(*) FROM calls WHERE status = 'ok' AND key IN ({marks})", chunk
                ).fetchone()
                if found < len(chunk):
                    return False
        return True

    def get(self, key: str) -> CallRecord | None:
        """The full record for one key, whatever its status.

        Raises:
            StoreRowDamaged: The row holds what fairjudge never writes there.
        """
        with self._lock:
            row = next(iter(fetch_all(self._conn, f"{_ROWS} WHERE key = ?", [key])), None)
            read = self._reader([] if row is None else [row])
        return None if row is None else self._checked([row], read)[key]

    def records(self, *, status: Literal["ok", "error"] | None = None) -> Iterator[CallRecord]:
        """Every record (optionally only one status), oldest first.

        Raises:
            StoreRowDamaged: On reaching a damaged row; it names every damaged row
                among those not yet yielded.
        """
        where = "" if status is None else " WHERE status = ?"
        params: tuple[str, ...] = () if status is None else (status,)
        with self._lock:
            rows = fetch_all(self._conn, f"{_ROWS}{where} ORDER BY created_at, key", params)
            read = self._reader(rows)
        for n, row in enumerate(rows):
            try:
                record = read(row)
            except DamagedColumn:
                self._checked(rows[n:], read)  # raises, naming each damaged row left
                raise
            yield record

    def _reader(self, rows: Sequence[Row]) -> Callable[[Row], CallRecord]:
        """:func:`record_of` with each row's ``call_usage`` values, read for ``rows`` at once.

        The caller holds ``self._lock``.
        """
        usage = usage_rows(self._conn, [row[0] for row in rows if type(row[0]) is str])
        redactor = Redactor.current()

        def read(row: Row) -> CallRecord:
            record = record_of(row)
            extra = usage.get(str(row[0]))
            if extra is not None:
                record = record.model_copy(update=checked_usage(extra))
            return served(record, redactor)

        return read

    def count(self, *, status: Literal["ok", "error"] | None = None) -> int:
        """How many rows there are (optionally only one status)."""
        where = "" if status is None else " WHERE status = ?"
        params: tuple[str, ...] = () if status is None else (status,)
        with self._lock:
            (n,) = self._conn.execute(f"SELECT COUNT(*) FROM calls{where}", params).fetchone()
        return int(n)


class DamagedColumn(ValueError):
    """A stored value that is not what fairjudge writes there; the message names the column.

    Attributes:
        column: The column, as in :data:`COLUMNS`.
    """

    def __init__(self, column: str, problem: str) -> None:
        super().__init__(f"{column} {problem}")
        self.column = column


def _text(column: str, value: object) -> str:
    if isinstance(value, bytes):
        raise DamagedColumn(column, getattr(value, "problem", "is not text (a blob)"))
    if not isinstance(value, str):
        raise DamagedColumn(column, f"is not text (SQLite {type(value).__name__})")
    return value


def check_json(column: str, value: object) -> Any:
    """The decoded value of a JSON column (``None`` for NULL).

    Raises:
        DamagedColumn: The value is not text, not valid JSON, or nested too deep.
    """
    if value is None:
        return None
    text = _text(column, value)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DamagedColumn(column, f"is not valid JSON ({exc.msg} at char {exc.pos})") from exc
    except RecursionError as exc:
        raise DamagedColumn(column, "is nested too deep to be fairjudge's JSON") from exc
    except ValueError as exc:  # e.g. an integer longer than Python reads
        raise DamagedColumn(column, f"is not valid JSON ({exc})") from exc


def _logprobs(value: object) -> dict[str, float] | None:
    data = check_json("top_logprobs", value)
    if data is None:
        return None
    if type(data) is dict:
        for v in data.values():
            # A float that equals itself is not NaN; +inf is no log-probability.
            if type(v) is not float or v != v or v == math.inf:
                break
        else:
            return data  # every value a float already: the common case, no copy
        if all(type(v) in (int, float) and v == v and v != math.inf for v in data.values()):
            return {k: float(v) for k, v in data.items()}
    raise DamagedColumn("top_logprobs", "is not a JSON object of token log-probabilities")


def count_of(column: str, value: object) -> int | None:
    """A stored token count: a whole number >= 0, or ``None``.

    Raises:
        DamagedColumn: Anything else.
    """
    if value is None:
        return None
    if type(value) is not int:
        raise DamagedColumn(column, "is not a whole number")
    if value < 0:
        raise DamagedColumn(column, "is negative")
    return value


def number_of(column: str, value: object) -> float | None:
    """A stored number (latency, cost), or ``None``.

    Raises:
        DamagedColumn: Anything else.
    """
    if value is None:
        return None
    if type(value) not in (int, float):
        raise DamagedColumn(column, "is not a number")
    number = float(cast(float, value))
    if not 0 <= number < math.inf:  # NaN fails both; no call costs or takes less than 0
        raise DamagedColumn(column, "is negative" if number < 0 else "is not a finite number")
    return number


def version_of(value: object) -> int:
    """A row's ``schema_version``: one this fairjudge or an older one writes.

    Raises:
        DamagedColumn: Anything else (a newer store is refused whole when opened).
    """
    if type(value) is not int or not 1 <= value <= SCHEMA_VERSION:
        raise DamagedColumn("schema_version", f"is {value!r}, not a row layout fairjudge "
                            f"writes (1 to {SCHEMA_VERSION})")  # fmt: skip
    return value


def _cached_reply(row: Row) -> Completion:
    """:func:`reply_of` of a :meth:`Store.get_many` row; its cost, layout and spec checked too.

    The spec must hash to the row's key: a row edited, or copied under another call's
    key, would otherwise be served as the reply to a call it never answered.
    """
    cost, version = row[7], row[8]
    if not _records.matches_key(row[0], _text("spec", row[9])):
        raise DamagedColumn("spec", _records.NOT_ITS_KEY)
    if not (cost is None or (type(cost) is float and 0 <= cost < math.inf)):
        number_of("cost_usd", cost)
    if version != SCHEMA_VERSION:
        version_of(version)
    return reply_of(*row[1:7])


def reply_of(
    raw: object,
    logprobs: object,
    n_in: object,
    n_out: object,
    latency: object,
    model: object,
) -> Completion:
    """The cached reply held by an ``ok`` row's columns, each one checked.

    Raises:
        DamagedColumn: The first column that is not what fairjudge writes there.
    """
    if type(raw) is not str:
        if raw is None:
            raise DamagedColumn("raw", "is missing (NULL)")
        _text("raw", raw)
    # The usual row passes the inline checks; the helpers name what is wrong.
    if not (n_in is None or (type(n_in) is int and n_in >= 0)):
        count_of("input_tokens", n_in)
    if not (n_out is None or (type(n_out) is int and n_out >= 0)):
        count_of("output_tokens", n_out)
    if not (latency is None or (type(latency) is float and 0 <= latency < math.inf)):
        latency = number_of("latency_s", latency)
    if not (model is None or type(model) is str):
        _text("response_model", model)
    return Completion(  # each value checked above
        text=cast(str, raw),
        top_logprobs=_logprobs(logprobs),
        input_tokens=cast(int | None, n_in),
        output_tokens=cast(int | None, n_out),
        latency_s=latency or 0.0,
        model=cast(str | None, model),
    )


Usage = tuple[str, int | None, int | None, float | None, float | None, int | None]
"""``(status, input_tokens, output_tokens, latency_s, cost_usd, reasoning_tokens)`` of a call."""


def usage_of(row: Row) -> Usage:
    """The usage of a ``(key, status, input_tokens, ..., cost_usd, reasoning_tokens)`` row.

    Raises:
        DamagedColumn: A count or number that is not one.
    """
    _, status, n_in, n_out, latency, cost, reasoning = row
    return (status, count_of("input_tokens", n_in), count_of("output_tokens", n_out),
            number_of("latency_s", latency), number_of("cost_usd", cost),
            count_of("reasoning_tokens", reasoning))  # fmt: skip


_REPLY_COLUMNS = (
    "raw",
    "top_logprobs",
    "input_tokens",
    "output_tokens",
    "latency_s",
    "response_model",
)


def record_of(row: Row) -> CallRecord:
    """The record of a row read in column order, each column checked.

    Raises:
        DamagedColumn: The first column that does not hold what fairjudge writes there.
    """
    # pydantic loads only here: serving cached calls never needs it.
    from pydantic import ValidationError

    from fairjudge.runner._call_record import from_row

    data = dict(zip(COLUMNS, row, strict=True))
    # Text that is not UTF-8 is named so whichever column holds it, as every reader says it.
    if (bad := next((c for c, v in data.items() if type(v) is NotUtf8), None)) is not None:
        raise DamagedColumn(bad, NotUtf8.problem)
    decoded = {c: check_json(c, data[c]) for c in ("spec", "parsed", "top_logprobs")}
    for column, value in decoded.items():
        if not (isinstance(value, dict) or (value is None and column != "spec")):
            raise DamagedColumn(column, "is not a JSON object")
    if not _records.matches_key(data["key"], data["spec"]):
        raise DamagedColumn("spec", _records.NOT_ITS_KEY)
    if (off := _records.off_spec(data, decoded["spec"])) is not None:  # its copied columns
        raise DamagedColumn(off, "does not match the row's spec")
    if data["status"] == "ok":  # the columns a cached reply is served from
        reply_of(*(data[c] for c in _REPLY_COLUMNS))
    number_of("cost_usd", data["cost_usd"])
    number_of("latency_s", data["latency_s"])
    version_of(data["schema_version"])
    try:
        return from_row(row)
    except ValidationError as exc:
        first = exc.errors()[0]
        column = ".".join(str(part) for part in first["loc"]) or "the row"
        raise DamagedColumn(column, f"does not fit the record ({first['msg']})") from exc


_SERVED = ("raw", "parsed", "top_logprobs", "response_model", "error_message", "usage_problem")


def served(record: CallRecord, redactor: Redactor) -> CallRecord:
    """``record`` with every secret masked in what the reply and its failure said.

    A store handed over, or written by an older fairjudge or another tool, may hold a
    key in a reply: a row is scrubbed as it is served, as a fresh reply is on receipt.
    """
    changes = {}
    for name in _SERVED:
        value = getattr(record, name)
        clean = redactor.tree(value)
        if clean is not value:
            changes[name] = clean
    return record.model_copy(update=changes) if changes else record


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
    for chunk, marks in in_chunks(keys):
        for key, *values in fetch_all(
            conn,
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
    problem = row["usage_problem"]
    if not (problem is None or type(problem) is str):
        raise DamagedColumn("usage_problem", getattr(problem, "problem", "is not text"))
    if row["batch"] not in (0, 1) or type(row["batch"]) is not int:
        raise DamagedColumn("batch", "is not 0 or 1")
    return {**row, "batch": bool(row["batch"])}
