"""The OpenAI-compatible HTTP backend: OpenAI itself, vLLM, Ollama, llama.cpp, SGLang, ...

Two transports with the same requests, replies and errors: the ``openai`` SDK, and
the lean client (:mod:`._lean_http`), which ``"auto"`` picks for a ``base_url`` no
proxy applies to. Neither is imported or opens anything before the first call.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Unpack

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import BackendError, ConfigError, CutAtCap, FatalBackendError
from fairjudge._redact import redact
from fairjudge.backends._capabilities import (
    EMPTY_AT_CAP_LIMIT,
    Capabilities,
    Change,
    Knowledge,
    apply_changes,
    capabilities_for,
    check_output_ceiling,
    checked_effort,
    fold_system,
    lesson,
    reasoning_room,
)
from fairjudge.backends._http_base import (
    LABEL_MAX_TOKENS,
    REPLY_MAX_TOKENS,
    HTTPBackend,
    HTTPOptions,
)
from fairjudge.backends._http_errors import MESSAGE_LIMIT, error_from_status, server_message
from fairjudge.backends._openai_wire import (
    completion_from_reply,
    error_detail,
    error_message,
    finish_reason,
    lean_applies,
    request_head,
)

if TYPE_CHECKING:
    import asyncio

    from fairjudge.backends._lean_http import LeanHTTPClient

__all__ = ["OpenAIBackend", "Transport"]

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
        ConfigError: ``base_url`` is the OpenAI API and ``api_key_env`` is not set,
            ``transport`` is unknown, or ``max_tokens`` is above what the model writes.

    Requests follow the capability table (:mod:`fairjudge.backends._capabilities`):
    a reasoning model (gpt-5*, o1*, o3*, o4*) gets ``max_completion_tokens`` with room
    to reason, no temperature and no logprobs; a ``reasoning_effort`` the model is
    known not to take (each takes some of ``none``, ``minimal``, ``low``, ``medium``,
    ``high``, ``xhigh``), or a model Chat Completions does not serve (o1-pro, o3-pro,
    the gpt-5 pro and codex models), is refused here, before any call, and so is a
    ``max_tokens`` above the model's output ceiling (gpt-4o 16,384, gpt-4.1 32,768,
    o3 100,000, gpt-5 128,000, ...), when the calls go to the OpenAI API itself
    (:attr:`at_vendor`); another server answers for the model it serves under the
    name. o1-mini and o1-preview take no system message: its text opens the user turn
    instead, at any server.

    Learning from refusals: when the server refuses a parameter (a 400 or 422 whose
    ``param``/``code`` name it, or a 400, 403 or 422 whose message mentions logprobs),
    the call is sent
    again with the parameter renamed (``max_tokens`` to ``max_completion_tokens``) or
    dropped (``temperature``, ``top_p``, the logprob fields), and this backend keeps
    the change for the rest of its life. Calls of a model the table does not know go
    to the server one at a time (each in turn the *probe*) until one is answered, so
    the run pays each refusal once; a probe that fails, times out or is cancelled
    hands the turn to the next call in line. The cache key still holds the
    parameters of :meth:`default_params`, so keys do not change in the middle of a
    run, and a rerun is served from the store; :meth:`request_body` is what is sent.
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
        reasoning_effort: str | None = None,
        **options: Unpack[HTTPOptions],
    ) -> None:
        super().__init__(model, sdk=None, **options)  # the SDK, if needed, loads on first use
        self._logprobs = logprobs
        self._top_logprobs = top_logprobs
        self._caps = capabilities_for("openai", model, reasoning_effort)
        # The table's refusals are the OpenAI API's: another server may serve another
        # model under this name, so there its own reply stands (see at_vendor).
        self._effort = checked_effort(model, self._caps, reasoning_effort, vendor=self.at_vendor)
        # A temperature given for a model that samples at 1 only: refused at the API, as
        # the command line refuses it; elsewhere sent as asked (default_params).
        self._given_temperature = "temperature" in options
        asked = self._given_temperature and self._temperature not in (None, 1)
        if self.at_vendor:
            check_output_ceiling(model, self._caps, self._max_tokens)
            if self._caps.stochastic and asked:
                self._caps.refuse_temperature(f"openai/{model}", self._temperature or 0.0)
        # What refused requests taught this run (by parameter), shared by its calls.
        self._changes: dict[str, Change] = {}
        self._refused = 0
        self._empty_at_cap = 0
        # An unknown model's calls wait in line behind its probe (see _probing) until the
        # server answers one; then the parameters it asked are known to be taken.
        self._probe: _Probe | None = None
        self._accepted: frozenset[str] = frozenset()
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
        if self._transport == "lean":  # a bad URL, pool size or key is refused now
            url = self._base_url or f"https://{self.default_host}/v1"
            self._open_lean = _lean_opener(url, key, self._timeout, self._max_connections)
        else:  # the key waits in this closure, not on the object, until the first call
            sdk_key = key or "no-key"
            self._open_sdk_client: Callable[[Any], Any] = lambda cls: self._sdk_client(cls, sdk_key)

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(model={self._model!r}, base_url={self._shown_url!r}, "
            f"transport={self._transport!r})"
        )

    def _settings(self) -> dict[str, Any]:
        # The transport as resolved here, so a copy in another process talks the same way;
        # a temperature only when given, so a copy refuses and sends what this one does.
        settings = {
            **super()._settings(),
            "logprobs": self._logprobs,
            "top_logprobs": self._top_logprobs,
            "transport": self._transport,
            "reasoning_effort": self._effort,
        }
        if not self._given_temperature:
            del settings["temperature"]
        return settings

    @property
    def transport(self) -> Literal["sdk", "lean"]:
        """The transport in use: ``"auto"`` resolved at construction."""
        return self._transport

    @property
    def sends_logprobs(self) -> bool:
        """False once the server refused logprobs, or when the model takes none."""
        return self._caps.logprobs and "logprobs" not in self._changes

    @property
    def capabilities(self) -> Capabilities:
        """The capability table's row for this model (see :mod:`._capabilities`)."""
        return self._caps

    @property
    def fixed_temperature(self) -> float | None:
        """1.0 for a model that samples at temperature 1 only (its replies are samples)."""
        return 1.0 if self._caps.stochastic else None

    @property
    def changes(self) -> list[str]:
        """What refused requests taught this run, one line each (empty: nothing)."""
        return [change.describe() for change in self._changes.values()]

    @property
    def lessons(self) -> list[str]:
        """The same, a few words each (``sent max_completion_tokens instead of max_tokens``)."""
        return [change.short() for change in self._changes.values()]

    @property
    def refused(self) -> int:
        """Requests the server refused for a parameter, then sent again without it."""
        return self._refused

    @property
    def knowledge(self) -> Knowledge:
        """What this copy learned: its changes, and the parameters an answer showed taken.

        For another copy of the same backend (another Ray worker's) to
        :meth:`learn_from`; empty for a model the capability table knows.
        """
        return Knowledge(tuple(self._changes.values()), self._accepted)

    def learn_from(self, knowledge: Knowledge) -> None:
        """Take in what another copy learned, so its refusals are not paid again here.

        A call asking only parameters ``knowledge`` shows taken goes at once, with its
        changes applied, instead of probing. Counts no refusal: the other copy did.
        """
        for change in knowledge.changes:
            self._changes.setdefault(change.param, change)
        self._accepted = self._accepted | knowledge.accepted

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """Sampling parameters as the capability table says the model takes them.

        A reasoning model (gpt-5*, o1*, o3*, o4*) gets ``max_completion_tokens`` with
        room for its hidden reasoning (:func:`reasoning_room` of the effort) on top of
        the label's or reply's own cap, no temperature (it samples at 1, the only value
        it takes: :attr:`fixed_temperature`), no logprobs, and the ``reasoning_effort``
        asked for. Any other model: as :class:`HTTPBackend` builds
        them, and the effort when one was asked for.
        """
        if self._caps.family != "openai-reasoning":
            chat = super().default_params(label_only=label_only)
            if self._effort is not None:
                chat["reasoning_effort"] = self._effort
            return chat
        visible = LABEL_MAX_TOKENS if label_only else REPLY_MAX_TOKENS
        params: dict[str, Any] = {
            "max_completion_tokens": self._max_tokens
            or visible + reasoning_room(self._effort, self._caps.default_effort),
        }
        # A temperature at none (gpt-5.1 and later: 0 unless given, as for a chat model);
        # else none, as these models sample at 1 only and some (o1-mini, o3-mini) refuse
        # the field even at 1, but one given here at another server (sent as asked).
        given = self._given_temperature and self._temperature != 1
        if self._temperature is not None and (self._caps.temperature or given):
            params["temperature"] = self._temperature
        if self._effort is not None:
            params["reasoning_effort"] = self._effort
        if label_only:  # logprobs at none (gpt-5.1 and later): none for the others
            params.update(self._label_params())
        params.update(self._extra_params)
        return params

    def _label_params(self) -> dict[str, Any]:
        # The first token's top logprobs are the label's distribution.
        if not self._logprobs or not self._caps.logprobs:
            return {}
        return {"logprobs": True, "top_logprobs": self._top_logprobs}

    def sent_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` as they go on the wire now, what refusals taught applied."""
        return apply_changes(params, self._changes)

    def request_body(self, spec: CallSpec) -> dict[str, Any]:
        """The JSON body of the chat-completions request this backend sends for ``spec``.

        What the run has learned so far applies (a parameter the server refused is
        renamed or dropped, see :func:`lesson`), so the body is exactly what goes on
        the wire now; the same body is an OpenAI Batch API request line's ``body``.
        """
        messages = list(spec.messages) if self._caps.system else fold_system(list(spec.messages))
        return {
            **apply_changes(spec.params, self._changes),
            "model": spec.model,
            "messages": [{"role": role, "content": content} for role, content in messages],
        }

    async def complete(self, spec: CallSpec) -> Completion:
        """Send one chat completion and return its reply.

        For a model the capability table does not know, calls go one at a time
        until the server answers one (:meth:`_probing`), so that what their refusals
        teach (one refused request per parameter the model does not take) is learned
        once for the run, not once per call in flight.

        Raises:
            RateLimitError: 429; ``retry_after`` from the ``Retry-After`` header.
            BackendTimeout: No reply within ``timeout``.
            EndpointUnreachable: Nothing answered at ``base_url`` (connection refused,
                unknown host, no route).
            ServerError: 5xx, a connection that failed mid-exchange, or a reply
                without text.
            AuthenticationError: 401/403.
            RequestRejected: 400/413/422 for this request only; a reply that used
                its whole cap on reasoning and said nothing is its :class:`CutAtCap`,
                which carries the billed reply (the message says what to raise).
            FatalBackendError: 404, a parameter the model refuses that cannot be
                dropped (``reasoning_effort``), or the third reply empty at its cap.
        """
        if self._caps.known or self._accepted.issuperset(spec.params):
            return await self._learning(spec)
        return await self._probing(spec)

    async def _probing(self, spec: CallSpec) -> Completion:
        """An unknown model's call whose parameters no answer has shown the server takes.

        Such calls wait in line (a FIFO lock) and each in turn goes alone, the probe,
        until one is answered: then every parameter it asked is known to be taken and
        the calls behind it go at once. A probe that fails (a timeout, a 5xx, a lost
        connection, a 400 about something else) or is cancelled teaches nothing, so
        the next call in line probes in its place, sending what was learned so far:
        each refusal is still paid once. A call cancelled while in line leaves it. A
        probe's :class:`FatalBackendError` (a bad key, an unknown model, a refused
        ``reasoning_effort``) would meet every call alike: the calls in line fail with
        it, unsent.
        """
        import asyncio  # here: a run the store answers whole needs no event loop

        loop = asyncio.get_running_loop()
        probe = self._probe
        if probe is None or probe.loop is not loop:  # a lock serves one event loop
            probe = self._probe = _Probe(loop, asyncio.Lock())
        async with probe.lock:
            if probe.fatal is not None:
                error = copy.copy(probe.fatal)
                error.requests = 0
                raise error
            if not self._accepted.issuperset(spec.params):
                try:
                    completion = await self._learning(spec)
                except FatalBackendError as exc:
                    probe.fatal = exc
                    raise
                self._accepted = self._accepted.union(spec.params)
                return completion
        return await self._learning(spec)  # a probe ahead of this call was answered

    async def _learning(self, spec: CallSpec) -> Completion:
        """The call, sent again after each refusal that teaches a change."""
        if self._empty_at_cap >= EMPTY_AT_CAP_LIMIT:
            stop = self._naming(FatalBackendError(self._cap_advice(spec, stopped=True)))
            stop.requests = 0  # not sent: the run counts no request and keeps no row
            raise stop
        refused = 0
        while True:
            body = self.request_body(spec)
            try:
                completion = await self._send(spec, body)
            except _Refused as exc:
                refused += exc.sends
                if not self._learn(exc, body):
                    exc.error.requests = refused
                    raise exc.error from None
                self._refused += 1
                continue
            except BackendError as exc:
                exc.requests += refused
                raise
            if refused:
                completion = dataclasses.replace(completion, requests=completion.requests + refused)
            return completion

    def _learn(self, refusal: _Refused, body: Mapping[str, Any]) -> bool:
        """Take in what a refusal teaches; whether the call can go again."""
        changes = lesson(refusal.status, refusal.detail, refusal.message, body)
        if not changes:
            return False
        import logging  # only for these lines

        log = logging.getLogger("fairjudge.backends.openai")
        for change in changes:
            if change.param in self._changes:  # a call in flight learned it first
                continue
            if change.to == "max_completion_tokens" and self._max_tokens is None:
                # The server asks for the reasoning models' cap: leave room to reason.
                room = reasoning_room(self._effort, self._caps.default_effort)
                change = dataclasses.replace(change, add=room)
            self._changes[change.param] = change
            log.warning(
                "openai/%s at %s %s",
                self._model,
                self._shown_url or self.default_host,
                change.describe(),
            )
        return True

    async def _send(self, spec: CallSpec, body: dict[str, Any]) -> Completion:
        if self._open_lean is not None:
            if self._lean is None:
                self._lean = self._open_lean()
            return await self._complete_lean(self._lean, spec, body)
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
            # against the TypedDict annotations and costs ~20% of a call's CPU. The reply
            # comes back as the JSON the server sent (cast_to=object): the SDK's model
            # would coerce usage ("12" -> 12, false -> 0) before fairjudge could check it.
            reply = await client.post("/chat/completions", body=body, cast_to=object)
        except openai.APIStatusError as exc:
            error = self._translate(exc)
            detail = exc.body if isinstance(exc.body, Mapping) else None
            self._refusal(exc.status_code, detail, server_message(exc), 1, error)
            raise error from exc
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc
        except ValueError as exc:  # the SDK lets json.JSONDecodeError through on a bad body
            raise self._not_json() from exc
        latency = time.perf_counter() - start
        # One reader for both transports: the SDK's object goes back to the server's
        # JSON fields (only those the server set), so the two paths cannot drift apart.
        data = reply.to_dict() if isinstance(reply, ChatCompletion) else reply
        return self._read(data, latency, spec)

    async def _complete_lean(
        self, client: LeanHTTPClient, spec: CallSpec, body: dict[str, Any]
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
            message = redact(error_message(response.body), self._secrets())[:MESSAGE_LIMIT]
            error = error_from_status(
                status,
                message,
                backend=self.name,
                where=self._where,
                headers=response.headers,
                key_env=self._api_key_env,
            )
            self._refusal(status, error_detail(response.body), message, response.sends, error)
            raise _sent(error, response.sends)
        try:
            reply = json.loads(response.body)
        except ValueError as exc:
            raise _sent(self._not_json(), response.sends) from exc
        try:
            completion = self._read(reply, latency, spec)
        except BackendError as exc:  # no choices, no text
            exc.requests = response.sends
            raise
        if response.sends > 1:  # a transparent resend: the server may have seen both
            completion = dataclasses.replace(completion, requests=response.sends)
        return completion

    def _refusal(
        self,
        status: int,
        detail: Mapping[str, Any] | None,
        message: str,
        sends: int,
        error: BackendError,
    ) -> None:
        """Raise :class:`_Refused` for a 400/422 about a parameter; else return.

        A parameter refusal the run cannot learn from (the parameter is asked for on
        purpose, e.g. ``reasoning_effort``) fails every call alike, so it is a
        :class:`FatalBackendError` that stops the run.
        """
        about_logprobs = "logprob" in message.lower()
        # o4-mini refuses logprobs with a 403 and no param: "You are not allowed to
        # request logprobs from this model" (https://github.com/confident-ai/deepeval/pull/2184).
        if status not in (400, 422) and not (status == 403 and about_logprobs):
            return
        code = detail.get("code") if detail else None
        # gpt-5.2's refusal of a temperature has code null (_capabilities, "sampling at none")
        unsupported = code in ("unsupported_parameter", "unsupported_value") or (
            code is None and message.startswith("Unsupported parameter")
        )
        if unsupported or about_logprobs:
            if unsupported:  # every call sends it: unless it can be dropped, stop the run
                error = FatalBackendError(str(error))
            raise _Refused(status, detail, message, sends, _sent(error, sends))

    def _read(self, data: Any, latency: float, spec: CallSpec) -> Completion:
        """The completion of a reply; an empty reply cut at its cap is an error.

        Such a reply is billed (its usage says how much): the error carries it
        (:class:`CutAtCap`), so the run charges it though it has no answer.
        """
        completion = completion_from_reply(data, latency, self._where)
        if not completion.text.strip() and finish_reason(data) == "length":
            self._empty_at_cap += 1
            cut = CutAtCap(self._cap_advice(spec, stopped=False), completion)
            raise self._naming(cut)
        return completion

    def _cap_advice(self, spec: CallSpec, *, stopped: bool) -> str:
        """What to change, in the parameters' own names (the CLI shows them as flags)."""
        body = self.request_body(spec)
        name = next((n for n in ("max_completion_tokens", "max_tokens") if n in body), None)
        cap = f"{body[name]} tokens" if name else "the server's default cap"
        head = (
            f"openai backend: {self._where}: stopped after {EMPTY_AT_CAP_LIMIT} replies that "
            "spent their whole token cap before any text; no more calls are sent"
            if stopped
            else f"openai backend: {self._where}: the reply spent its whole cap ({cap}) "
            "before any text (finish_reason 'length'); the provider bills those tokens"
        )
        if not self._reasons:
            return f"{head}; raise max_tokens (now {cap}) so the model has room to answer"
        return (
            f"{head}; raise max_tokens (now {cap}) or lower reasoning_effort, "
            "so the model has room to reason and then answer"
        )

    @property
    def _reasons(self) -> bool:
        """Whether the model reasons before it answers (so ``reasoning_effort`` helps)."""
        if self._caps.family == "openai-reasoning" or self._effort is not None:
            return True
        # An unknown model the server asked for the reasoning models' cap reasons too.
        return any(change.to == "max_completion_tokens" for change in self._changes.values())

    def _naming(self, error: BackendError) -> BackendError:
        """``error``, naming the parameters its advice names (the CLI shows them as flags)."""
        error.params = ("max_tokens", "reasoning_effort") if self._reasons else ("max_tokens",)
        return error

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


def _lean_opener(
    url: str, key: str | None, timeout: float, connections: int
) -> Callable[[], LeanHTTPClient]:
    """What opens the lean client at ``url`` at the first call; the head is checked now.

    A bad URL, pool size or key is refused here, when the backend is made. The
    organization and project headers are read as the SDK reads them. The key waits in
    the closure until the first call (the client alone holds it then).
    """
    named = {"OpenAI-Organization": "OPENAI_ORG_ID", "OpenAI-Project": "OPENAI_PROJECT_ID"}
    headers = {name: os.environ[env] for name, env in named.items() if os.environ.get(env)}
    request_head(url, api_key=key, headers=headers, max_connections=connections)

    def open_lean() -> LeanHTTPClient:
        from fairjudge.backends._lean_http import LeanHTTPClient

        return LeanHTTPClient(
            url, api_key=key, headers=headers, timeout=timeout, max_connections=connections
        )

    return open_lean


def _sent(error: BackendError, sends: int) -> BackendError:
    """``error``, counting the ``sends`` requests it took (at least the one attempt)."""
    error.requests = max(sends, 1)
    return error


@dataclasses.dataclass(slots=True)
class _Probe:
    """The line of an unknown model's calls behind its probe, on one event loop."""

    loop: asyncio.AbstractEventLoop
    lock: asyncio.Lock
    fatal: FatalBackendError | None = None  # a probe's error that every call would meet


@dataclasses.dataclass(slots=True)
class _Refused(Exception):
    """A 400/422 about a parameter, for :meth:`OpenAIBackend._learning` to learn from.

    ``error`` is what the call raises when the refusal teaches nothing.
    """

    status: int
    detail: Mapping[str, Any] | None
    message: str
    sends: int
    error: BackendError
