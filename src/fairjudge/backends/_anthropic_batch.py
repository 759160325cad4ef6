"""Anthropic's Message Batches: create with the requests inline, poll, stream the results.

The provider's documented flow is in ``docs/internals.md``. The results URL is
followed only on the API's own host, so a reply cannot send the key elsewhere; each
succeeded message is read by the online reader.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from fairjudge._call import CallSpec
from fairjudge._errors import BackendError, FatalBackendError, ServerError
from fairjudge.backends._anthropic import AnthropicBackend, completion_from_reply
from fairjudge.backends._batch_api import BatchHTTP, BatchState, Outcome, jsonl, missing
from fairjudge.backends._http_errors import error_from_status

__all__ = ["API_VERSION", "AnthropicBatch"]

API_VERSION = "2023-06-01"
"""The ``anthropic-version`` header sent, as the SDK sends it."""

_PATH = "/v1/messages/batches"
_STATUSES = frozenset({"in_progress", "canceling", "ended"})
# The HTTP status of each documented API error type, for the online status mapping.
_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


class AnthropicBatch:
    """The Message Batches endpoints at an Anthropic backend's address, with its key.

    Args:
        backend: The judge's backend: its base URL, key variable, timeout and the
            body it sends (:meth:`~fairjudge.backends.AnthropicBackend.request_body`).
    """

    provider = "anthropic"
    max_requests = 100_000

    def __init__(self, backend: AnthropicBackend) -> None:
        self._backend = backend
        key = backend._read_key() or ""
        self._base = backend._base_url or f"https://{backend.default_host}"
        self._where = backend._where
        self._http = BatchHTTP.of(
            backend,
            base=self._base,
            headers={"x-api-key": key, "anthropic-version": API_VERSION},
            key=key,
        )

    async def submit(self, requests: Sequence[tuple[str, CallSpec]]) -> BatchState:
        """Create one batch holding the requests."""
        body = {
            "requests": [
                {"custom_id": custom_id, "params": self._backend.request_body(spec)}
                for custom_id, spec in requests
            ]
        }
        return self._state(await self._http.json("POST", _PATH, json=body))

    async def poll(self, batch_id: str) -> BatchState:
        """``GET /v1/messages/batches/{id}``."""
        return self._state(await self._http.json("GET", f"{_PATH}/{batch_id}"))

    def _state(self, data: Mapping[str, Any]) -> BatchState:
        batch_id, status = data.get("id"), data.get("processing_status")
        if not isinstance(batch_id, str) or status not in _STATUSES:
            raise ServerError(
                f"anthropic batch API: {self._where}: a batch reply has no id or a "
                f"processing_status of {status!r}"
            )
        counts = data.get("request_counts") or {}
        return BatchState(
            batch_id,
            str(status),
            status == "ended",
            {k: v for k, v in counts.items() if isinstance(v, int)},
            None,
            "",
            _elapsed(data.get("created_at"), data.get("ended_at")),
            dict(data),
        )

    async def results(self, state: BatchState, members: Iterable[str]) -> dict[str, Outcome]:
        """Every member's outcome, from the batch's ``results_url``."""
        url = state.raw.get("results_url")
        if not isinstance(url, str):
            raise ServerError(
                f"anthropic batch API: {self._where}: batch {state.id} ended with no results_url"
            )
        if urlsplit(url).netloc and urlsplit(url).netloc != urlsplit(self._base).netloc:
            raise FatalBackendError(
                f"anthropic batch API: {self._where}: batch {state.id}'s results_url is on "
                f"another host ({urlsplit(url).netloc}); not sending the key there"
            )
        found: dict[str, Outcome] = {}
        for row in jsonl(await self._http.request("GET", url), "anthropic", self._where):
            custom_id, result = row.get("custom_id"), row.get("result")
            if isinstance(custom_id, str) and isinstance(result, Mapping):
                found[custom_id] = self._outcome(result, state)
        return {m: found.get(m) or missing(self.provider, self._where, state, m) for m in members}

    def _outcome(self, result: Mapping[str, Any], state: BatchState) -> Outcome:
        kind = result.get("type")
        if kind == "succeeded":
            try:
                completion = completion_from_reply(
                    result.get("message"), state.elapsed_s, self._where
                )
            except BackendError as exc:
                return exc
            return dataclasses.replace(completion, batch=True)
        if kind == "errored":
            outer = result.get("error")
            inner = outer.get("error") if isinstance(outer, Mapping) else None
            error = inner if isinstance(inner, Mapping) else outer
            error = error if isinstance(error, Mapping) else {}
            status = _ERROR_STATUS.get(str(error.get("type")), 500)
            message = f"{error.get('type')}: {error.get('message') or 'no message'}"
            return error_from_status(
                status, message, backend="anthropic batch API", where=self._where
            )
        return ServerError(
            f"anthropic batch API: {self._where}: batch {state.id} did not run this request "
            f"({kind}: {'the batch was canceled' if kind == 'canceled' else 'its 24 h ran out'}"
            "); the next run submits it again"
        )

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()


def _elapsed(created: Any, ended: Any) -> float:
    """Seconds between two RFC 3339 times; 0 when either is missing or unreadable."""
    try:
        start = datetime.fromisoformat(str(created))
        end = datetime.fromisoformat(str(ended))
    except ValueError:
        return 0.0
    return max((end - start).total_seconds(), 0.0)
