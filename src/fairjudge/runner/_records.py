"""The store's row: its columns, and the fast tuple path the runner writes.

:func:`call_row` builds the ``INSERT`` tuple directly, once per call on the event
loop, so a run that only serves and writes calls never loads pydantic; reading
returns the validated :class:`~fairjudge.runner.CallRecord` (``_call_record``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from fairjudge._call import CallSpec, Completion
from fairjudge._redact import scrub

__all__ = [
    "COLUMNS",
    "NOT_ITS_KEY",
    "SCHEMA_VERSION",
    "SPEC_COLUMNS",
    "USAGE_COLUMNS",
    "Row",
    "call_row",
    "dumps",
    "matches_key",
    "off_spec",
    "sorted_dumps",
    "usage_extras",
    "utc_now",
]

SCHEMA_VERSION = 1
"""Version of the row layout; stored in every row and in ``PRAGMA user_version``."""

COLUMNS = (
    "key",
    "kind",
    "backend",
    "model",
    "base_url",
    "template",
    "template_version",
    "sample",
    "spec",
    "status",
    "raw",
    "parsed",
    "top_logprobs",
    "response_model",
    "input_tokens",
    "output_tokens",
    "latency_s",
    "cost_usd",
    "attempts",
    "error_kind",
    "error_message",
    "created_at",
    "updated_at",
    "schema_version",
)


def dumps(value: object) -> str | None:
    """Compact JSON text for a JSON column; ``None`` stays NULL."""
    if value is None:
        return None
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


sorted_dumps = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
"""Compact JSON text with sorted keys: a spec's form as :attr:`CallSpec.key` hashes it."""

NOT_ITS_KEY = (
    "does not hash to the row's key (the row was edited, or copied under another "
    "call's key), so its reply may answer another prompt"
)
"""What is wrong with a row whose ``spec`` is not the call its key names."""

SPEC_COLUMNS = ("kind", "backend", "model", "base_url", "template", "template_version", "sample")
"""The columns that copy a field of the row's spec, for filtering the audit log."""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def matches_key(key: object, spec: str) -> bool:
    """Whether a row's stored ``spec`` is the call its ``key`` names (hashes to it).

    A row this fairjudge writes holds the very text hashed into the key, so one hash
    tells (about 5 us for a 3.5 kB spec). Rows written before that hold the same JSON
    in :meth:`CallSpec.canonical`'s order, checked by sorting it again (about 30 us
    more; reusing the messages' own text instead costs as much in Python). A parameter
    with numbers for keys (``logit_bias={50256: -100}``) was sorted as numbers, which
    JSON keeps as text, so that reading is tried last. The key derivation has not
    changed since the store existed (``_KEY_SCHEMA`` 1): every row fairjudge wrote
    verifies.
    """
    if _sha(spec) == key:
        return True
    try:
        tree = json.loads(spec)
        return _sha(sorted_dumps(tree)) == key or _sha(sorted_dumps(_numbered(tree))) == key
    except (ValueError, RecursionError, TypeError):
        return False


def _number(text: str) -> object:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if type(value) in (int, float) and sorted_dumps(value) == text else None


def _numbered(value: Any) -> Any:
    """``value`` with each object whose keys all read as numbers keyed by the numbers."""
    if type(value) is list:
        return [_numbered(v) for v in value]
    if type(value) is not dict:
        return value
    numbers = [_number(k) for k in value]
    keys = list(value) if None in numbers else numbers
    return {k: _numbered(v) for k, v in zip(keys, value.values(), strict=True)}


def _as_stored(value: object, column: str) -> object:
    """``value`` as ``call_row`` leaves it in ``column`` (SQLite converts on the way in).

    Every copied column but ``sample`` is TEXT, which keeps a number as its text
    (``template_version=2`` is ``"2"``); ``sample`` is INTEGER, which keeps ``True`` as
    ``1``. A float's text is SQLite's (``"2.0"``), read back as the number it names.
    """
    if type(value) is bool:  # sqlite3 binds it as the integer
        value = int(value)
    if column != "sample":
        return str(value) if type(value) is int else value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)  # a whole REAL is kept as the INTEGER
    return value


def _same_float(spec: float, text: object) -> bool:
    """Whether TEXT ``text`` is SQLite's text for ``spec`` (15 or 17 digits, by version)."""
    if type(text) is not str:
        return False
    try:
        return float(text) in (spec, float(f"{spec:.15g}"))
    except ValueError:
        return False


def off_spec(row: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """The first of :data:`SPEC_COLUMNS` whose value in ``row`` is not the spec's.

    Each spec value is compared as the row's column stores it (:func:`_as_stored`), so a
    call made with ``template_version=2`` or ``sample=True`` reads back as written.
    """
    for column in SPEC_COLUMNS:
        if column not in spec:
            return column
        value, stored = _as_stored(spec[column], column), row[column]
        if type(value) is float and column != "sample":
            if not _same_float(value, stored):
                return column
        elif type(value) is not type(stored) or value != stored:
            return column
    return None


def utc_now() -> str:
    """The current UTC time as ISO 8601 text, as stored in the timestamps."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


USAGE_COLUMNS = (
    "reasoning_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
    "usage_problem",
    "batch",
)
"""The usage a ``call_usage`` row holds, in column order after ``key``."""


def usage_extras(c: Completion | None) -> tuple[Any, ...]:
    """The values a reply's ``call_usage`` row holds, or ``()`` when it has none to hold."""
    if c is None:
        return ()
    values = (
        c.reasoning_tokens,
        c.cached_input_tokens,
        c.cache_write_tokens,
        c.usage_problem,
        int(c.batch),
    )
    return values if values != (None, None, None, None, 0) else ()


Row = tuple[Any, ...]
"""One ``calls`` row, in column order; then, for a reply with any, its ``call_usage`` values."""


def call_row(
    spec: CallSpec,
    key: str,
    status: Literal["ok", "error"],
    *,
    completion: Completion | None = None,
    parsed: Mapping[str, object] | None = None,
    cost_usd: float | None = None,
    attempts: int = 1,
    error_kind: str | None = None,
    error_message: str | None = None,
) -> Row:
    """The row for one finished call, without building a :class:`CallRecord` first.

    This is what the runner writes for every call, so it does only the work the row
    needs: two or three ``json.dumps`` and a tuple. A reply with reasoning or cached
    tokens, a usage problem or a batch price has its ``call_usage`` values
    (:func:`usage_extras`) after the columns.
    """
    now = utc_now()
    c = completion
    return (
        key,
        spec.kind,
        spec.backend,
        spec.model,
        spec.base_url,
        spec.template,
        spec.template_version,
        spec.sample,
        spec.canonical_json(),  # the text hashed into the key: a read checks it in one hash
        status,
        c.text if c is not None else None,
        dumps(dict(parsed)) if parsed is not None else None,
        dumps(dict(c.top_logprobs)) if c is not None and c.top_logprobs else None,
        c.model if c is not None else None,
        c.input_tokens if c is not None else None,
        c.output_tokens if c is not None else None,
        c.latency_s if c is not None else None,
        cost_usd,
        attempts,
        error_kind,
        scrub(error_message) if error_message is not None else None,
        now,
        now,
        SCHEMA_VERSION,
        *usage_extras(c),
    )
