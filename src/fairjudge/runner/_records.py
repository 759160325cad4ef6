"""The store's row: the :class:`CallRecord` model, and the fast tuple path the runner writes.

Reading returns :class:`CallRecord` (pydantic, validated, every field documented).
Writing from the runner skips the model: :func:`call_row` builds the tuple for the
``INSERT`` directly, because it runs once per judge call on the event loop.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from fairjudge._call import CallSpec, Completion
from fairjudge._redact import scrub

__all__ = [
    "COLUMNS",
    "SCHEMA_VERSION",
    "CallRecord",
    "Row",
    "call_row",
    "from_row",
    "to_row",
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


def _dumps(value: object) -> str | None:
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
        _dumps(spec.canonical()),
        status,
        c.text if c is not None else None,
        _dumps(dict(parsed)) if parsed is not None else None,
        _dumps(dict(c.top_logprobs)) if c is not None and c.top_logprobs else None,
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


def to_row(r: CallRecord, now: str) -> Row:
    created = r.created_at.isoformat(timespec="milliseconds") if r.created_at else now
    return (
        r.key,
        r.kind,
        r.backend,
        r.model,
        r.base_url,
        r.template,
        r.template_version,
        r.sample,
        _dumps(r.spec),
        r.status,
        r.raw,
        _dumps(r.parsed),
        _dumps(r.top_logprobs),
        r.response_model,
        r.input_tokens,
        r.output_tokens,
        r.latency_s,
        r.cost_usd,
        r.attempts,
        r.error_kind,
        scrub(r.error_message) if r.error_message is not None else None,
        created,
        now,
        r.schema_version,
    )


def from_row(row: Sequence[Any]) -> CallRecord:
    data = dict(zip(COLUMNS, row, strict=True))
    for column in ("spec", "parsed", "top_logprobs"):
        if data[column] is not None:
            data[column] = json.loads(data[column])
    return CallRecord.model_validate(data)
