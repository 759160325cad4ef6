"""The store's row as a validated model, :class:`CallRecord` (pydantic, at the edge), and back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from fairjudge._redact import scrub
from fairjudge.runner._records import COLUMNS, SCHEMA_VERSION, Row, dumps, sorted_dumps

__all__ = ["CallRecord", "from_row", "to_row"]


class CallRecord(BaseModel):
    """One judge call as the store keeps it: the audit record and the cache entry."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    key: str
    """SHA-256 of the call's canonical JSON; the cache identity."""
    kind: str
    """What the call was for: ``pairwise``, ``pointwise``, ``jury``, ..."""
    backend: str
    """Backend kind (``openai``, ``anthropic``, ``local``, ...)."""
    model: str
    """Model id as in the call spec."""
    base_url: str | None
    """Server base URL for HTTP backends."""
    template: str
    """Template name."""
    template_version: str
    """Template version."""
    sample: int
    """Sample index among otherwise identical calls."""
    spec: dict[str, Any]
    """The call's canonical JSON: messages, sampling parameters, sample, everything hashed."""
    status: Literal["ok", "error"]
    """``ok``: a reply was received (and is served from cache); ``error``: it failed."""
    raw: str | None = None
    """The raw reply text."""
    parsed: dict[str, Any] | None = None
    """Whatever the parser made of the reply (verdict, probabilities, scores, failure)."""
    top_logprobs: dict[str, float] | None = None
    """The first generated token's alternatives, ``{token: logprob}``."""
    response_model: str | None = None
    """The model the server said answered."""
    input_tokens: int | None = None
    """Prompt tokens, when reported."""
    output_tokens: int | None = None
    """Completion tokens, when reported."""
    latency_s: float | None = None
    """Wall time of the successful attempt."""
    cost_usd: float | None = None
    """Estimated cost from the configured prices; ``None`` when no prices were given."""
    attempts: int = 1
    """Requests sent for this call, summed over runs (retries included)."""
    error_kind: str | None = None
    """Exception class of the last failure, for error rows."""
    error_message: str | None = None
    """Redacted message of the last failure, for error rows."""
    created_at: datetime | None = None
    """When the row was first written (UTC); filled in by the store."""
    updated_at: datetime | None = None
    """When the row was last written (UTC); filled in by the store."""
    schema_version: int = SCHEMA_VERSION
    """Row layout version."""
    reasoning_tokens: int | None = None
    """Of ``output_tokens``, the hidden reasoning tokens, when reported (``call_usage``)."""
    cached_input_tokens: int | None = None
    """Of ``input_tokens``, those read from the prompt cache, when reported."""
    cache_write_tokens: int | None = None
    """Of ``input_tokens``, those written to the prompt cache, when reported."""
    usage_problem: str | None = None
    """Why the server's usage was not believed (the call was charged its estimate)."""
    batch: bool = False
    """The reply came through a batch API, at the batch price."""


def to_row(r: CallRecord, now: str) -> Row:
    """The row for a record; ``now`` fills ``updated_at`` (and a missing ``created_at``).

    An ``ok`` record with usage beyond the ``calls`` columns has its ``call_usage``
    values after them, as :func:`~fairjudge.runner._records.call_row` writes them.
    """
    values = {column: getattr(r, column) for column in COLUMNS}
    values.update(
        spec=sorted_dumps(r.spec), parsed=dumps(r.parsed), top_logprobs=dumps(r.top_logprobs),
        error_message=scrub(r.error_message) if r.error_message is not None else None,
        created_at=r.created_at.isoformat(timespec="milliseconds") if r.created_at else now,
        updated_at=now,
    )  # fmt: skip
    extras = (
        r.reasoning_tokens, r.cached_input_tokens, r.cache_write_tokens, r.usage_problem,
        int(r.batch),
    )  # fmt: skip
    usage = extras if r.status == "ok" and extras != (None, None, None, None, 0) else ()
    return (*(values[column] for column in COLUMNS), *usage)


def from_row(row: Sequence[Any]) -> CallRecord:
    """The record of a row read in column order."""
    data = dict(zip(COLUMNS, row[: len(COLUMNS)], strict=True))
    for column in ("spec", "parsed", "top_logprobs"):
        if data[column] is not None:
            data[column] = json.loads(data[column])
    return CallRecord.model_validate(data)
