"""OpenAI Files + Batch and Anthropic Message Batches, emulated on 127.0.0.1.

The emulator follows the documented formats and refuses what the real APIs refuse,
with their error bodies; each request line is answered by the scripted judge
(:class:`~tests.server.ScriptedJudge`, the same script, faults and counters as its
online endpoints), so a batch's replies are the online replies.

OpenAI (https://platform.openai.com/docs/guides/batch, API reference Files/Batch):

- ``POST /v1/files``: multipart/form-data with ``purpose`` and ``file``; a missing
  field or a purpose that is not one of the documented ones is a 400
  ``invalid_request_error`` naming the ``param``. A ``batch`` file over
  :attr:`BatchScript.max_file_bytes` (200 MB, as the API reference says) is a 400
  ``File is too large.`` with ``param`` and ``code`` null, the real body
  (https://github.com/bespokelabsai/curator/issues/111).
- ``POST /v1/batches``: ``input_file_id``, ``endpoint`` (one of the documented
  ones; fairjudge's must be ``/v1/chat/completions``), ``completion_window``
  (``24h`` only); a missing or bad field is a 400, an unknown file a 404, a file
  not uploaded with purpose ``batch`` a 400. The file's lines are validated as the
  API does while ``validating``: a line that is not JSON, lacks ``custom_id``,
  ``method: POST``, ``url`` equal to the batch's endpoint or ``body.model``, a
  duplicate ``custom_id`` or a second model makes the batch ``failed`` with
  ``errors.data`` (``code``, ``message``, ``param``, ``line``).
- ``GET /v1/batches/{id}``: ``validating`` on the first poll, then ``in_progress``
  for :attr:`BatchScript.delay_polls` polls, then ``finalizing`` and a terminal
  status: ``completed``, or ``expired`` / ``cancelled`` by the script.
- ``POST /v1/batches/{id}/cancel``: ``cancelling``, then ``cancelled``.
- ``GET /v1/batches?limit=&after=``: the batches, newest first, in pages
  (``data``, ``first_id``, ``last_id``, ``has_more``; ``limit`` 1 to 100).
- ``GET /v1/files/{id}/content``: the output file (status 200 lines) and the error
  file (other statuses; and ``batch_expired`` / ``batch_cancelled`` lines with
  ``response: null``). A file not kept (never made, deleted, or past its expiry) is
  the real 404: ``{"error": {"message": "No such File object: file-...", "type":
  "invalid_request_error", "param": "id", "code": null}}`` (as openai-dotnet's tests
  capture it).
- ``DELETE /v1/files/{id}``: ``{"id", "object": "file", "deleted": true}``; the
  batch's results file is gone after it, as when a user deletes it in the dashboard.

Anthropic (https://docs.anthropic.com/en/api/creating-message-batches and the pages
beside it):

- ``POST /v1/messages/batches``: ``requests`` of ``{custom_id, params}``; the
  ``anthropic-version`` header is required; a ``custom_id`` must match
  ``^[a-zA-Z0-9_-]{1,64}$`` and be unique, ``params`` must hold ``model``,
  ``max_tokens`` and ``messages``; each refusal is a 400 ``invalid_request_error``.
  A body over :attr:`BatchScript.max_batch_bytes` (256 MB, the documented limit) is a
  413 ``request_too_large``: ``Request exceeds the maximum allowed number of bytes.``
  (https://platform.claude.com/docs/en/api/errors.md).
- ``GET /v1/messages/batches/{id}``: ``processing_status`` ``in_progress`` for
  :attr:`BatchScript.delay_polls` polls, then ``ended`` (``canceling`` after a
  cancel), with ``request_counts`` and ``results_url``.
- ``GET .../results``: JSONL ``{custom_id, result}`` with ``result.type``
  ``succeeded``, ``errored``, ``canceled`` or ``expired``; before the end a 400.
- ``DELETE /v1/messages/batches/{id}``: ``{"id", "type": "message_batch_deleted"}``
  for an ended batch (a batch in progress must be cancelled first: a 400); polls of
  it then answer the 404 ``not_found_error``.
- :meth:`BatchEmulator.archive`: the batch's ``archived_at`` is set, "the time at
  which the Message Batch was archived and its results became unavailable" (the API
  reference; results last 29 days). What the API answers for the results of such a
  batch is not documented; here it is the 404 ``not_found_error``.

Counters (:meth:`BatchEmulator.stats`): ``files_uploaded``, ``batches_created``,
``batch_polls``, ``batch_lists``, ``results_read``, ``batch_requests`` (lines answered) and
``batch_refused`` (batch requests the emulator refused), next to the judge's own.

The lines are answered by any app with the scripted judge's ``handle``: the
permissive :class:`~tests.server.ScriptedJudge`, or the faithful chat emulators
(:class:`~tests.server._openai_emulator.OpenAIEmulator`,
:class:`~tests.server._anthropic_emulator.AnthropicEmulator`), which refuse what the
real Chat Completions and Messages endpoints refuse.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import secrets
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import pytest

from tests.server._app import ScriptedJudge
from tests.server._front import JudgeFront
from tests.server._http import JudgeServer, _Listener
from tests.server._script import Script

__all__ = ["BatchEmulator", "BatchScript", "BatchServer", "provider_batches"]

Reply = tuple[int, bytes, tuple[tuple[str, str], ...]]

PURPOSES = ("assistants", "batch", "fine-tune", "vision", "user_data", "evals")
ENDPOINTS = ("/v1/responses", "/v1/chat/completions", "/v1/embeddings", "/v1/completions")
_CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_BATCH_ROUTES = ("/v1/messages/batches", "/v1/files", "/v1/batches")


@dataclass(frozen=True, slots=True)
class BatchScript:
    """How the batches behave.

    Attributes:
        delay_polls: Polls a batch answers ``in_progress`` (OpenAI: the first after
            ``validating``) before it ends; 0: the first poll sees it ended.
        delay_s: Seconds a batch stays in progress at least (as well as the polls).
        end: How a batch ends: ``completed``, ``expired`` (the 24 h window ran out)
            or ``cancelled`` (as if cancelled from the dashboard).
        finished_before_end: With ``expired``/``cancelled``: how many requests ran
            before the end (the rest never ran).
        max_file_bytes: The largest input file OpenAI's Files endpoint takes for
            batches (tests set a small one).
        max_batch_bytes: The largest body Anthropic's batch creation takes.
        endpoint_delay_s: Seconds each request to a batch endpoint waits before its
            answer (a slow gateway); the lines' own answers are the judge's.
        token_limit_reached: OpenAI batches fail while validating, as when the
            organisation's enqueued tokens are spent: ``errors.data`` holds one
            ``token_limit_exceeded`` with ``line`` null
            (https://github.com/openai/openai-python/issues/2084).
        poll_error: Every poll of a batch (``GET`` of one batch) answers this HTTP
            status with the provider's error body (500: ``server_error`` /
            ``api_error``); 0: none.
        not_found_polls: The first polls of each batch answer the provider's 404
            not-found body, as Anthropic's did for a moment after creation
            (https://github.com/anthropics/anthropic-sdk-python/issues/1432).
        not_found_results: The first downloads of each ended batch's results answer
            the provider's 404 not-found body (OpenAI: ``No such File object``;
            Anthropic: ``not_found_error``), as Anthropic's results did for a moment
            after a batch ended (the same issue, its case 2).
    """

    delay_polls: int = 1
    delay_s: float = 0.0
    end: Literal["completed", "expired", "cancelled"] = "completed"
    finished_before_end: int = 0
    max_file_bytes: int = 200_000_000
    max_batch_bytes: int = 256_000_000
    endpoint_delay_s: float = 0.0
    token_limit_reached: bool = False
    poll_error: int = 0
    not_found_polls: int = 0
    not_found_results: int = 0


@dataclass
class _Batch:
    id: str
    dialect: Literal["openai", "anthropic"]
    lines: list[tuple[str, dict[str, Any]]]  # (custom_id, request body)
    headers: dict[bytes, bytes]
    created: float
    input_file: str | None = None
    polls: int = 0
    hidden: int = 0  # polls answered not found (BatchScript.not_found_polls)
    results_hidden: int = 0  # results downloads answered not found (not_found_results)
    archived: float | None = None  # when its results became unavailable (Anthropic)
    cancelled: bool = False
    errors: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    status: str = "validating"
    results: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    output_file: str | None = None
    error_file: str | None = None


def _openai_error(status: int, message: str, param: str | None, code: str | None) -> Reply:
    body = {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }
    return status, json.dumps(body).encode(), ()


def _anthropic_error(status: int, message: str, kind: str = "invalid_request_error") -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return status, json.dumps(body).encode(), ()


def _json(data: Any) -> Reply:
    return 200, json.dumps(data).encode(), ()


def _rfc3339(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat().replace("+00:00", "Z")


def multipart(headers: Mapping[bytes, bytes], body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """The parts of a multipart/form-data body: ``{name: (filename, content)}``."""
    kind = headers.get(b"content-type", b"").decode("latin-1")
    match = re.search(r'boundary="?([^";]+)"?', kind)
    if not kind.startswith("multipart/form-data") or match is None:
        return {}
    parts: dict[str, tuple[str | None, bytes]] = {}
    for chunk in body.split(b"--" + match.group(1).encode())[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, content = chunk.strip(b"\r\n").partition(b"\r\n\r\n")
        disposition = head.decode("latin-1")
        name = re.search(r'name="([^"]*)"', disposition)
        filename = re.search(r'filename="([^"]*)"', disposition)
        if name:
            parts[name.group(1)] = (filename.group(1) if filename else None, content)
    return parts


class BatchEmulator(JudgeFront):
    """The batch endpoints in front of a :class:`ScriptedJudge` (which answers the rest)."""

    def __init__(self, judge: ScriptedJudge | Any, script: BatchScript | None = None) -> None:
        super().__init__(judge)
        self.batch_script = script or BatchScript()
        self._files: dict[str, tuple[str, bytes]] = {}  # id -> (purpose, content)
        self._batches: dict[str, _Batch] = {}

    # -- routing ---------------------------------------------------------------------

    async def handle(
        self, method: str, path: str, headers: Mapping[bytes, bytes], body: bytes
    ) -> Reply:
        """Answer one request: a batch endpoint here, anything else by the judge."""
        route = path.split("?", 1)[0]
        parts = route.strip("/").split("/")
        if self.batch_script.endpoint_delay_s and route.startswith(_BATCH_ROUTES):
            await asyncio.sleep(self.batch_script.endpoint_delay_s)
        if route.startswith("/v1/messages/batches"):
            return await self._anthropic(method, parts[3:], headers, body)
        if route.startswith(("/v1/files", "/v1/batches")):
            if not self._authorized(headers, "openai"):
                return _openai_error(401, "Incorrect API key provided.", None, "invalid_api_key")
            if route.startswith("/v1/files"):
                return self._files_route(method, parts[2:], headers, body)
            query = dict(
                pair.partition("=")[::2] for pair in path.partition("?")[2].split("&") if pair
            )
            return await self._batches_route(method, parts[2:], headers, body, query)
        return await self.inner.handle(method, path, headers, body)

    def _authorized(self, headers: Mapping[bytes, bytes], dialect: str) -> bool:
        want = self.inner.script.api_key
        if want is None:
            return True
        if dialect == "anthropic":
            return headers.get(b"x-api-key", b"").decode("latin-1") == want
        return headers.get(b"authorization", b"").decode("latin-1") == f"Bearer {want}"

    # -- OpenAI Files ------------------------------------------------------------------

    def _files_route(
        self, method: str, parts: list[str], headers: Mapping[bytes, bytes], body: bytes
    ) -> Reply:
        if method == "POST" and not parts:
            return self._upload(headers, body)
        found = self._files.get(parts[0]) if parts else None
        if method == "GET" and len(parts) == 2 and parts[1] == "content":
            if found is None or self._results_hidden(parts[0]):
                return _openai_error(404, f"No such File object: {parts[0]}", "id", None)
            self._bump("results_read")
            return 200, found[1], ()
        if method == "DELETE" and len(parts) == 1:
            if found is None:
                return _openai_error(404, f"No such File object: {parts[0]}", "id", None)
            del self._files[parts[0]]
            return _json({"id": parts[0], "object": "file", "deleted": True})
        return _openai_error(404, f"Invalid URL ({method} /v1/files/{'/'.join(parts)})", None, None)

    def _missing(self, given: Mapping[str, Any], names: tuple[str, ...]) -> Reply | None:
        """OpenAI's 400 for the first of ``names`` not ``given`` (counted as refused)."""
        for name in names:
            if name not in given:
                self._bump("batch_refused")
                message = f"Missing required parameter: '{name}'."
                return _openai_error(400, message, name, "missing_required_parameter")
        return None

    def _upload(self, headers: Mapping[bytes, bytes], body: bytes) -> Reply:
        fields = multipart(headers, body)
        if (refused := self._missing(fields, ("purpose", "file"))) is not None:
            return refused
        purpose = fields["purpose"][1].decode()
        if purpose not in PURPOSES:
            self._bump("batch_refused")
            allowed = ", ".join(f"'{p}'" for p in PURPOSES)
            return _openai_error(
                400, f"'{purpose}' is not one of [{allowed}] - 'purpose'", "purpose", None
            )
        filename, content = fields["file"]
        if purpose == "batch" and len(content) > self.batch_script.max_file_bytes:
            self._bump("batch_refused")
            return _openai_error(400, "File is too large.", None, None)
        file_id = f"file-{secrets.token_hex(12)}"
        self._files[file_id] = (purpose, content)
        self._bump("files_uploaded")
        return _json(
            {
                "id": file_id,
                "object": "file",
                "bytes": len(content),
                "created_at": int(time.time()),
                "filename": filename or "upload",
                "purpose": purpose,
                "status": "processed",
            }
        )

    # -- OpenAI Batch ------------------------------------------------------------------

    async def _batches_route(
        self,
        method: str,
        parts: list[str],
        headers: Mapping[bytes, bytes],
        body: bytes,
        query: Mapping[str, str],
    ) -> Reply:
        if method == "POST" and not parts:
            return self._create_openai(headers, body)
        if method == "GET" and not parts:
            return self._list_openai(query)
        batch = self._batches.get(parts[0]) if parts else None
        refused = self._refused_poll(batch) if method == "GET" and len(parts) == 1 else None
        if refused is not None:
            return refused
        if batch is None or batch.dialect != "openai":
            return _openai_error(
                404, f"No batch found with id '{parts[0] if parts else ''}'.", None, None
            )
        if method == "GET" and len(parts) == 1:
            self._bump("batch_polls")
            await self._advance(batch)
            return _json(self._openai_object(batch))
        if method == "POST" and parts[1:] == ["cancel"]:
            if batch.status in ("validating", "in_progress", "finalizing"):
                batch.cancelled, batch.status = True, "cancelling"
            return _json(self._openai_object(batch))
        return _openai_error(
            404, f"Invalid URL ({method} /v1/batches/{'/'.join(parts)})", None, None
        )

    def _list_openai(self, query: Mapping[str, str]) -> Reply:
        """``GET /v1/batches?limit=&after=``: newest first, ``limit`` 1 to 100 (default 20)."""
        self._bump("batch_lists")
        try:
            limit = int(query.get("limit", "20"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 100:
            return _openai_error(400, "limit must be between 1 and 100.", "limit", "invalid_value")
        newest = [b for b in reversed(self._batches.values()) if b.dialect == "openai"]
        after = query.get("after")
        if after:
            ids = [b.id for b in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        page = [self._openai_object(b) for b in newest[:limit]]
        return _json(
            {
                "object": "list",
                "data": page,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
                "has_more": len(newest) > limit,
            }
        )

    def _create_openai(self, headers: Mapping[bytes, bytes], body: bytes) -> Reply:
        try:
            request = json.loads(body)
        except ValueError:
            return _openai_error(
                400, "We could not parse the JSON body of your request.", None, None
            )
        names = ("input_file_id", "endpoint", "completion_window")
        if (refused := self._missing(request, names)) is not None:
            return refused
        if request["endpoint"] not in ENDPOINTS:
            self._bump("batch_refused")
            listed = ", ".join(f"'{e}'" for e in ENDPOINTS)
            return _openai_error(
                400,
                f"Invalid value: '{request['endpoint']}'. Supported values are: {listed}.",
                "endpoint",
                "invalid_value",
            )
        if request["completion_window"] != "24h":
            self._bump("batch_refused")
            return _openai_error(
                400,
                f"Invalid value: '{request['completion_window']}'. Supported values are: '24h'.",
                "completion_window",
                "invalid_value",
            )
        found = self._files.get(request["input_file_id"])
        if found is None:
            self._bump("batch_refused")
            return _openai_error(
                404, f"No such File object: {request['input_file_id']}", "input_file_id", None
            )
        if found[0] != "batch":
            self._bump("batch_refused")
            return _openai_error(
                400,
                f"The file {request['input_file_id']} has purpose '{found[0]}'; a batch's input "
                "file must be uploaded with purpose 'batch'.",
                "input_file_id",
                "invalid_file_purpose",
            )
        batch = _Batch(f"batch_{secrets.token_hex(12)}", "openai", [], dict(headers), time.time())
        batch.input_file = request["input_file_id"]
        batch.errors = _validate_lines(found[1], request["endpoint"], batch.lines)
        if self.batch_script.token_limit_reached and not batch.errors:
            model = batch.lines[0][1].get("model") if batch.lines else None
            batch.errors = [{"code": "token_limit_exceeded", "param": None, "line": None,
                "message": f"Enqueued token limit reached for {model} in organization "
                "org-emulator. Limit: 2,000,000 enqueued tokens. Please try again once some "
                "in_progress batches have been completed."}]  # fmt: skip
        self._batches[batch.id] = batch
        self._bump("batches_created")
        return _json(self._openai_object(batch))

    def _openai_object(self, batch: _Batch) -> dict[str, Any]:
        done = sum(1 for r in batch.results.values() if r["ok"])
        ended = batch.status in ("completed", "failed", "expired", "cancelled")
        stamp = int(batch.created)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": {"object": "list", "data": batch.errors} if batch.errors else None,
            "input_file_id": batch.input_file,
            "completion_window": "24h",
            "status": batch.status,
            "output_file_id": batch.output_file,
            "error_file_id": batch.error_file,
            "created_at": stamp,
            "in_progress_at": stamp if batch.status != "validating" else None,
            "expires_at": stamp + 86400,
            "completed_at": stamp + 1 if batch.status == "completed" else None,
            "failed_at": stamp if batch.status == "failed" else None,
            "expired_at": stamp + 86400 if batch.status == "expired" else None,
            "cancelled_at": stamp + 1 if batch.status == "cancelled" else None,
            "request_counts": {
                "total": len(batch.lines),
                "completed": done if ended else 0,
                "failed": len(batch.results) - done if ended else 0,
            },
            "metadata": None,
        }

    # -- Anthropic Message Batches -----------------------------------------------------

    async def _anthropic(
        self, method: str, parts: list[str], headers: Mapping[bytes, bytes], body: bytes
    ) -> Reply:
        if not self._authorized(headers, "anthropic"):
            return _anthropic_error(401, "invalid x-api-key", "authentication_error")
        if not headers.get(b"anthropic-version"):
            self._bump("batch_refused")
            return _anthropic_error(400, "anthropic-version: header is required")
        if method == "POST" and not parts:
            return self._create_anthropic(headers, body)
        batch = self._batches.get(parts[0]) if parts else None
        refused = self._refused_poll(batch) if method == "GET" and len(parts) == 1 else None
        if refused is not None:
            return refused
        if batch is None or batch.dialect != "anthropic":
            return _anthropic_error(404, "Not found", "not_found_error")
        if method == "GET" and len(parts) == 1:
            self._bump("batch_polls")
            await self._advance(batch)
            return _json(self._anthropic_object(batch, headers))
        if method == "POST" and parts[1:] == ["cancel"]:
            if batch.status in ("validating", "in_progress"):
                batch.cancelled, batch.status = True, "cancelling"
            return _json(self._anthropic_object(batch, headers))
        ended = batch.status in ("completed", "expired", "cancelled")
        if method == "DELETE" and len(parts) == 1:
            if not ended:
                message = f"Batch {batch.id} cannot be deleted while it is processing."
                return _anthropic_error(400, message)
            del self._batches[batch.id]
            return _json({"id": batch.id, "type": "message_batch_deleted"})
        if method == "GET" and parts[1:] == ["results"]:
            if not ended:
                return _anthropic_error(400, f"Batch {batch.id} is still processing.")
            if batch.archived is not None or self._results_hidden(batch.id):
                return _anthropic_error(404, "Not found", "not_found_error")
            self._bump("results_read")
            lines = [
                json.dumps({"custom_id": c, "result": r["anthropic"]})
                for c, r in batch.results.items()
            ]
            return 200, ("\n".join(lines) + "\n").encode(), ()
        return _anthropic_error(404, "Not found", "not_found_error")

    def _create_anthropic(self, headers: Mapping[bytes, bytes], body: bytes) -> Reply:
        if len(body) > self.batch_script.max_batch_bytes:
            self._bump("batch_refused")
            message = "Request exceeds the maximum allowed number of bytes."
            return _anthropic_error(413, message, "request_too_large")
        try:
            requests = json.loads(body)["requests"]
        except (ValueError, KeyError, TypeError):
            requests = None
        if not isinstance(requests, list) or not requests:
            self._bump("batch_refused")
            return _anthropic_error(400, "requests: Field required (a non-empty list)")
        seen: set[str] = set()
        lines = []
        for n, request in enumerate(requests):
            custom_id, params = request.get("custom_id"), request.get("params")
            if not isinstance(custom_id, str) or not _CUSTOM_ID.match(custom_id):
                self._bump("batch_refused")
                return _anthropic_error(
                    400,
                    f"requests.{n}.custom_id: String should match pattern "
                    "'^[a-zA-Z0-9_-]{1,64}$'",
                )
            if custom_id in seen:
                self._bump("batch_refused")
                return _anthropic_error(
                    400, f"requests: custom_id '{custom_id}' is used more than once in this batch"
                )
            seen.add(custom_id)
            for name in ("model", "max_tokens", "messages"):
                if not isinstance(params, dict) or name not in params:
                    self._bump("batch_refused")
                    return _anthropic_error(400, f"requests.{n}.params.{name}: Field required")
            lines.append((custom_id, params))
        batch = _Batch(
            f"msgbatch_{secrets.token_hex(12)}", "anthropic", lines, dict(headers), time.time()
        )
        batch.status = "in_progress"
        self._batches[batch.id] = batch
        self._bump("batches_created")
        return _json(self._anthropic_object(batch, headers))

    def _anthropic_object(self, batch: _Batch, headers: Mapping[bytes, bytes]) -> dict[str, Any]:
        ended = batch.status in ("completed", "expired", "cancelled")
        kinds = Counter(r["anthropic"]["type"] for r in batch.results.values())
        host = headers.get(b"host", b"127.0.0.1").decode("latin-1")
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended"
            if ended
            else ("canceling" if batch.cancelled else "in_progress"),
            "request_counts": {
                "processing": 0 if ended else len(batch.lines),
                "succeeded": kinds["succeeded"],
                "errored": kinds["errored"],
                "canceled": kinds["canceled"],
                "expired": kinds["expired"],
            },
            "ended_at": _rfc3339(batch.created + 1) if ended else None,
            "created_at": _rfc3339(batch.created),
            "expires_at": _rfc3339(batch.created + 86400),
            "cancel_initiated_at": _rfc3339(batch.created) if batch.cancelled else None,
            "archived_at": _rfc3339(batch.archived),
            "results_url": f"http://{host}/v1/messages/batches/{batch.id}/results"
            if ended
            else None,
        }

    def archive(self, batch_id: str) -> None:
        """Archive an Anthropic batch: its results became unavailable (after 29 days)."""
        self._batches[batch_id].archived = time.time()

    def _results_hidden(self, name: str) -> bool:
        """Whether this download of a batch's results (by batch or file id) is answered 404.

        The first :attr:`BatchScript.not_found_results` downloads of each batch are.
        """
        batch = next(
            (b for b in self._batches.values() if name in (b.id, b.output_file, b.error_file)),
            None,
        )
        if batch is None or batch.results_hidden >= self.batch_script.not_found_results:
            return False
        batch.results_hidden += 1
        return True

    # -- running a batch ---------------------------------------------------------------

    def _refused_poll(self, batch: _Batch | None) -> Reply | None:
        """A poll the script refuses: :attr:`BatchScript.poll_error`, ``not_found_polls``."""
        if batch is None:
            return None
        script, openai = self.batch_script, batch.dialect == "openai"
        if batch.hidden < script.not_found_polls:
            batch.hidden += 1
            if openai:
                return _openai_error(404, f"No batch found with id '{batch.id}'.", None, None)
            return _anthropic_error(404, "Not found", "not_found_error")
        if script.poll_error:
            self._bump("batch_polls")
            if openai:
                body = {"error": {"message": "The server had an error while processing your "
                                  "request. Sorry about that!", "type": "server_error",
                                  "param": None, "code": None}}  # fmt: skip
                return script.poll_error, json.dumps(body).encode(), ()
            return _anthropic_error(script.poll_error, "Internal server error", "api_error")
        return None

    async def _advance(self, batch: _Batch) -> None:
        """One poll's worth of progress: validate, wait out the delay, then run the lines."""
        script = self.batch_script
        if batch.status in ("completed", "failed", "expired", "cancelled"):
            return
        if batch.status == "validating":
            batch.status = "failed" if batch.errors else "in_progress"
            if batch.errors:
                return
        batch.polls += 1
        waited = time.time() - batch.created >= script.delay_s
        if batch.status == "in_progress" and (batch.polls <= script.delay_polls or not waited):
            return
        end = "cancelled" if batch.cancelled else script.end
        runs = len(batch.lines) if end == "completed" else script.finished_before_end
        for n, (custom_id, request) in enumerate(batch.lines):
            if n < runs:
                batch.results[custom_id] = await self._run_line(batch, request)
            else:
                batch.results[custom_id] = _not_run(batch.dialect, end)
        batch.status = end
        if batch.dialect == "openai":
            self._write_files(batch)

    async def _run_line(self, batch: _Batch, request: dict[str, Any]) -> dict[str, Any]:
        path = "/v1/messages" if batch.dialect == "anthropic" else "/v1/chat/completions"
        status, body, _ = await self.inner.handle(
            "POST", path, batch.headers, json.dumps(request).encode()
        )
        self._bump("batch_requests")
        reply = json.loads(body) if body else {}
        if batch.dialect == "anthropic":
            if status == 200:
                return {"ok": True, "anthropic": {"type": "succeeded", "message": reply}}
            return {"ok": False, "anthropic": {"type": "errored", "error": reply}}
        response = {
            "status_code": status or 500,
            "request_id": f"req_{secrets.token_hex(8)}",
            "body": reply,
        }
        return {"ok": status == 200, "openai": {"response": response, "error": None}}

    def _write_files(self, batch: _Batch) -> None:
        out, err = [], []
        for custom_id, result in batch.results.items():
            line = json.dumps(
                {
                    "id": f"batch_req_{secrets.token_hex(8)}",
                    "custom_id": custom_id,
                    **result["openai"],
                }
            )
            (out if result["ok"] else err).append(line)
        for lines, attr in ((out, "output_file"), (err, "error_file")):
            if lines:
                file_id = f"file-{secrets.token_hex(12)}"
                self._files[file_id] = ("batch_output", ("\n".join(lines) + "\n").encode())
                setattr(batch, attr, file_id)


def _not_run(dialect: str, end: str) -> dict[str, Any]:
    if dialect == "anthropic":
        return {"ok": False, "anthropic": {"type": "expired" if end == "expired" else "canceled"}}
    code = "batch_expired" if end == "expired" else "batch_cancelled"
    message = (
        "This request could not be executed before the completion window expired."
        if end == "expired"
        else "This request was not executed because the batch was cancelled."
    )
    return {"ok": False, "openai": {"response": None, "error": {"code": code, "message": message}}}


def _validate_lines(
    content: bytes, endpoint: str, lines: list[tuple[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """Read an input file as the API does while validating; the errors make it ``failed``."""
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    models: set[str] = set()

    def refuse(n: int, code: str, message: str, param: str | None) -> None:
        errors.append({"code": code, "message": message, "param": param, "line": n})

    for n, raw in enumerate(content.decode("utf-8", "replace").splitlines(), start=1):
        try:
            line = json.loads(raw)
        except ValueError:
            refuse(n, "invalid_json_line", "This line is not parseable as valid JSON.", None)
            continue
        custom_id, body = line.get("custom_id"), line.get("body")
        if not isinstance(custom_id, str):
            refuse(
                n,
                "missing_required_parameter",
                "Missing required parameter: 'custom_id'.",
                "custom_id",
            )
        elif custom_id in seen:
            refuse(
                n,
                "duplicate_custom_id",
                "The custom_id for this request is a duplicate of another request. The custom_id "
                "parameter must be unique for each request in a batch.",
                "custom_id",
            )
        if line.get("method") != "POST":
            refuse(n, "invalid_method", "The method must be 'POST'.", "method")
        if line.get("url") != endpoint:
            refuse(
                n,
                "mismatched_endpoint",
                f"The provided endpoint '{line.get('url')}' does not match the batch endpoint "
                f"'{endpoint}'.",
                "url",
            )
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            refuse(
                n,
                "missing_required_parameter",
                "Missing required parameter: 'body.model'.",
                "body.model",
            )
            continue
        models.add(body["model"])
        if len(models) > 1:
            refuse(
                n,
                "model_mismatch",
                "Each request in a batch must use the same model.",
                "body.model",
            )
        if isinstance(custom_id, str):
            seen.add(custom_id)
            lines.append((custom_id, body))
    return errors


class BatchServer(JudgeServer):
    """The scripted judge with the batch endpoints, in a background thread.

    Use as :class:`JudgeServer`; :attr:`emulator` holds the batch script and counters.
    ``base_url`` serves OpenAI (``.../v1``); :attr:`root` serves Anthropic. ``app``: a
    chat emulator to answer the lines (and online calls) instead of the permissive
    scripted judge.
    """

    def __init__(
        self, script: Script | None = None, batch: BatchScript | None = None, *, app: Any = None
    ) -> None:
        super().__init__(script)
        self.emulator = BatchEmulator(app if app is not None else self.app, batch)
        if app is not None:  # a chat emulator: configure() reaches its scripted judge
            self.app = app.inner
        self._listener = _Listener(self.emulator)  # type: ignore[arg-type]

    @property
    def root(self) -> str:
        """The server without ``/v1``: Anthropic's base URL convention."""
        return f"http://{self.host}:{self.port}"

    def stats(self) -> dict[str, int]:
        """The judge's and the emulator's counters."""
        return self.emulator.stats()

    def reset(self) -> None:
        """Zero every counter (the judge's and the emulator's)."""
        self.emulator.reset()

    def configure_batches(self, **changes: Any) -> BatchScript:
        """Change fields of the batch script."""
        self.emulator.batch_script = dataclasses.replace(self.emulator.batch_script, **changes)
        return self.emulator.batch_script


@contextmanager
def provider_batches(
    monkeypatch: pytest.MonkeyPatch,
    provider: Literal["openai", "anthropic"] = "openai",
    *,
    delay_polls: int = 1,
) -> Iterator[BatchServer]:
    """The provider's chat emulator (judge ``longer``) behind the batch emulator.

    ``$<PROVIDER>_API_KEY`` holds the server's key and ``$<PROVIDER>_BASE_URL`` is
    unset, so a judge reaches the server only through the base URL a test gives it.
    """
    from tests.server._anthropic_emulator import AnthropicEmulator
    from tests.server._openai_emulator import OpenAIEmulator

    front = OpenAIEmulator if provider == "openai" else AnthropicEmulator
    app = front(Script(judge="longer"))
    with BatchServer(batch=BatchScript(delay_polls=delay_polls), app=app) as running:
        assert running.api_key is not None
        monkeypatch.setenv(f"{provider.upper()}_API_KEY", running.api_key)
        monkeypatch.delenv(f"{provider.upper()}_BASE_URL", raising=False)
        yield running
