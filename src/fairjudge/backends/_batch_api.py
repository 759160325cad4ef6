"""What a provider's batch API looks like to the runner, and the HTTP both clients share.

A batch sends each call's online request body and reads each reply with the online
reader, so a batch's results equal an online run's; errors of the batch endpoints map
onto the same error tree, with the key scrubbed.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import BackendError, EndpointUnreachable, FatalBackendError, ServerError
from fairjudge._redact import redact
from fairjudge.backends._http_errors import MESSAGE_LIMIT, error_from_status
from fairjudge.backends._openai_wire import error_detail, error_message

if TYPE_CHECKING:
    from fairjudge.backends._http_base import HTTPBackend

__all__ = [
    "BatchAPI",
    "BatchHTTP",
    "BatchNotFound",
    "BatchState",
    "Outcome",
    "ResultsGone",
    "UploadingBatchAPI",
    "chunked",
    "jsonl",
    "missing",
    "no_anthropic_batch",
    "no_openai_batch",
    "no_openai_file",
]

Outcome = Completion | BackendError
"""What one request of a batch came to: its reply, or the error it ended with."""


class BatchNotFound(FatalBackendError):
    """The provider answered a batch's lookup with its own not-found error (HTTP 404).

    Its key cannot see the batch (another organisation's or project's key) or the
    batch was deleted: OpenAI's ``No batch found with id '...'.``, Anthropic's
    ``not_found_error``. A 404 in any other words (a server with no batch API, a
    wrong path) is a :class:`FatalBackendError` as before; so is this, to a caller
    that does not look for it.
    """


class ResultsGone(BatchNotFound):
    """An ended batch whose results the provider no longer keeps, all or some of them.

    OpenAI answers the download of a deleted or expired output or error file with its
    not-found error (404 ``No such File object: file-...``); Anthropic sets an ended
    batch's ``archived_at`` when its results became unavailable (29 days after its
    creation), and answers a batch it does not know with ``not_found_error``.

    Attributes:
        found: The replies still read (by ``custom_id``), from a file that is still
            kept; the requests not in it have no result to read.
    """

    def __init__(self, message: str, found: Mapping[str, Completion] | None = None) -> None:
        super().__init__(message)
        self.found: dict[str, Completion] = dict(found or {})


@dataclass(frozen=True, slots=True)
class BatchState:
    """A batch as the provider last described it.

    Attributes:
        id: The provider's batch id.
        status: The provider's own word for its state (OpenAI: ``validating``,
            ``in_progress``, ``finalizing``, ``completed``, ``failed``, ``expired``,
            ``cancelling``, ``cancelled``; Anthropic: ``in_progress``, ``canceling``,
            ``ended``).
        ended: No request of it will change any more: its results can be read.
        counts: The provider's request counts (OpenAI: ``total``, ``completed``,
            ``failed``; Anthropic: ``processing``, ``succeeded``, ``errored``,
            ``canceled``, ``expired``).
        input_file: OpenAI's uploaded input file id (``None`` for Anthropic).
        errors: Why the provider refused the whole batch (OpenAI's ``errors`` of a
            ``failed`` batch: a bad line, a duplicate ``custom_id``), else empty.
        elapsed_s: Seconds from the batch's creation to its end, by the provider's
            clock, once it ended (recorded as each call's latency).
        raw: The batch object as the provider sent it (for the links to results).
        gone: Why the provider does not know the batch (its 404 not-found answer:
            :class:`BatchNotFound`), with ``status`` ``not found``; else empty.
    """

    id: str
    status: str
    ended: bool
    counts: Mapping[str, int] = field(default_factory=dict)
    input_file: str | None = None
    errors: str = ""
    elapsed_s: float = 0.0
    raw: Mapping[str, Any] = field(default_factory=dict)
    gone: str = ""

    def counts_text(self) -> str:
        """``completed 3, failed 1 of 4``-style text of the counts, for progress lines."""
        return ", ".join(f"{k} {v}" for k, v in self.counts.items() if isinstance(v, int))


class BatchAPI(Protocol):
    """One provider's batch endpoints, for one backend's route."""

    provider: str
    """``"openai"`` or ``"anthropic"``: the batch table's ``provider`` column."""
    max_requests: int
    """The most requests the provider takes in one batch."""

    def chunks(
        self, requests: Sequence[tuple[str, CallSpec]]
    ) -> Iterable[Sequence[tuple[str, CallSpec]]]:
        """``requests`` cut into batches the provider takes: its request and byte limits."""
        ...

    async def submit(self, requests: Sequence[tuple[str, CallSpec]]) -> BatchState:
        """Submit ``(custom_id, spec)`` requests as one batch; returns it as created."""
        ...

    async def poll(self, batch_id: str) -> BatchState:
        """The batch's current state (``gone`` when the provider does not know it)."""
        ...

    async def results(self, state: BatchState, members: Iterable[str]) -> dict[str, Outcome]:
        """The outcome of every one of ``members`` (their ``custom_id``) of a batch that ended.

        A member the provider returned no line for is an error that says so.

        Raises:
            ResultsGone: The provider no longer keeps the results, all or some; its
                ``found`` holds the replies still read (the runner, which imports no
                private module of this package, knows it by that ``found``).
        """
        ...

    async def aclose(self) -> None:
        """Close the connections."""
        ...


@runtime_checkable
class UploadingBatchAPI(BatchAPI, Protocol):
    """A batch API made in two steps, upload then create, that can find a batch by its upload.

    OpenAI's: the runner records the upload before it creates the batch, so a run
    killed between the two steps finds the batch instead of paying for a second.
    """

    async def upload(self, requests: Sequence[tuple[str, CallSpec]]) -> str:
        """Upload the ``(custom_id, spec)`` requests; the upload's id."""
        ...

    async def create(self, file_id: str) -> BatchState:
        """Create the batch over an upload."""
        ...

    async def find(self, file_id: str) -> BatchState | None:
        """The batch over an upload, if the provider made one."""
        ...


Gone = Callable[[Mapping[str, Any] | None], bool]
"""Whether an error reply's ``error`` object is the provider's own not-found answer."""

ENDPOINT_TIMEOUT_S = 300.0
"""Seconds each request to the batch endpoints may take when the judge was given no timeout."""


class BatchHTTP:
    """The HTTP of a batch client: one ``httpx`` pool, errors mapped, key scrubbed.

    Args:
        backend: ``openai`` or ``anthropic``, named in errors.
        base: The API root the paths are appended to.
        headers: Authentication and version headers (never printed).
        where: ``"model ... at host"``, named in errors.
        key_env: The key's variable, named when the key is refused.
        secrets: Values scrubbed from every message.
        timeout: Seconds per request (uploads and result files included).
    """

    def __init__(
        self,
        *,
        backend: str,
        base: str,
        headers: Mapping[str, str],
        where: str,
        key_env: str,
        secrets: Sequence[str | None],
        timeout: float,
    ) -> None:
        import httpx

        self.backend, self.where, self.key_env = backend, where, key_env
        self._secrets = [s for s in secrets if s]
        self._client = httpx.AsyncClient(
            base_url=base.rstrip("/"), headers=dict(headers), timeout=timeout
        )

    @classmethod
    def of(
        cls, backend: HTTPBackend, *, base: str, headers: Mapping[str, str], key: str | None
    ) -> BatchHTTP:
        """The batch HTTP at ``backend``'s address: its name, key variable and timeout.

        The timeout is the judge's own when one was given (``--timeout``), as for its
        online calls; else :data:`ENDPOINT_TIMEOUT_S`, not the online default (60 s):
        a results file can be large, and a creation that timed out is not sent again.
        """
        from fairjudge.backends._http_base import HTTPBackend

        online_default = inspect.signature(HTTPBackend.__init__).parameters["timeout"].default
        given = backend._timeout != online_default
        return cls(
            backend=backend.name,
            base=base,
            headers=headers,
            where=backend._where,
            key_env=backend._api_key_env,
            secrets=[key],
            timeout=backend._timeout if given else ENDPOINT_TIMEOUT_S,
        )

    async def request(
        self, method: str, path: str, *, gone: Gone | None = None, **kwargs: Any
    ) -> bytes:
        """Send one request; the body of a 2xx reply, else the mapped error.

        Raises:
            BatchNotFound: A 404 whose body's ``error`` object (as
                :func:`~fairjudge.backends._openai_wire.error_detail` reads it, the one
                reader of error bodies; ``None`` when the body has none) ``gone`` says is
                the provider's own not-found answer.
            BackendError: A refused request (4xx, by status as for online calls), a
                server error, or no answer at all (:class:`EndpointUnreachable`).
        """
        import httpx

        try:
            reply = await self._client.request(method, path, **kwargs)
        except httpx.TimeoutException as exc:
            raise ServerError(f"{self.backend} batch API: {self.where}: no reply") from exc
        except httpx.TransportError as exc:
            text = self._scrub(f"{type(exc).__name__}: {exc}")
            raise EndpointUnreachable(
                f"{self.backend} batch API: cannot reach {self.where}: {text}"
            ) from exc
        if reply.status_code >= 300:
            message = self._scrub(error_message(reply.content))[:MESSAGE_LIMIT]
            if reply.status_code == 404 and gone is not None and gone(error_detail(reply.content)):
                raise BatchNotFound(
                    f"{self.backend} batch API backend: HTTP 404 from {self.where}: "
                    f"{method} {path}: {message}"
                )
            raise error_from_status(
                reply.status_code,
                f"{method} {path}: {message}",
                backend=f"{self.backend} batch API",
                where=self.where,
                headers=dict(reply.headers),
                key_env=self.key_env,
            )
        return reply.content

    async def json(self, method: str, path: str, *, gone: Gone | None = None, **kwargs: Any) -> Any:
        """:meth:`request`, its body read as JSON.

        Raises:
            ServerError: The body is no JSON object.
        """
        body = await self.request(method, path, gone=gone, **kwargs)
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise ServerError(f"{self.backend} batch API: {self.where}: reply is not JSON") from exc
        if not isinstance(data, dict):
            raise ServerError(f"{self.backend} batch API: {self.where}: reply is no JSON object")
        return data

    def _scrub(self, text: str) -> str:
        return redact(text, self._secrets)

    async def aclose(self) -> None:
        """Close the pool."""
        await self._client.aclose()


def no_openai_batch(error: Mapping[str, Any] | None) -> bool:
    """Whether a 404's ``error`` object is OpenAI's answer for a batch the key cannot see.

    ``{"error": {"message": "No batch found with id 'batch_...'.", "type":
    "invalid_request_error", "param": null, "code": null}}``, as the API answers
    ``GET /v1/batches/{id}`` (captured in other clients' tests, e.g. an Elixir
    client's ``returns :not_found when batch does not exist``); ``batch_not_found``
    is the code gateways give it (BerriAI/litellm#37148).
    """
    if error is None:
        return False
    message = error.get("message")
    return error.get("code") == "batch_not_found" or (
        isinstance(message, str) and message.startswith("No batch found with id")
    )


def no_openai_file(error: Mapping[str, Any] | None) -> bool:
    """Whether a 404's ``error`` object is OpenAI's answer for a file it no longer keeps.

    ``{"error": {"message": "No such File object: file-...", "type":
    "invalid_request_error", "param": "id", "code": null}}``: a results file deleted
    (``DELETE /v1/files/{id}``) or past the expiry its batch set
    (``output_expires_after``), as openai-dotnet's tests capture it.
    """
    message = error.get("message") if error is not None else None
    return isinstance(message, str) and message.startswith("No such File object")


def no_anthropic_batch(error: Mapping[str, Any] | None) -> bool:
    """Whether a 404's ``error`` object is Anthropic's answer for a batch the key cannot see.

    Its documented error shape with the type ``not_found_error``:
    ``{"type": "error", "error": {"type": "not_found_error", "message": ...}}``.
    """
    return error is not None and error.get("type") == "not_found_error"


def jsonl(body: bytes, backend: str, where: str) -> list[dict[str, Any]]:
    """The JSON objects of a results file, one a line (blank lines skipped).

    Raises:
        ServerError: A line is no JSON object.
    """
    rows = []
    for n, line in enumerate(body.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ServerError(
                f"{backend} batch API: {where}: results line {n} is not JSON"
            ) from exc
        if not isinstance(row, dict):
            raise ServerError(f"{backend} batch API: {where}: results line {n} is no object")
        rows.append(row)
    return rows


def missing(provider: str, where: str, state: BatchState, custom_id: str) -> ServerError:
    """The error of a request a batch ended without a result for (retried by the next run)."""
    return ServerError(
        f"{provider} batch API: {where}: batch {state.id} ended ({state.status}) with no "
        f"result for request {custom_id}"
    )


def chunked(
    requests: Sequence[tuple[str, CallSpec]],
    size: Callable[[str, CallSpec], int],
    *,
    max_requests: int,
    max_bytes: int,
) -> Iterator[Sequence[tuple[str, CallSpec]]]:
    """``requests`` cut, in order, into runs within ``max_requests`` and ``max_bytes``.

    ``size(custom_id, spec)`` is the bytes one request adds to its batch as sent,
    asked once per request, in order, and no further than the run yielded next needs
    (one request past its end): a caller that encodes to size holds one run at a time.
    A request larger than ``max_bytes`` alone goes alone (the provider refuses it, and
    the run stops); no judge prompt comes near (OpenAI: 200 MB, Anthropic: 256 MB).
    """
    start, total = 0, 0
    for n, (custom_id, spec) in enumerate(requests):
        grown = size(custom_id, spec)
        if n > start and (n - start >= max_requests or total + grown > max_bytes):
            yield requests[start:n]
            start, total = n, 0
        total += grown
    if start < len(requests):
        yield requests[start:]
