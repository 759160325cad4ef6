"""The providers' batch clients, and which one serves a backend.

``openai/`` uploads the requests as a file to the Files and Batch endpoints at the
base URL, ``anthropic/`` creates Message Batches with the requests inline; anything
else has none, a :class:`~fairjudge.ConfigError` naming ``executor`` before any call.
Each sends the online request body and reads each reply with the online reader; the
providers' documented flows are in ``docs/internals.md``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import urlsplit

from fairjudge._call import Backend, CallSpec, Completion
from fairjudge._errors import (
    BackendError,
    ConfigError,
    CutAtCap,
    FatalBackendError,
    RateLimitError,
    RequestRejected,
    ServerError,
)
from fairjudge.backends._anthropic import AnthropicBackend
from fairjudge.backends._anthropic import completion_from_reply as anthropic_completion
from fairjudge.backends._batch_api import (
    BatchAPI,
    BatchHTTP,
    BatchNotFound,
    BatchState,
    Outcome,
    ResultsGone,
    chunked,
    jsonl,
    missing,
    no_anthropic_batch,
    no_openai_batch,
    no_openai_file,
)
from fairjudge.backends._http_errors import error_from_status
from fairjudge.backends._openai_wire import completion_from_reply as openai_completion

if TYPE_CHECKING:
    from fairjudge.backends._http_base import HTTPBackend
    from fairjudge.backends._openai import OpenAIBackend

__all__ = [
    "API_VERSION",
    "ENDPOINT",
    "AnthropicBatch",
    "OpenAIBatch",
    "batch_client",
    "check_batchable",
]


def check_batchable(backend: Backend) -> None:
    """Refuse a backend no batch API serves.

    Raises:
        ConfigError: ``backend`` is neither an OpenAI nor an Anthropic backend.
    """
    from fairjudge.backends._openai import OpenAIBackend

    if not isinstance(backend, OpenAIBackend | AnthropicBackend):
        raise ConfigError(
            "executor=BatchExecutor() needs a judge with a batch API (openai/<model> or "
            f"anthropic/<model>); {backend.name}/{backend.model} has none: drop "
            "executor=BatchExecutor() for it (executor=None makes the calls one by one)",
            params="executor",
        )


def batch_client(backend: Backend) -> BatchAPI:
    """The batch API client for ``backend``'s route.

    Raises:
        ConfigError: As :func:`check_batchable`.
    """
    from fairjudge.backends._openai import OpenAIBackend

    check_batchable(backend)
    if isinstance(backend, OpenAIBackend):
        return OpenAIBatch(backend)
    assert isinstance(backend, AnthropicBackend)
    return AnthropicBatch(backend)


ENDPOINT = "/v1/chat/completions"
"""The one endpoint fairjudge batches: where its online calls go."""

_RUNNING = frozenset({"validating", "in_progress", "finalizing", "cancelling"})
_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})


_B = TypeVar("_B", bound="HTTPBackend")


class _Encoded(tuple[tuple[str, CallSpec], ...]):
    """Requests as :meth:`_Client.chunks` cut them, with each one's bytes as sent.

    A client sends the bytes of the chunks it cut, so each request is encoded once:
    to size its batch, and for the wire.
    """

    lines: tuple[bytes, ...]
    client: object

    def __new__(
        cls, requests: Sequence[tuple[str, CallSpec]], lines: Sequence[bytes], client: object
    ) -> _Encoded:
        made = super().__new__(cls, requests)
        made.lines, made.client = tuple(lines), client
        return made


class _Client(Generic[_B]):
    """What both clients hold: the backend, its place for messages, address and HTTP.

    The address is the backend's base URL as given, else the provider's default host
    with ``path`` (the version prefix the base URL carries), as the online calls use.

    Args:
        backend: The judge's backend: its base URL, key variable, timeout and the
            body it sends (its ``request_body``).
    """

    max_requests: int
    max_bytes: int
    framing = 0
    """Bytes around the requests in what is sent (none in OpenAI's file)."""

    def __init__(
        self, backend: _B, *, path: str, headers: Mapping[str, str], key: str | None
    ) -> None:
        self._backend = backend
        self._where = backend._where
        self._base = backend._base_url or f"https://{backend.default_host}{path}"
        self._http = BatchHTTP.of(backend, base=self._base, headers=headers, key=key)

    def chunks(
        self, requests: Sequence[tuple[str, CallSpec]]
    ) -> Iterator[Sequence[tuple[str, CallSpec]]]:
        """``requests`` in batches of at most :attr:`max_requests` and :attr:`max_bytes`.

        Each request counts its bytes as sent and one more (OpenAI: its line's
        newline; Anthropic: the comma after it), each batch :attr:`framing` too. The
        batches come one at a time, each request encoded as its batch is cut, so a
        run of many batches holds one batch's bytes (up to 200 or 256 MB), not all.
        """
        encoded: list[bytes] = []  # the run being cut, and at most one request past it

        def size(custom_id: str, spec: CallSpec) -> int:
            encoded.append(self._encode(custom_id, spec))
            return len(encoded[-1]) + 1

        runs = chunked(
            requests,
            size,
            max_requests=self.max_requests,
            max_bytes=self.max_bytes - self.framing,
        )
        for run in runs:
            lines, encoded[:] = encoded[: len(run)], encoded[len(run) :]
            yield _Encoded(run, lines, self)

    def _lines(self, requests: Sequence[tuple[str, CallSpec]]) -> Sequence[bytes]:
        """Each request's bytes as sent: those :meth:`chunks` made, else made now."""
        if isinstance(requests, _Encoded) and requests.client is self:
            return requests.lines
        return [self._encode(custom_id, spec) for custom_id, spec in requests]

    def _encode(self, custom_id: str, spec: CallSpec) -> bytes:
        """One request, encoded as sent."""
        raise NotImplementedError

    _batches: str
    """The batches' path under the address: ``GET {_batches}/{id}`` reads one."""

    async def poll(self, batch_id: str) -> BatchState:
        """Read a batch's state; a batch the key cannot see comes back ``gone``."""
        try:
            data = await self._http.json("GET", f"{self._batches}/{batch_id}", gone=self._gone)
        except BatchNotFound as exc:
            return BatchState(batch_id, "not found", False, gone=str(exc))
        return self._state(data)

    def _gone(self, error: Mapping[str, Any] | None) -> bool:
        """Whether an error reply's ``error`` object is the provider's own "no such batch"."""
        raise NotImplementedError

    def _state(self, data: Mapping[str, Any]) -> BatchState:
        """A batch's state, read from its JSON."""
        raise NotImplementedError

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()


def _batch_reply(
    read: Callable[[Any, float, str], Completion], reply: Any, state: BatchState, where: str
) -> Outcome:
    """A succeeded request's reply, read by the online reader, at the batch price."""
    try:
        completion = read(reply, state.elapsed_s, where)
    except CutAtCap as exc:  # cut at its cap: billed, at the batch price too
        if isinstance(exc.billed, Completion):
            exc.billed = dataclasses.replace(exc.billed, batch=True)
        return exc
    except BackendError as exc:
        return exc
    return dataclasses.replace(completion, batch=True)


class OpenAIBatch(_Client["OpenAIBackend"]):
    """The Files and Batch endpoints at an OpenAI backend's address, with its key."""

    provider = "openai"
    # "The file can contain up to 50,000 requests, and can be up to 200 MB in size" (API
    # reference, POST /v1/batches; its copies: https://github.com/64bit/async-openai/pull/475,
    # https://learn.microsoft.com/sv-se/azure/foundry/reference/rest/batches-create-batch).
    # A larger upload is refused: 400 "File is too large." (bespokelabsai/curator#111).
    max_requests = 50_000
    max_bytes = 200_000_000

    def __init__(self, backend: OpenAIBackend) -> None:
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
        super().__init__(backend, path="/v1", headers=headers, key=key)

    def _encode(self, custom_id: str, spec: CallSpec) -> bytes:
        """One line of the input file, encoded as uploaded."""
        line = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT,
                "body": self._backend.request_body(spec)}  # fmt: skip
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()

    async def submit(self, requests: Sequence[tuple[str, CallSpec]]) -> BatchState:
        """Upload the requests as one JSONL file and create a batch over it."""
        return await self.create(await self.upload(requests))

    async def upload(self, requests: Sequence[tuple[str, CallSpec]]) -> str:
        """``POST /v1/files``: the requests as one JSONL file (purpose ``batch``); its id.

        The runner records the file id before it creates the batch, so a run killed
        between the two finds its batch by the file (:meth:`find`) instead of making
        a second one.
        """
        data = b"".join(line + b"\n" for line in self._lines(requests))
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

    _batches = "/batches"

    def _gone(self, error: Mapping[str, Any] | None) -> bool:
        return no_openai_batch(error)

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
            return dict.fromkeys(members, self._refused(state))
        found: dict[str, Outcome] = {}
        gone = []
        for name in ("output_file_id", "error_file_id"):
            file_id = state.raw.get(name)
            if not isinstance(file_id, str):
                continue
            path = f"/files/{file_id}/content"
            try:
                body = await self._http.request("GET", path, gone=no_openai_file)
            except BatchNotFound as exc:  # deleted, or past its expiry
                gone.append(f"its {name.removesuffix('_id').replace('_', ' ')}: {exc}")
                continue
            for row in jsonl(body, "openai", self._where):
                custom_id = row.get("custom_id")
                if isinstance(custom_id, str):
                    found[custom_id] = self._outcome(row, state)
        if gone:
            read = {m: o for m, o in found.items() if isinstance(o, Completion)}
            raise ResultsGone("; ".join(gone), {m: read[m] for m in members if m in read})
        return {m: found.get(m) or missing(self.provider, self._where, state, m) for m in members}

    def _refused(self, state: BatchState) -> BackendError:
        """Why a ``failed`` batch failed each request: final, unless it was the quota.

        ``token_limit_exceeded``: the organisation's enqueued tokens were spent
        (https://github.com/openai/openai-python/issues/2084); a later batch is taken,
        so the next run submits its requests again, as after a 429.
        """
        text = (
            f"openai batch API: {self._where}: batch {state.id} was refused "
            f"({state.errors or 'no reason given'})"
        )
        errors = (state.raw.get("errors") or {}).get("data") or []
        if any(isinstance(e, Mapping) and e.get("code") == "token_limit_exceeded" for e in errors):
            return RateLimitError(text + "; the next run submits it again")
        return RequestRejected(text)

    def _outcome(self, row: Mapping[str, Any], state: BatchState) -> Outcome:
        response = row.get("response")
        if isinstance(response, Mapping):
            status, body = response.get("status_code"), response.get("body")
            if status == 200 and isinstance(body, Mapping):
                return _batch_reply(openai_completion, body, state, self._where)
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


