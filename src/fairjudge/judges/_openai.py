"""The OpenAI-compatible HTTP backend: OpenAI itself, vLLM, Ollama, llama.cpp, SGLang, ...

Two transports, chosen by ``transport=``, with the same requests, replies and errors:

- ``"sdk"``: the official ``openai`` SDK's :class:`openai.AsyncOpenAI`, with the SDK's
  own retries off (the runner retries, with backoff that honours ``Retry-After``).
  SDK exceptions are translated here, at the boundary, into the
  :class:`fairjudge.BackendError` tree, with messages scrubbed of the key.
- ``"lean"``: :class:`~fairjudge.judges._lean_http.LeanHTTPClient`, a plain asyncio
  HTTP/1.1 keep-alive client. The SDK costs 13-20 ms of CPU per call, which on a small
  machine caps a run at about half the rate the server allows at concurrency 64; the
  lean client costs under 1 ms. Status codes go through the same
  :func:`error_from_status`, with the same logprob fallback, ``Retry-After`` handling
  and key scrubbing, and the reply is read field by field as the SDK path reads it.
- ``"auto"`` (the default): lean for an ``http(s)://`` ``base_url`` that no proxy
  variable (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, either case, minus
  ``NO_PROXY``) applies to; the SDK otherwise, and for the OpenAI API itself
  (no ``base_url``), where the SDK's own headers and behaviour are the reference.

The HTTP helpers at the bottom (:func:`retry_after_seconds`, :func:`error_from_status`,
:func:`translate_sdk_error`) are shared with the Anthropic backend, whose SDK comes
from the same generator and raises the same exception classes.
"""

from __future__ import annotations

import email.utils
import json
import logging
import os
import sys
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from types import ModuleType
from typing import Any, Literal

import openai
from openai.types.chat import ChatCompletion

from fairjudge._errors import (
    AuthenticationError,
    BackendError,
    BackendTimeout,
    ConfigError,
    FatalBackendError,
    RateLimitError,
    ServerError,
)
from fairjudge.judges._base import CallSpec, Completion
from fairjudge.judges._lean_http import (
    LeanHTTPClient,
    LeanTransportError,
    completion_from_reply,
    error_message,
    lean_applies,
)
from fairjudge.judges._redact import redact

__all__ = [
    "OpenAIBackend",
    "Transport",
    "error_from_status",
    "pooled_http_client",
    "retry_after_seconds",
    "translate_sdk_error",
]

logger = logging.getLogger("fairjudge.judges.openai")

_LOGPROB_KEYS = ("logprobs", "top_logprobs")
_MESSAGE_LIMIT = 500  # characters of a server's error text kept in our messages

Transport = Literal["auto", "sdk", "lean"]
"""How :class:`OpenAIBackend` talks HTTP; see the module docstring."""


