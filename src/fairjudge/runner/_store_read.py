"""Reading the store's rows back, every value checked.

A damaged file or a hand edit can put anything in a column, so each reader checks
what it uses and raises :class:`DamagedColumn`, never a bare traceback; the usual row
passes with a few type tests and no copy.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, cast

from fairjudge._call import Completion
from fairjudge.runner._records import COLUMNS, Row

if TYPE_CHECKING:
    from fairjudge.runner._call_record import CallRecord

__all__ = [
    "DamagedColumn",
    "Usage",
    "check_json",
    "count_of",
    "number_of",
    "record_of",
    "reply_of",
    "usage_of",
]


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


Usage = tuple[str, int | None, int | None, float | None, float | None]
"""``(status, input_tokens, output_tokens, latency_s, cost_usd)`` of one stored call."""


def usage_of(row: Row) -> Usage:
    """The usage of a ``(key, status, input_tokens, output_tokens, latency_s, cost_usd)`` row.

    Raises:
        DamagedColumn: A count or number that is not one.
    """
    _, status, n_in, n_out, latency, cost = row
    return (
        status,
        count_of("input_tokens", n_in),
        count_of("output_tokens", n_out),
        number_of("latency_s", latency),
        number_of("cost_usd", cost),
    )


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
    for column in ("spec", "parsed", "top_logprobs"):
        value = check_json(column, data[column])
        if not (isinstance(value, dict) or (value is None and column != "spec")):
            raise DamagedColumn(column, "is not a JSON object")
    if data["status"] == "ok":  # the columns a cached reply is served from
        reply_of(*(data[c] for c in _REPLY_COLUMNS))
    try:
        return from_row(row)
    except ValidationError as exc:
        first = exc.errors()[0]
        column = ".".join(str(part) for part in first["loc"]) or "the row"
        raise DamagedColumn(column, f"does not fit the record ({first['msg']})") from exc
