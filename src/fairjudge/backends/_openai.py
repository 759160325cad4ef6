"""The OpenAI-compatible HTTP backend: OpenAI itself, vLLM, Ollama, llama.cpp, SGLang, ...

Two transports, chosen by ``transport=``, with the same requests, replies and errors:

- ``"sdk"``: the official ``openai`` SDK's :class:`openai.AsyncOpenAI`, with the SDK's
  own retries off (the runner retries, with backoff that honours ``Retry-After``).
  SDK exceptions are translated here, at the boundary, into the
  :class:`fairjudge.BackendError` tree, with messages scrubbed of the key.
- ``"lean"``: :class:`~fairjudge.backends._lean_http.LeanHTTPClient`, a plain asyncio
  HTTP/1.1 keep-alive client. The SDK costs 13-20 ms of CPU per call, which on a small
  machine caps a run at about half the rate the server allows at concurrency 64; the
  lean client costs under 1 ms. Status codes go through the same
  :func:`error_from_status`, with the same logprob fallback, ``Retry-After`` handling
  and key scrubbing, and the reply is read field by field as the SDK path reads it.
- ``"auto"`` (the default): lean for an ``http(s)://`` ``base_url`` that no proxy
  variable (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, either case, minus
  ``NO_PROXY``) applies to; the SDK otherwise, and for the OpenAI API itself
  (no ``base_url``), where the SDK's own headers and behaviour are the reference.

HTTP status codes, SDK exceptions and failed connections map onto the error tree in
:mod:`fairjudge.backends._http_errors`, and configuration is read as in
:class:`~fairjudge.backends._http_base.HTTPBackend`, both shared with the Anthropic
backend.

Neither transport opens anything before the first call, and each is imported only
then: the SDK (about a second), or the lean client (asyncio, ssl and the proxy
machinery, about 0.05 s). A run the store answers entirely imports neither, nor
opens a connection.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, Unpack

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import BackendError, ConfigError
from fairjudge._redact import redact
from fairjudge.backends._http_base import HTTPBackend, HTTPOptions
from fairjudge.backends._http_errors import MESSAGE_LIMIT, error_from_status, server_message
from fairjudge.backends._lean_head import lean_applies, request_head
from fairjudge.backends._openai_reply import completion_from_reply, error_message

if TYPE_CHECKING:
    from fairjudge.backends._lean_http import LeanHTTPClient

__all__ = ["OpenAIBackend", "Transport"]


_LOGPROB_KEYS = ("logprobs", "top_logprobs")

Transport = Literal["auto", "sdk", "lean"]
"""How :class:`OpenAIBackend` talks HTTP; see the module docstring."""


class OpenAIBackend(HTTPBackend):
    """A judge behind an OpenAI-compatible chat-completions endpoint.

    Args:
        model: The model name the server knows, e.g. ``"gpt-4o-mini"``.
        logprobs: Ask for the label token's log-probabilities (label-only calls).
        top_logprobs: How many alternatives to ask for (OpenAI allows up to 20).
        transport: ``"sdk"`` (the ``openai`` SDK), ``"lean"`` (a plain asyncio
            HTTP/1.1 client, about 20 times less CPU per call) or ``"auto"``: lean for
            an ``http(s)`` ``base_url`` that no proxy variable applies to, else the SDK.
        **options: The :class:`~fairjudge.backends._http_base.HTTPOptions`:
            ``base_url`` (e.g. ``"http://localhost:8000/v1"`` for vLLM; default
            ``$OPENAI_BASE_URL``, else api.openai.com; part of the cache key),
            ``api_key_env`` (default ``OPENAI_API_KEY``, read once, here; may be unset
            for a server at ``base_url`` that needs no key), ``timeout`` (60 s),
            ``temperature`` (0), ``max_tokens`` (8 for label-only calls, else 1024),
            ``extra_params`` (sent as given and part of the cache key, e.g.
            ``{"seed": 0}`` or vLLM's ``{"top_k": 1}``), ``max_connections`` (512: the
            keep-alive pool; calls beyond it wait for a connection, so it is also
            :attr:`max_concurrency`).

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
    default_host = "api.openai.com"
    base_url_env = "OPENAI_BASE_URL"
    default_key_env = "OPENAI_API_KEY"

    def __init__(
        self,
        model: str,
        *,
        logprobs: bool = True,
        top_logprobs: int = 20,
        transport: Transport = "auto",
        **options: Unpack[HTTPOptions],
    ) -> None:
        super().__init__(model, sdk=None, **options)  # the SDK, if needed, loads on first use
        self._logprobs = logprobs
        self._top_logprobs = top_logprobs
        self._send_logprobs = True
        key = self._read_key()
        if key is None and self._base_url is None:
            raise ConfigError(
                f"the openai backend needs an API key: set ${self._api_key_env}, or pass "
                "base_url for a server that needs none",
                params="base_url",
            )
        if transport not in ("auto", "sdk", "lean"):
            raise ConfigError(f"transport must be 'auto', 'sdk' or 'lean', got {transport!r}")
        self._transport: Literal["sdk", "lean"] = (
            transport if transport != "auto" else "lean" if lean_applies(self._base_url) else "sdk"
        )
        # The key lives only inside the client (neither prints it). The SDK insists on
        # a key, so servers that need none get a placeholder there; lean sends none.
        self._lean: LeanHTTPClient | None = None
        self._open_lean: Callable[[], LeanHTTPClient] | None = None
        if self._transport == "lean":
            headers = {
                name: value
                for name, env in (
                    ("OpenAI-Organization", "OPENAI_ORG_ID"),  # as the SDK reads them
                    ("OpenAI-Project", "OPENAI_PROJECT_ID"),
                )
                if (value := os.environ.get(env))
            }
            url = self._base_url or f"https://{self.default_host}/v1"
            timeout, connections = self._timeout, self._max_connections
            # A bad URL, pool size or key is refused now, not at the first call.
            request_head(url, api_key=key, headers=headers, max_connections=connections)

            def open_lean() -> LeanHTTPClient:  # the key waits here until the first call
                from fairjudge.backends._lean_http import LeanHTTPClient

                return LeanHTTPClient(
                    url, api_key=key, headers=headers, timeout=timeout,
                    max_connections=connections,
                )  # fmt: skip

            self._open_lean = open_lean
        else:  # the key waits in this closure, not on the object, until the first call
            sdk_key = key or "no-key"
            self._open_sdk_client: Callable[[Any], Any] = lambda cls: self._sdk_client(cls, sdk_key)

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(model={self._model!r}, base_url={self._base_url!r}, "
            f"transport={self._transport!r})"
        )

    def _settings(self) -> dict[str, Any]:
        # The transport as resolved here, so a copy in another process talks the same way.
        return {
            **super()._settings(),
            "logprobs": self._logprobs,
            "top_logprobs": self._top_logprobs,
            "transport": self._transport,
        }

    @property
    def transport(self) -> Literal["sdk", "lean"]:
        """The transport in use: ``"auto"`` resolved at construction."""
        return self._transport

    @property
    def sends_logprobs(self) -> bool:
        """False once the server rejected a logprob request (see the class docstring)."""
        return self._send_logprobs

    def _label_params(self) -> dict[str, Any]:
        # The first token's top logprobs are the label's distribution.
        if not self._logprobs:
            return {}
        return {"logprobs": True, "top_logprobs": self._top_logprobs}

    def request_body(self, spec: CallSpec) -> dict[str, Any]:
        """The JSON body of the chat-completions request this backend sends for ``spec``.

        What the run has learned so far applies (a server that refused logprobs gets
        none), so the body is exactly what goes on the wire now; the same body is an
        OpenAI Batch API request line's ``body``.
        """
        params = spec.params
        if not self._send_logprobs:
            params = {k: v for k, v in params.items() if k not in _LOGPROB_KEYS}
        return {
            **params,
            "model": spec.model,
            "messages": [{"role": role, "content": content} for role, content in spec.messages],
        }

    async def complete(self, spec: CallSpec) -> Completion:
        """Send one chat completion and return its reply.

        Raises:
            RateLimitError: 429; ``retry_after`` from the ``Retry-After`` header.
            BackendTimeout: No reply within ``timeout``.
            EndpointUnreachable: Nothing answered at ``base_url`` (connection refused,
                unknown host, no route).
            ServerError: 5xx, a connection that failed mid-exchange, or a reply
                without text.
            AuthenticationError: 401/403.
            FatalBackendError: 400/404/422 and other client errors.
        """
        sends_logprobs = self._send_logprobs and any(k in spec.params for k in _LOGPROB_KEYS)
        body = self.request_body(spec)
        if self._open_lean is not None:
            if self._lean is None:
                self._lean = self._open_lean()
            return await self._complete_lean(self._lean, spec, body, sends_logprobs)
        import openai  # here, not at the top: it takes about a second to import
        from openai.types.chat import ChatCompletion

        if self._client is None:
            self._sdk = openai
            self._client = self._open_sdk_client(openai.AsyncOpenAI)
        client: openai.AsyncOpenAI = self._client
        start = time.perf_counter()
        try:
            # client.post (the SDK's documented way to call any endpoint) keeps its
            # auth, headers, timeouts and error classes, but skips the per-field
            # transform of `chat.completions.create`, which walks every message
            # against the TypedDict annotations and costs ~20% of a call's CPU.
            reply = await client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        except openai.APIStatusError as exc:
            if sends_logprobs and _rejects_logprobs(exc.status_code, server_message(exc)):
                self._stop_logprobs(exc.status_code)
                return await self._again(spec, sent=1)
            raise self._translate(exc) from exc
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc
        except ValueError as exc:  # the SDK lets json.JSONDecodeError through on a bad body
            raise self._not_json() from exc
        latency = time.perf_counter() - start
        # One reader for both transports: the SDK's object goes back to the server's
        # JSON fields (only those the server set), so the two paths cannot drift apart.
        data = reply.to_dict() if isinstance(reply, ChatCompletion) else reply
        return completion_from_reply(data, latency, self._where)

    async def _complete_lean(
        self, client: LeanHTTPClient, spec: CallSpec, body: dict[str, Any], sends_logprobs: bool
    ) -> Completion:
        from fairjudge.backends._lean_http import LeanTransportError

        start = time.perf_counter()
        # Every failure says how often the request went on the wire: the client resends
        # once on a kept-alive socket found closed (the server may have read the first),
        # and the runner counts each request, as the server does.
        try:
            response = await client.post("/chat/completions", json.dumps(body).encode())
        except TimeoutError as exc:
            raise _sent(self._timed_out(), getattr(exc, "sends", 1)) from exc
        except LeanTransportError as exc:
            raise _sent(self._connection_failed(exc, str(exc)), exc.sends) from exc
        latency = time.perf_counter() - start
        status = response.status
        if not 200 <= status < 300:
            message = redact(error_message(response.body), [client.api_key])[:MESSAGE_LIMIT]
            if sends_logprobs and _rejects_logprobs(status, message):
                self._stop_logprobs(status)
                return await self._again(spec, sent=response.sends)
            error = error_from_status(
                status,
                message,
                backend=self.name,
                where=self._where,
                headers=response.headers,
                key_env=self._api_key_env,
            )
            raise _sent(error, response.sends)
        try:
            reply = json.loads(response.body)
        except ValueError as exc:
            raise _sent(self._not_json(), response.sends) from exc
        try:
            completion = completion_from_reply(reply, latency, self._where)
        except BackendError as exc:  # no choices, no text
            exc.requests = response.sends
            raise
        if response.sends > 1:  # a transparent resend: the server may have seen both
            completion = dataclasses.replace(completion, requests=response.sends)
        return completion

    async def _again(self, spec: CallSpec, *, sent: int) -> Completion:
        """The call once more, without logprobs, counting the ``sent`` refused requests.

        The server answered the request that asked for logprobs (with a 400), so it is
        a request made, and the retry's reply or error carries it in ``requests``.
        """
        try:
            completion = await self.complete(spec)
        except BackendError as exc:
            exc.requests += sent
            raise
        return dataclasses.replace(completion, requests=completion.requests + sent)

    def _stop_logprobs(self, status: int) -> None:
        # Calls already in flight with logprobs get the same answer: each retries
        # once, and only the first one logs.
        if self._send_logprobs:
            self._send_logprobs = False
            import logging  # only for this warning

            logging.getLogger("fairjudge.backends.openai").warning(
                "%s rejected logprobs (HTTP %d); judging with labels only from now on",
                self._base_url or "the OpenAI API",
                status,
            )

    @property
    def opened(self) -> bool:
        """Whether either transport's client (made by the first call) is there to close."""
        return super().opened or self._lean is not None

    def _secrets(self) -> list[str | None]:
        return [*super()._secrets(), self._lean.api_key if self._lean is not None else None]

    async def aclose(self) -> None:
        """Close the connection pool."""
        await super().aclose()
        if self._lean is not None:
            await self._lean.aclose()


def _sent(error: BackendError, sends: int) -> BackendError:
    """``error``, counting the ``sends`` requests it took (at least the one attempt)."""
    error.requests = max(sends, 1)
    return error


def _rejects_logprobs(status: int, message: str) -> bool:
    """Whether an error reply refuses the request for asking for logprobs."""
    return status in (400, 422) and "logprob" in message.lower()
