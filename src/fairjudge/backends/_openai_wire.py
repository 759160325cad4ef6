"""The OpenAI-compatible exchange as bytes and JSON: the request head and the reply read.

:func:`request_head` checks the lean client's configuration when a backend is made (a
bad URL or a key HTTP cannot send is a usage error before any call) and builds the
fixed part of every request; the client itself (``_lean_http``) loads with the first
call. Both transports and the batch client read a reply through
:func:`completion_from_reply` (the SDK path turns its object back into the fields the
server sent), so they give the same completion and the same errors.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fairjudge._call import Completion
from fairjudge._errors import ConfigError, ServerError
from fairjudge._redact import known_secrets, redact_url
from fairjudge.backends._http_base import openai_usage, trimmed

__all__ = [
    "RequestHead",
    "completion_from_reply",
    "error_detail",
    "error_message",
    "finish_reason",
    "lean_applies",
    "request_head",
]


@dataclass(frozen=True, slots=True)
class RequestHead:
    """Where requests go and the header lines every one carries.

    Attributes:
        base_url: The URL without a trailing slash, credentials masked: for messages.
        host: The host to connect to.
        port: Its port.
        https: Whether to speak TLS.
        prefix: The URL's path, prepended to every request path.
        query: The URL's query with its ``?`` (``"?api-version=2024-10-21"``), appended
            to every request path, as given; ``""`` when it has none.
        headers: The fixed header lines, ``Authorization`` included (never shown).
    """

    base_url: str
    host: str
    port: int
    https: bool
    prefix: str
    query: str = field(default="", repr=False)  # it may carry a key: never shown
    headers: bytes = field(default=b"", repr=False)


def request_head(
    base_url: str,
    *,
    api_key: str | None,
    headers: Mapping[str, str] | None,
    max_connections: int,
) -> RequestHead:
    """Check the URL, the pool size and the headers; build the fixed part of every request.

    The checks run in the order the client always made them, so a configuration with
    two faults names the same one first.

    Raises:
        ConfigError: The URL is not ``http(s)``, ``max_connections`` is below 1, the
            URL's path or query is not ASCII, or a header value cannot be sent (named,
            never shown: it may be the key). A URL in a message has its credentials
            masked.
    """
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            "the lean HTTP transport needs an http:// or https:// base URL, "
            f"got {redact_url(base_url, known_secrets())!r}"
        )
    if max_connections < 1:
        raise ConfigError(f"max_connections must be at least 1, got {max_connections}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    prefix = parts.path.rstrip("/")
    if not prefix.isascii() or not parts.query.isascii():
        shown = redact_url(base_url, known_secrets())
        raise ConfigError(
            f"the base URL's path and query must be ASCII (percent-encoded): {shown!r}"
        )
    host = parts.netloc.rpartition("@")[2]  # never send userinfo in Host
    fixed = {
        "Host": host,
        "User-Agent": "fairjudge",
        "Accept": "application/json",
        "Accept-Encoding": "identity",
        "Content-Type": "application/json",
        **(headers or {}),
    }
    if api_key is not None:
        fixed["Authorization"] = f"Bearer {api_key}"
    lines = []
    for name, value in fixed.items():
        if any(c in value for c in "\r\n\0") or not value.isascii():
            # The value may be the key: name the header, never show the value.
            raise ConfigError(f"the {name} header value has characters HTTP cannot send")
        lines.append(f"{name}: {value}\r\n")
    return RequestHead(
        base_url=redact_url(trimmed(base_url), known_secrets()),
        host=parts.hostname,
        port=port,
        https=parts.scheme == "https",
        prefix=prefix,
        query=f"?{parts.query}" if parts.query else "",
        headers="".join(lines).encode("ascii"),
    )


def lean_applies(base_url: str | None) -> bool:
    """Whether ``transport="auto"`` picks the lean client for ``base_url``.

    Yes for an ``http(s)://`` URL that no proxy variable (``HTTP_PROXY``,
    ``HTTPS_PROXY``, ``ALL_PROXY``, either case, minus ``NO_PROXY``) applies to: the
    SDK's HTTP stack speaks to proxies and this client does not. No for ``None`` (the
    OpenAI API itself), where the SDK's own headers and behaviour are the reference.
    """
    if base_url is None:
        return False
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if not any(name.lower().endswith("_proxy") for name in os.environ):
        return True  # no proxy variable at all (urllib.request, 20 ms to import, agrees)
    from urllib.request import getproxies_environment, proxy_bypass

    proxies = getproxies_environment()
    if not (proxies.get(parts.scheme) or proxies.get("all")):
        return True
    return bool(proxy_bypass(parts.hostname))  # NO_PROXY


def error_message(body: bytes) -> str:
    """The server's error text from an error reply's body (unscrubbed).

    ``{"error": {"message": ...}}`` (OpenAI, vLLM), ``{"error": "..."}`` or
    ``{"message": ...}``, else the body as text, as the SDK path reads it.
    """
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, Mapping):
        inner = data.get("error", data)
        message = inner.get("message") if isinstance(inner, Mapping) else inner
        if message:
            return str(message)
    text = body.decode("utf-8", "replace").strip()
    return text or "(empty body)"


def completion_from_reply(reply: Any, latency: float, where: str) -> Completion:
    """A :class:`Completion` from a parsed chat-completion reply.

    Mirrors the SDK path field by field: the first choice's content (else its
    refusal), the first token's top logprobs (unreadable ones are dropped, the text
    still counts), the token usage (checked as untrusted input by
    :func:`~fairjudge.backends._http_base.openai_usage`: a figure that fails is never
    used, and the completion says why) and the model the server names.

    Raises:
        ServerError: The reply has no choices, or the first has no text.
    """
    try:
        choice = reply["choices"][0]
        message = choice["message"]
        text = message.get("content")
        if text is None:
            text = message.get("refusal")
    except (AttributeError, IndexError, TypeError, KeyError) as exc:
        raise ServerError(f"openai backend: {where}: reply has no choices") from exc
    if not isinstance(text, str):
        raise ServerError(f"openai backend: {where}: reply has no text (content is null)")
    top: dict[str, float] | None = None
    try:
        logprobs = choice.get("logprobs")
        content = logprobs.get("content") if logprobs is not None else None
        if content:
            first = content[0]
            top = {alt["token"]: float(alt["logprob"]) for alt in first.get("top_logprobs") or ()}
            top.setdefault(first["token"], float(first["logprob"]))
            # NaN or +inf from a server would become a NaN probability, and none can be
            # stored as JSON (-inf is probability 0: the same as not listed).
            top = {t: lp for t, lp in top.items() if math.isfinite(lp)}
    except (AttributeError, TypeError, ValueError, KeyError):
        top = None  # unreadable logprobs: the label still counts
    model = reply.get("model")
    return Completion(
        text=text,
        top_logprobs=top or None,
        latency_s=latency,
        model=model if isinstance(model, str) else None,
        **openai_usage(reply.get("usage")).fields(),  # untrusted: checked there
    )


def error_detail(body: bytes) -> Mapping[str, Any] | None:
    """The ``error`` object of an error reply's body (``param``, ``code``, ...), if any."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    inner = data.get("error") if isinstance(data, Mapping) else None
    return inner if isinstance(inner, Mapping) else None


def finish_reason(reply: Any) -> str | None:
    """The first choice's ``finish_reason`` (``"length"``: the reply hit its cap)."""
    try:
        reason = reply["choices"][0].get("finish_reason")
    except (AttributeError, IndexError, TypeError, KeyError):
        return None
    return reason if isinstance(reason, str) else None