class OpenAIBackend:
    """A judge behind an OpenAI-compatible chat-completions endpoint.

    Args:
        model: The model name the server knows, e.g. ``"gpt-4o-mini"``.
        base_url: The server, e.g. ``"http://localhost:8000/v1"`` for vLLM; ``None``
            means ``$OPENAI_BASE_URL`` if set, else api.openai.com. Part of the cache key.
        api_key_env: The environment variable holding the key, read once, here. It may
            be unset for a server at ``base_url`` that needs no key.
        timeout: Seconds to wait for a reply (and for a free connection).
        temperature: Sampling temperature.
        max_tokens: Reply length cap; defaults to 8 tokens for verdict-only templates
            and 1024 otherwise.
        logprobs: Ask for the verdict token's log-probabilities (verdict-only templates).
        top_logprobs: How many alternatives to ask for (OpenAI allows up to 20).
        extra_params: More request fields, sent as given and part of the cache key
            (e.g. ``{"seed": 0}`` or vLLM's ``{"top_k": 1}``).
        max_connections: Size of the HTTP connection pool, kept alive between calls.
            Calls beyond it wait for a connection, so it is also
            :attr:`max_concurrency`.
        transport: ``"sdk"`` (the ``openai`` SDK), ``"lean"`` (a plain asyncio
            HTTP/1.1 client, about 20 times less CPU per call) or ``"auto"``: lean for
            an ``http(s)`` ``base_url`` that no proxy variable applies to, else the SDK.

    Raises:
        ConfigError: ``base_url`` is the OpenAI API and ``api_key_env`` is not set, or
            ``transport`` is unknown.

    Logprob fallback: when the server rejects a request because it asks for logprobs
    (a 400 or 422 whose message mentions them), the call is retried once without
    them and this backend stops sending them for the rest of its life. The cache key
    still holds the logprob fields of :meth:`default_params`, so keys do not change
    in the middle of a run; the stored rows simply have no logprobs.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        logprobs: bool = True,
        top_logprobs: int = 20,
        extra_params: Mapping[str, Any] | None = None,
        max_connections: int = 512,
        transport: Transport = "auto",
    ) -> None:
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self._model = model
        self._base_url = base_url.rstrip("/") if base_url else None
        self._api_key_env = api_key_env
        self._timeout = timeout
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._logprobs = logprobs
        self._top_logprobs = top_logprobs
        self._extra_params = dict(extra_params or {})
        self._max_connections = max_connections
        self._send_logprobs = True
        key = os.environ.get(api_key_env) or None
        if key is None and self._base_url is None:
            raise ConfigError(
                f"the openai backend needs an API key: set ${api_key_env}, or pass "
                "--base-url for a server that needs none"
            )
        if transport not in ("auto", "sdk", "lean"):
            raise ConfigError(f"transport must be 'auto', 'sdk' or 'lean', got {transport!r}")
        self._transport: Literal["sdk", "lean"] = (
            transport if transport != "auto" else "lean" if lean_applies(self._base_url) else "sdk"
        )
        # The key lives only inside the client (neither prints it). The SDK insists on
        # a key, so servers that need none get a placeholder there; lean sends none.
        self._client: openai.AsyncOpenAI | None = None
        self._lean: LeanHTTPClient | None = None
        if self._transport == "lean":
            headers = {
                name: value
                for name, env in (
                    ("OpenAI-Organization", "OPENAI_ORG_ID"),  # as the SDK reads them
                    ("OpenAI-Project", "OPENAI_PROJECT_ID"),
                )
                if (value := os.environ.get(env))
            }
            self._lean = LeanHTTPClient(
                self._base_url or "https://api.openai.com/v1",
                api_key=key,
                headers=headers,
                timeout=timeout,
                max_connections=max_connections,
            )
        else:
            self._client = openai.AsyncOpenAI(
                api_key=key or "no-key",
                base_url=self._base_url,
                timeout=timeout,
                max_retries=0,
                http_client=pooled_http_client(openai, max_connections, timeout),
            )

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(model={self._model!r}, base_url={self._base_url!r}, "
            f"transport={self._transport!r})"
        )

    @property
    def transport(self) -> Literal["sdk", "lean"]:
        """The transport in use: ``"auto"`` resolved at construction."""
        return self._transport

    @property
    def model(self) -> str:
        """The model name sent to the server."""
        return self._model

    @property
    def base_url(self) -> str | None:
        """The server's base URL, or ``None`` for the OpenAI API."""
        return self._base_url

    @property
    def max_concurrency(self) -> int | None:
        """The connection pool size: more concurrent calls would only queue for a socket."""
        return self._max_connections

    @property
    def sends_logprobs(self) -> bool:
        """False once the server rejected a logprob request (see the class docstring)."""
        return self._send_logprobs

    def default_params(self, *, verdict_only: bool) -> dict[str, Any]:
        """Sampling parameters for a call; part of the cache key.

        Verdict-only templates get a small ``max_tokens`` and, if enabled, the first
        token's top logprobs; longer replies get neither.
        """
        params: dict[str, Any] = {"temperature": self._temperature}
        if verdict_only:
            params["max_tokens"] = self._max_tokens or 8
            if self._logprobs:
                params["logprobs"] = True
                params["top_logprobs"] = self._top_logprobs
        else:
            params["max_tokens"] = self._max_tokens or 1024
        params.update(self._extra_params)
        return params

    async def complete(self, spec: CallSpec) -> Completion:
        """Send one chat completion and return its reply.

        Raises:
            RateLimitError: 429; ``retry_after`` from the ``Retry-After`` header.
            BackendTimeout: No reply within ``timeout``.
            ServerError: 5xx, a connection failure, or a reply without text.
            AuthenticationError: 401/403.
            FatalBackendError: 400/404/422 and other client errors.
        """
        params = spec.params
        sends_logprobs = self._send_logprobs and any(k in params for k in _LOGPROB_KEYS)
        if not self._send_logprobs:
            params = {k: v for k, v in params.items() if k not in _LOGPROB_KEYS}
        body = {
            **params,
            "model": spec.model,
            "messages": [{"role": role, "content": content} for role, content in spec.messages],
        }
        if self._lean is not None:
            return await self._complete_lean(self._lean, spec, body, sends_logprobs)
        assert self._client is not None
        start = time.perf_counter()
        try:
            # client.post (the SDK's documented way to call any endpoint) keeps its
            # auth, headers, timeouts and error classes, but skips the per-field
            # transform of `chat.completions.create`, which walks every message
            # against the TypedDict annotations and costs ~20% of a call's CPU.
            reply = await self._client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        except openai.APIStatusError as exc:
            if sends_logprobs and _rejects_logprobs(exc):
                self._stop_logprobs(exc.status_code)
                return await self.complete(spec)
            raise self._translate(exc) from exc
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc
        except ValueError as exc:  # the SDK lets json.JSONDecodeError through on a bad body
            raise ServerError(f"openai backend: {self._where}: reply is not valid JSON") from exc
        latency = time.perf_counter() - start
        # One reader for both transports: the SDK's object goes back to the server's
        # JSON fields (only those the server set), so the two paths cannot drift apart.
        data = reply.to_dict() if isinstance(reply, ChatCompletion) else reply
        return completion_from_reply(data, latency, self._where)

    async def _complete_lean(
        self, client: LeanHTTPClient, spec: CallSpec, body: dict[str, Any], sends_logprobs: bool
    ) -> Completion:
        start = time.perf_counter()
        try:
            response = await client.post("/chat/completions", json.dumps(body).encode())
        except TimeoutError as exc:
            raise BackendTimeout(
                f"openai backend: no reply from {self._where} within {self._timeout:g} s"
            ) from exc
        except LeanTransportError as exc:
            detail = redact(str(exc), [client.api_key])[:_MESSAGE_LIMIT]
            raise ServerError(f"openai backend: cannot reach {self._where}: {detail}") from exc
        latency = time.perf_counter() - start
        status = response.status
        if not 200 <= status < 300:
            message = redact(error_message(response.body), [client.api_key])[:_MESSAGE_LIMIT]
            if sends_logprobs and status in (400, 422) and "logprob" in message.lower():
                self._stop_logprobs(status)
                return await self.complete(spec)
            raise error_from_status(
                status,
                message,
                backend="openai",
                where=self._where,
                headers=response.headers,
                key_env=self._api_key_env,
            )
        try:
            reply = json.loads(response.body)
        except ValueError as exc:
            raise ServerError(f"openai backend: {self._where}: reply is not valid JSON") from exc
        return completion_from_reply(reply, latency, self._where)

    def _stop_logprobs(self, status: int) -> None:
        # Calls already in flight with logprobs get the same answer: each retries
        # once, and only the first one logs.
        if self._send_logprobs:
            self._send_logprobs = False
            logger.warning(
                "%s rejected logprobs (HTTP %d); judging with labels only from now on",
                self._base_url or "the OpenAI API",
                status,
            )

    @property
    def _where(self) -> str:
        return f"model {self._model!r} at {self._base_url or 'api.openai.com'}"

    def _translate(self, exc: Exception) -> BackendError:
        assert self._client is not None
        return translate_sdk_error(
            exc,
            openai,
            backend="openai",
            where=self._where,
            timeout=self._timeout,
            secrets=[self._client.api_key],
            key_env=self._api_key_env,
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        if self._client is not None:
            await self._client.close()
        if self._lean is not None:
            await self._lean.aclose()


def pooled_http_client(sdk: ModuleType, max_connections: int, timeout: float) -> Any:
    """The SDK's default async HTTP client, with a keep-alive pool of ``max_connections``.

    The SDKs keep only 100 idle connections by default, so at higher concurrency they
    would close and reopen sockets on every call. Recent SDK releases build on
    ``httpx2`` and older ones on ``httpx``; the ``Limits`` must come from the same
    package as the client, so it is looked up from the client class itself.
    """
    client_cls = sdk.DefaultAsyncHttpxClient
    for base in client_cls.__mro__:
        package = sys.modules.get(base.__module__.partition(".")[0])
        limits_cls = getattr(package, "Limits", None)
        if base.__name__ == "AsyncClient" and limits_cls is not None:
            limits = limits_cls(
                max_connections=max_connections, max_keepalive_connections=max_connections
            )
            return client_cls(timeout=timeout, limits=limits)
    return client_cls(timeout=timeout)  # unknown HTTP stack: keep the SDK's pool


def _rejects_logprobs(exc: openai.APIStatusError) -> bool:
    return exc.status_code in (400, 422) and "logprob" in server_message(exc).lower()


def server_message(exc: Any) -> str:
    """The server's own error text from an SDK status error, else the SDK's message."""
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, Mapping) else inner
        if message:
            return str(message)
    return str(getattr(exc, "message", "") or exc)


