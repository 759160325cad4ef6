"""The store's row: its columns, and the fast tuple path the runner writes.

Reading returns :class:`~fairjudge.runner.CallRecord` (pydantic, validated, every
field documented, in :mod:`._call_record`). Writing from the runner skips the model:
:func:`call_row` builds the tuple for the ``INSERT`` directly, because it runs once
per judge call on the event loop. So a run that only serves and writes calls never
loads pydantic.

Reading a cached reply checks every column it uses (:func:`reply_of`): SQLite keeps
whatever a damaged file or a hand edit put in a column (text in ``input_tokens``,
``[1,2`` in ``top_logprobs``), and such a value is a :class:`DamagedColumn` naming
the column, never a ``json`` or ``TypeError`` traceback further on.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal, cast

from fairjudge._call import CallSpec, Completion
from fairjudge._redact import scrub

__all__ = [
    "COLUMNS",
    "SCHEMA_VERSION",
    "DamagedColumn",
    "Row",
    "call_row",
    "check_json",
    "count_of",
    "dumps",
    "number_of",
    "reply_of",
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


def utc_now() -> str:
    """The current UTC time as ISO 8601 text, as stored in the timestamps."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


Row = tuple[Any, ...]
"""One ``calls`` row, in column order."""


def call_row(
    spec: CallSpec,
    key: str,
    status: Literal["ok", "error"],
    *,
    completion: Completion | None = None,
    parsed: Mapping[str, Any] | None = None,
    cost_usd: float | None = None,
    attempts: int = 1,
    error_kind: str | None = None,
    error_message: str | None = None,
) -> Row:
    """The row for one finished call, without building a :class:`CallRecord` first.

    This is what the runner writes for every call, so it does only the work the row
    needs: two or three ``json.dumps`` and a tuple.
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
        dumps(spec.canonical()),
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
    )


# -- reading, checked -----------------------------------------------------------------


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
        raise DamagedColumn(column, "is not text (a blob)")
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
    return float(value)  # type: ignore[arg-type]


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
    if not (latency is None or type(latency) is float):
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