def _first_time(data: Mapping[str, Any]) -> int | None:
    """When the batch ended, by the first terminal timestamp it carries."""
    for name in ("completed_at", "failed_at", "expired_at", "cancelled_at"):
        value = data.get(name)
        if isinstance(value, int):
            return value
    return None


API_VERSION = "2023-06-01"
"""The ``anthropic-version`` header sent, as the SDK sends it."""

_PATH = "/v1/messages/batches"
_OPEN, _CLOSE = b'{"requests":[', b"]}"  # around the requests of a batch's body
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


class AnthropicBatch(_Client["AnthropicBackend"]):
    """The Message Batches endpoints at an Anthropic backend's address, with its key."""

    provider = "anthropic"
    # "A Message Batch is limited to either 100,000 Message requests or 256 MB in size,
    # whichever is reached first" (https://docs.anthropic.com/de/docs/build-with-claude/
    # message-batches, "Batch limitations"); a larger request is refused with 413
    # request_too_large (https://platform.claude.com/docs/en/api/errors.md).
    max_requests = 100_000
    max_bytes = 256_000_000
    framing = len(_OPEN) + len(_CLOSE)

    def __init__(self, backend: AnthropicBackend) -> None:
        key = backend._read_key() or ""
        headers = {"x-api-key": key, "anthropic-version": API_VERSION}
        super().__init__(backend, path="", headers=headers, key=key)

    def _encode(self, custom_id: str, spec: CallSpec) -> bytes:
        """One entry of the batch's ``requests``, encoded as sent."""
        entry = {"custom_id": custom_id, "params": self._backend.request_body(spec)}
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()

    async def submit(self, requests: Sequence[tuple[str, CallSpec]]) -> BatchState:
        """Create one batch holding the requests (each encoded as :meth:`chunks` sized it)."""
        body = _OPEN + b",".join(self._lines(requests)) + _CLOSE
        sent = await self._http.json(
            "POST", _PATH, content=body, headers={"content-type": "application/json"}
        )
        return self._state(sent)

    _batches = _PATH

    def _gone(self, error: Mapping[str, Any] | None) -> bool:
        return no_anthropic_batch(error)

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
        archived = state.raw.get("archived_at")
        if archived:  # documented: "archived and its results became unavailable"
            raise ResultsGone(
                f"anthropic batch API: {self._where}: batch {state.id} was archived at "
                f"{archived}: its results are no longer available"
            )
        try:
            body = await self._http.request("GET", url, gone=no_anthropic_batch)
        except BatchNotFound as exc:
            raise ResultsGone(f"its results: {exc}") from exc
        found: dict[str, Outcome] = {}
        for row in jsonl(body, "anthropic", self._where):
            custom_id, result = row.get("custom_id"), row.get("result")
            if isinstance(custom_id, str) and isinstance(result, Mapping):
                found[custom_id] = self._outcome(result, state)
        return {m: found.get(m) or missing(self.provider, self._where, state, m) for m in members}

    def _outcome(self, result: Mapping[str, Any], state: BatchState) -> Outcome:
        kind = result.get("type")
        if kind == "succeeded":
            return _batch_reply(anthropic_completion, result.get("message"), state, self._where)
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


def _elapsed(created: Any, ended: Any) -> float:
    """Seconds between two RFC 3339 times; 0 when either is missing or unreadable."""
    try:
        start = datetime.fromisoformat(str(created))
        end = datetime.fromisoformat(str(ended))
    except ValueError:
        return 0.0
    return max((end - start).total_seconds(), 0.0)