def _scrub(exc: Exception, secrets: Iterable[str | None]) -> None:
    # The SDK's exception is chained as __cause__ of ours, so a printed traceback shows
    # its message too, and that message quotes the server's body, which may echo the
    # key ("Incorrect API key provided: sk-..."). Scrub it where it lies.
    secrets = list(secrets)
    exc.args = tuple(redact(a, secrets) if isinstance(a, str) else a for a in exc.args)
    message = getattr(exc, "message", None)
    if isinstance(message, str):
        exc.message = redact(message, secrets)  # type: ignore[attr-defined]
    body = getattr(exc, "body", None)
    if body is not None:
        text = redact(json.dumps(body, default=str), secrets)
        try:
            exc.body = json.loads(text)  # type: ignore[attr-defined]
        except ValueError:
            exc.body = text  # type: ignore[attr-defined]


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date).

    Returns:
        A non-negative number of seconds, or ``None`` when no header is usable.

    Example:
        >>> retry_after_seconds({"retry-after": "2.5"})
        2.5
    """
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def error_from_status(
    status: int,
    message: str,
    *,
    backend: str,
    where: str,
    headers: Mapping[str, str] | None = None,
    key_env: str | None = None,
) -> BackendError:
    """Map an HTTP error status to the :class:`fairjudge.BackendError` to raise.

    429 is a :class:`RateLimitError`; 408 a :class:`BackendTimeout`; 409 and 5xx
    :class:`ServerError` (all retryable); 401/403 :class:`AuthenticationError`; any
    other status a :class:`FatalBackendError`. ``message`` must be scrubbed already.
    """
    text = f"{backend} backend: HTTP {status} from {where}: {message}"
    if status == 429:
        return RateLimitError(text, retry_after=retry_after_seconds(headers))
    if status == 408:
        return BackendTimeout(text)
    if status == 409 or status >= 500:
        return ServerError(text)
    if status in (401, 403):
        hint = f"; check the key in ${key_env}" if key_env else ""
        return AuthenticationError(text + hint)
    return FatalBackendError(text)


def translate_sdk_error(
    exc: Exception,
    sdk: ModuleType,
    *,
    backend: str,
    where: str,
    timeout: float,
    secrets: Iterable[str | None],
    key_env: str | None,
) -> BackendError:
    """Translate an ``openai``/``anthropic`` SDK exception into a ``BackendError``.

    Args:
        exc: What the SDK raised.
        sdk: The SDK module, for its exception classes (both SDKs name them alike).
        backend: Backend name for the message.
        where: Model and server, for the message.
        timeout: The timeout in force, for the message.
        secrets: Values to scrub from the message (the API key).
        key_env: The key's environment variable, named in authentication errors.
    """
    _scrub(exc, secrets)
    if isinstance(exc, sdk.APITimeoutError):
        return BackendTimeout(f"{backend} backend: no reply from {where} within {timeout:g} s")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f"{type(cause).__name__}: {cause}" if cause else str(exc)
        detail = redact(detail, secrets)[:_MESSAGE_LIMIT]
        return ServerError(f"{backend} backend: cannot reach {where}: {detail}")
    if isinstance(exc, sdk.APIStatusError):
        message = redact(server_message(exc), secrets)[:_MESSAGE_LIMIT]
        headers = getattr(getattr(exc, "response", None), "headers", None)
        return error_from_status(
            exc.status_code, message, backend=backend, where=where, headers=headers, key_env=key_env
        )
    detail = redact(str(exc), secrets)[:_MESSAGE_LIMIT]
    if isinstance(exc, sdk.APIError):  # e.g. a reply the SDK could not read
        return ServerError(f"{backend} backend: bad reply from {where}: {detail}")
    return FatalBackendError(f"{backend} backend: {type(exc).__name__}: {detail}")
