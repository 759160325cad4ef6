"""The call contract: what every layer above the types agrees a judge call is.

A *call* is a rendered prompt sent to a backend; a :class:`CallSpec` holds
everything that determines the reply, and its hash is the store key. Backends know
nothing about the kind of judgment (pairwise verdicts, rubric scores, jury votes) or
the store: they turn a spec into a :class:`Completion` or raise a
:class:`fairjudge.BackendError` subclass. Parsing the completion is the judge's job,
and caching, retries and concurrency are the runner's.

Whatever holds a backend's connections, threads or model until closed (the store,
the judge session, the judges) is a :class:`Closing`, the synchronous side of
:meth:`Backend.aclose`. This module sits on the ground floor, beside the value types
and the errors, so that every layer imports it from below.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

__all__ = [
    "ROLES",
    "Backend",
    "CallSpec",
    "Closing",
    "Completion",
    "Conversation",
    "Message",
    "Route",
    "route_of",
]

Message = tuple[str, str]
"""A chat message as ``(role, content)``; roles are ``system``, ``user``, ``assistant``."""

Conversation = tuple[Message, ...]
"""A multi-turn exchange, oldest message first (an item's question may be one)."""

Route = tuple[str, str, str | None]
"""Which backend answers a call: ``(backend name, model, base_url)``."""

ROLES = ("system", "user", "assistant")
"""The roles a :data:`Message` may carry."""

# Bump when the key derivation changes, so old store rows are not mistaken for new ones.
_KEY_SCHEMA = 1

_quote = json.encoder.encode_basestring  # the C function json.dumps quotes strings with

_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
"""JSON text of one value, as ``json.dumps`` with the key's settings writes it."""


@dataclass(frozen=True, slots=True)
class CallSpec:
    """Everything that determines a judge's reply to one call.

    Attributes:
        backend: Backend kind, e.g. ``"openai"``, ``"anthropic"``, ``"local"``.
        model: Model name as the backend knows it (for local models, the model id
            plus the weights' SHA-256, so different weights never share a key).
        base_url: The server's base URL, for HTTP backends; ``None`` otherwise.
        template: Template name.
        template_version: Template version; part of the key so an edited prompt
            is never served a stale cached reply.
        messages: The rendered chat messages.
        params: Sampling parameters (temperature, max_tokens, logprobs, ...).
        sample: Sample index: repeated calls with otherwise equal specs differ here.
        kind: What the call is for (``"pairwise"``, ``"pointwise"``, ...); stored with
            the row so the audit log can be filtered, and part of the key. The
            runner and the backends never branch on it.
    """

    backend: str
    model: str
    messages: tuple[Message, ...]
    template: str
    template_version: str
    params: Mapping[str, Any] = field(default_factory=dict)
    base_url: str | None = None
    sample: int = 0
    kind: str = "pairwise"
    key: str = field(init=False, repr=False, compare=False)
    """SHA-256 of the canonical JSON: the store key and cache identity of the call.

    Computed once, when the spec is made: the session, the runner and the store all
    look calls up by it, and hashing a long prompt costs tens of microseconds.
    """

    def __post_init__(self) -> None:
        blob = self.canonical_json()
        object.__setattr__(self, "key", hashlib.sha256(blob.encode("utf-8")).hexdigest())

    def canonical_json(self) -> str:
        """:meth:`canonical` as compact JSON with sorted keys: the text hashed into the key.

        Written out field by field, which gives the same text as ``json.dumps(
        self.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
        (a test holds the two equal) at a fraction of the cost: a rerun of 10,000 calls
        makes 10,000 keys before it can look one up. Strings are quoted by the C
        function ``json.dumps`` itself uses; anything but a string where a string
        belongs goes through ``json.dumps`` whole.
        """
        q = _quote
        try:
            messages = ",".join("[" + ",".join(map(q, m)) + "]" for m in self.messages)
            head = (
                f'{{"backend":{q(self.backend)},"base_url":'
                f"{'null' if self.base_url is None else q(self.base_url)},"
                f'"kind":{q(self.kind)},"messages":[{messages}],"model":{q(self.model)},'
            )
            tail = f'"template":{q(self.template)},"template_version":{q(self.template_version)}}}'
        except TypeError:  # not a string: let json.dumps say what it makes of it
            return json.dumps(
                self.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
            )
        params = _ENCODE(dict(self.params))  # before the sample, as json.dumps meets them
        sample = str(self.sample) if type(self.sample) is int else _ENCODE(self.sample)
        return f'{head}"params":{params},"sample":{sample},"schema":{_KEY_SCHEMA},{tail}'

    def canonical(self) -> dict[str, Any]:
        """The JSON-ready form hashed into the key. Holds no credentials by construction."""
        return {
            "schema": _KEY_SCHEMA,
            "backend": self.backend,
            "model": self.model,
            "base_url": self.base_url,
            "template": self.template,
            "template_version": self.template_version,
            "messages": [list(m) for m in self.messages],
            "params": dict(sorted(self.params.items())),
            "sample": self.sample,
            "kind": self.kind,
        }

    @property
    def route(self) -> Route:
        """The backend that answers this call: ``(backend, model, base_url)``."""
        return (self.backend, self.model, self.base_url)


@dataclass(frozen=True, slots=True)
class Completion:
    """A backend's reply to one call.

    Attributes:
        text: The generated text.
        top_logprobs: For the first generated token, the alternatives the backend
            reported, as ``{token: logprob}``; ``None`` when it gave none.
        input_tokens: Prompt tokens, when reported.
        output_tokens: Completion tokens, when reported.
        latency_s: Wall time of the successful attempt.
        model: The model the server says answered, when it says.
        requests: Requests the backend sent on the wire for this reply: more than 1
            when its transport resent the request itself (a kept-alive connection
            found closed) or made it again without the logprobs the server refused,
            so rate limits and the store count every one, as the server did.
        reasoning_tokens: Of ``output_tokens``, those the model spent reasoning
            before its answer (hidden, billed as output), when reported.
        cached_input_tokens: Of ``input_tokens``, those read from the provider's
            prompt cache (billed at the cached price), when reported.
        cache_write_tokens: Of ``input_tokens``, those written to the provider's
            prompt cache (Anthropic bills them above the input price), when reported.
        usage_problem: Why the server's usage figures were not believed (a count
            that is negative, not a whole number, absurdly large, inconsistent or
            missing); ``None`` when they were. Such a call is charged its estimate.
        batch: The reply came through a provider's batch API, billed at the batch
            price (half the online one).

    Token counts follow one convention for every provider: ``input_tokens`` is the
    whole prompt, cached and cache-written tokens included (Anthropic reports those
    apart; :func:`~fairjudge.backends._http_base.anthropic_usage` adds them up), and
    ``output_tokens`` is the whole completion, reasoning included.
    """

    text: str
    top_logprobs: Mapping[str, float] | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_s: float = 0.0
    model: str | None = None
    requests: int = 1
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    usage_problem: str | None = None
    batch: bool = False


@runtime_checkable
class Backend(Protocol):
    """Anything that can answer a :class:`CallSpec`.

    Implementations raise :class:`fairjudge.RateLimitError`,
    :class:`fairjudge.BackendTimeout`, :class:`fairjudge.ServerError` (retryable) or
    :class:`fairjudge.FatalBackendError` / :class:`fairjudge.AuthenticationError`
    (stop the run). They never put a credential in a message.
    """

    @property
    def name(self) -> str:
        """Backend kind, as in :attr:`CallSpec.backend`."""
        ...

    @property
    def model(self) -> str:
        """Model id used in :attr:`CallSpec.model`."""
        ...

    @property
    def base_url(self) -> str | None:
        """Base URL used in :attr:`CallSpec.base_url`."""
        ...

    @property
    def max_concurrency(self) -> int | None:
        """An upper bound on useful concurrency (1 for an in-process model), or ``None``."""
        ...

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """Sampling parameters for a call; part of the cache key.

        Args:
            label_only: The reply is one short label (a verdict, a score), so
                ``max_tokens`` can be small and the first token's logprobs are the
                label's distribution.
        """
        ...

    async def complete(self, spec: CallSpec) -> Completion:
        """Send one call and return the reply, or raise a ``BackendError``."""
        ...

    async def aclose(self) -> None:
        """Release connections, threads or the loaded model."""
        ...


def route_of(backend: Backend) -> Route:
    """The route of a backend: the ``(name, model, base_url)`` its specs carry."""
    return (backend.name, backend.model, backend.base_url)


class Closing:
    """``with`` support for a class with a ``close()`` that is safe to call twice.

    The store, the judge session and the judges hold connections, threads or a
    loaded model; each leaves a ``with`` block by calling its own ``close()``.
    """

    def close(self) -> None:
        """Release what the object holds; subclasses override it."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
