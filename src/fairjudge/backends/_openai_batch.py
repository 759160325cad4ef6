"""OpenAI's Batch API: upload the requests as a file, create a batch, poll, read two files.

The provider's documented flow, step by step, is in ``docs/internals.md``; the file
id is recorded before the batch is created, so a killed run finds its batch instead of
making a second. Each reply is read by the online reader.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fairjudge._call import CallSpec
from fairjudge._errors import BackendError, RequestRejected, ServerError
from fairjudge.backends._batch_api import BatchHTTP, BatchState, Outcome, jsonl, missing
from fairjudge.backends._http_errors import error_from_status
from fairjudge.backends._openai_reply import completion_from_reply

if TYPE_CHECKING:
    from fairjudge.backends._openai import OpenAIBackend

__all__ = ["ENDPOINT", "OpenAIBatch"]

ENDPOINT = "/v1/chat/completions"
"""The one endpoint fairjudge batches: where its online calls go."""

_RUNNING = frozenset({"validating", "in_progress", "finalizing", "cancelling"})
_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})


class OpenAIBatch:
    """The Files and Batch endpoints at an OpenAI backend's address, with its key.

    Args:
        backend: The judge's backend: its base URL, key variable, timeout and the
            body it sends (:meth:`~fairjudge.backends.OpenAIBackend.request_body`).
    """

    provider = "openai"
    max_requests = 50_000

    def __init__(self, backend: OpenAIBackend) -> None:
        self._backend = backend
        key = backend._read_key()
        headers = {
            name: value
            for name, env in (
                ("OpenAI-Organization", "OPENAI_ORG_ID"),
                ("OpenAI-Project", "OPENAI_PROJECT_ID"),
            )
            if (value := os.environ.get(env))
        }
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._where = backend._where
        base = backend._base_url or f"https://{backend.default_host}/v1"
        self._http = BatchHTTP.of(backend, base=base, headers=headers, key=key)

    async def submit(self, requests: Sequence[tuple[str, CallSpec]]) -> BatchState:
        """Upload the requests as one JSONL file and create a batch over it."""
        return await self.create(await self.upload(requests))

    async def upload(self, requests: Sequence[tuple[str, CallSpec]]) -> str:
        """``POST /v1/files``: the requests as one JSONL file (purpose ``batch``); its id.

        The runner records the file id before it creates the batch, so a run killed
        between the two finds its batch by the file (:meth:`find`) instead of making
        a second one.
        """
        lines = (
            json.dumps(
                {
                    "custom_id": custom_id,
                    "method": "POST",
                    "url": ENDPOINT,
                    "body": self._backend.request_body(spec),
                },
                ensure_ascii=False,
                separators=(",", ":"),
            )
            for custom_id, spec in requests
        )
        data = ("\n".join(lines) + "\n").encode()
        uploaded = await self._http.json(
            "POST",
            "/files",
            data={"purpose": "batch"},
            files={"file": ("fairjudge-batch.jsonl", data, "application/jsonl")},
        )
        file_id = uploaded.get("id")
        if not isinstance(file_id, str):
            raise ServerError(f"openai batch API: {self._where}: the upload reply has no id")
        return file_id

    async def create(self, file_id: str) -> BatchState:
        """``POST /v1/batches`` over an uploaded file: ``/v1/chat/completions``, ``24h``."""
        created = await self._http.json(
            "POST",
            "/batches",
            json={
                "input_file_id": file_id,
                "endpoint": ENDPOINT,
                "completion_window": "24h",
                "metadata": {"created_by": "fairjudge"},
            },
        )
        return self._state(created)

    async def find(self, file_id: str) -> BatchState | None:
        """The batch created over ``file_id``, from ``GET /v1/batches`` (newest first).

        Pages through the list (``limit=100``, ``after`` the last id) while
        ``has_more``; ``None`` when no batch names the file.
        """
        after: str | None = None
        while True:
            query = "/batches?limit=100" + (f"&after={after}" if after else "")
            page = await self._http.json("GET", query)
            data = page.get("data") or []
            for batch in data:
                if isinstance(batch, Mapping) and batch.get("input_file_id") == file_id:
                    return self._state(batch)
            last = data[-1].get("id") if data and isinstance(data[-1], Mapping) else None
            if not page.get("has_more") or not isinstance(last, str):
                return None
            after = last

    async def poll(self, batch_id: str) -> BatchState:
        """``GET /v1/batches/{id}``."""
        return self._state(await self._http.json("GET", f"/batches/{batch_id}"))

    def _state(self, data: Mapping[str, Any]) -> BatchState:
        batch_id, status = data.get("id"), data.get("status")
        if not isinstance(batch_id, str) or not isinstance(status, str):
            raise ServerError(f"openai batch API: {self._where}: a batch reply has no id or status")
        if status not in _RUNNING | _ENDED:
            raise ServerError(f"openai batch API: {self._where}: unknown batch status {status!r}")
        counts = data.get("request_counts") or {}
        errors = (data.get("errors") or {}).get("data") or []
        shown = "; ".join(
            f"line {e.get('line')}: {e.get('code')}: {e.get('message')}"
            for e in errors[:5]
            if isinstance(e, Mapping)
        )
        start, end = data.get("created_at"), _first_time(data)
        elapsed = float(end - start) if isinstance(start, int) and isinstance(end, int) else 0.0
        return BatchState(
            batch_id,
            status,
            status in _ENDED,
            {k: v for k, v in counts.items() if isinstance(v, int)},
            data.get("input_file_id"),
            shown,
            max(elapsed, 0.0),
            dict(data),
        )

    async def results(self, state: BatchState, members: Iterable[str]) -> dict[str, Outcome]:
        """Every member's outcome, from both files; a refused batch fails every request."""
        if state.status == "failed":
            refused = RequestRejected(self._refused(state))
            return dict.fromkeys(members, refused)
        found: dict[str, Outcome] = {}
        for name in ("output_file_id", "error_file_id"):
            file_id = state.raw.get(name)
            if not isinstance(file_id, str):
                continue
            body = await self._http.request("GET", f"/files/{file_id}/content")
            for row in jsonl(body, "openai", self._where):
                custom_id = row.get("custom_id")
                if isinstance(custom_id, str):
                    found[custom_id] = self._outcome(row, state)
        return {m: found.get(m) or missing(self.provider, self._where, state, m) for m in members}

    def _refused(self, state: BatchState) -> str:
        return (
            f"openai batch API: {self._where}: batch {state.id} was refused "
            f"({state.errors or 'no reason given'})"
        )

    def _outcome(self, row: Mapping[str, Any], state: BatchState) -> Outcome:
        response = row.get("response")
        if isinstance(response, Mapping):
            status, body = response.get("status_code"), response.get("body")
            if status == 200 and isinstance(body, Mapping):
                try:
                    completion = completion_from_reply(body, state.elapsed_s, self._where)
                except BackendError as exc:
                    return exc
                return dataclasses.replace(completion, batch=True)
            if isinstance(status, int):
                message = json.dumps(body)[:2000] if body is not None else "(no body)"
                if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
                    message = str(body["error"].get("message") or message)
                return error_from_status(
                    status, message, backend="openai batch API", where=self._where
                )
        error = row.get("error")
        code = error.get("code") if isinstance(error, Mapping) else None
        why = error.get("message") if isinstance(error, Mapping) else None
        return ServerError(
            f"openai batch API: {self._where}: batch {state.id} ({state.status}) did not run "
            f"this request: {code or 'no code'}: {why or 'no message'}"
        )

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()


def _first_time(data: Mapping[str, Any]) -> int | None:
    """When the batch ended, by the first terminal timestamp it carries."""
    for name in ("completed_at", "failed_at", "expired_at", "cancelled_at"):
        value = data.get(name)
        if isinstance(value, int):
            return value
    return None
