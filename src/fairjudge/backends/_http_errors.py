"""HTTP errors, in one place for every HTTP backend.

The SDKs and the lean client all map onto the :class:`fairjudge.BackendError` tree
here, so a status means the same whichever way it arrived, and every message is
scrubbed of the key.
"""

from __future__ import annotations

import errno
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

from fairjudge._errors import (
    AuthenticationError,
    BackendError,
    BackendTimeout,
    EndpointUnreachable,
    FatalBackendError,
    RateLimitError,
    RequestRejected,
    ServerError,
)
from fairjudge._redact import redact

__all__ = [
    "MESSAGE_LIMIT",
    "connection_error",
    "error_from_status",
    "pooled_http_client",
    "retry_after_seconds",
    "server_message",
    "translate_sdk_error",
    "unreachable_reason",
]

MESSAGE_LIMIT = 500  # characters of a server's error text kept in our messages
_REJECTED = (400, 413, 422)  # about this request (too long, malformed): others may pass
# A 403 whose message names a request parameter is about the request, not the key:
# o4-mini answers logprobs with 403 "You are not allowed to request logprobs from this
# model" (https://github.com/confident-ai/deepeval/pull/2184).
_ABOUT_A_PARAMETER = re.compile(r"logprob|\bparam(eter)?s?\b", re.IGNORECASE)


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
    import email.utils  # 20 ms to import: only for a Retry-After given as a date

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
    :class:`ServerError` (all retryable); 400, 413 and 422 a :class:`RequestRejected`
    (this request is refused, e.g. too long; others may pass); 401/403
    :class:`AuthenticationError`, but a 403 whose message names a parameter (logprobs)
    a :class:`FatalBackendError` that does not blame the key; any other status (404:
    unknown model or wrong URL) a :class:`FatalBackendError`. ``message`` must be scrubbed already.
    """
    text = f"{backend} backend: HTTP {status} from {where}: {message}"
    if status == 429:
        return RateLimitError(text, retry_after=retry_after_seconds(headers))
    if status == 408:
        return BackendTimeout(text)
    if status == 409 or status >= 500:
        return ServerError(text)
    if status == 403 and _ABOUT_A_PARAMETER.search(message):
        # Not the key: the model refuses a parameter (o4-mini answers logprobs so).
        return FatalBackendError(text + "; the server refuses a parameter of the request")
    if status in (401, 403):
        return AuthenticationError(text + _key_hint(key_env))
    if status in _REJECTED:
        return RequestRejected(text)
    return FatalBackendError(text)


def _key_hint(key_env: str | None) -> str:
    """What to do about a refused key: check it, or (none was sent) set it.

    The key is read from ``$key_env`` alone; with a ``base_url`` a call goes out
    without one (the server may need none), so a server that wants one is told so.
    """
    if not key_env:
        return ""
    if not os.environ.get(key_env):
        return f"; no key was sent (${key_env} is not set) and the server wants one: set ${key_env}"
    return f"; check the key in ${key_env}"


def translate_sdk_error(
    exc: Exception,
    sdk: ModuleType,
    *,
    backend: str,
    where: str,
    timeout: float,
    secrets: Iterable[str | None],
    key_env: str | None,
    url_from: str | None,
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
        url_from: Where the address came from, as :func:`connection_error` takes it.
    """
    _scrub(exc, secrets)
    if isinstance(exc, sdk.APITimeoutError):
        return BackendTimeout(f"{backend} backend: no reply from {where} within {timeout:g} s")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f"{type(cause).__name__}: {cause}" if cause else str(exc)
        return connection_error(
            exc, detail, backend=backend, where=where, secrets=secrets, url_from=url_from
        )
    if isinstance(exc, sdk.APIStatusError):
        message = redact(server_message(exc), secrets)[:MESSAGE_LIMIT]
        headers = getattr(getattr(exc, "response", None), "headers", None)
        return error_from_status(
            exc.status_code, message, backend=backend, where=where, headers=headers, key_env=key_env
        )
    detail = redact(str(exc), secrets)[:MESSAGE_LIMIT]
    if isinstance(exc, sdk.APIError):  # e.g. a reply the SDK could not read
        return ServerError(f"{backend} backend: bad reply from {where}: {detail}")
    return FatalBackendError(f"{backend} backend: {type(exc).__name__}: {detail}")


# Connect-time errno values that mean nothing answered at the address. Resource limits
# (EMFILE, ENOBUFS, ...) are left out: under heavy concurrency they are transient.
_UNREACHABLE_ERRNOS: Mapping[int, str] = {
    code: reason
    for name, reason in (
        ("ECONNREFUSED", "connection refused"),
        ("EHOSTUNREACH", "no route to host"),
        ("ENETUNREACH", "network unreachable"),
        ("EHOSTDOWN", "host is down"),
        ("ENETDOWN", "network is down"),
        ("EADDRNOTAVAIL", "address not available"),
    )
    if (code := getattr(errno, name, None)) is not None  # not every platform has them all
}
# asyncio joins the errors of a host with several addresses into one errno-less
# OSError("Multiple exceptions: [Errno 111] ..., [Errno 99] ...") before Python 3.12's
# all_errors, so the codes are read back from its text.
_MULTIPLE = "Multiple exceptions: "
_ERRNO_IN_TEXT = re.compile(r"\[Errno (-?\d+)\]")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, its causes and contexts, and the members of any exception group, once each."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        link = todo.pop(0)
        if id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        if isinstance(link, BaseExceptionGroup):
            todo.extend(link.exceptions)
        todo.extend(e for e in (link.__cause__, link.__context__) if e is not None)


def _os_reason(link: BaseException) -> str | None:
    import socket  # only when a connection failed (with ssl, 15 ms off every start-up)

    if isinstance(link, ConnectionRefusedError):
        return "connection refused"
    if isinstance(link, socket.gaierror):
        return f"unknown host ({link.strerror})" if link.strerror else "unknown host"
    if not isinstance(link, OSError):
        return None
    if link.errno is not None:
        return _UNREACHABLE_ERRNOS.get(link.errno)
    text = str(link)
    if text.startswith(_MULTIPLE):
        reasons = [_UNREACHABLE_ERRNOS.get(int(c)) for c in _ERRNO_IN_TEXT.findall(text)]
        if reasons and all(reasons):
            return reasons[0]
    return None


def unreachable_reason(exc: BaseException) -> str | None:
    """Why nothing answered at the address, when ``exc`` comes from a connect that failed.

    Looks through the whole chain (causes, contexts, exception groups), where the SDKs
    and asyncio leave the operating system's error: a refusal, a name that does not
    resolve, or no route. A TLS failure anywhere in the chain means something did
    answer, so it is never unreachable.

    Returns:
        A short reason such as ``"connection refused"``, or ``None``.

    Example:
        >>> unreachable_reason(ConnectionRefusedError(111, "Connect call failed"))
        'connection refused'
    """
    import ssl

    links = list(_chain(exc))
    if any(isinstance(link, ssl.SSLError) for link in links):
        return None
    return next((r for link in links if (r := _os_reason(link)) is not None), None)


def connection_error(
    exc: BaseException,
    detail: str,
    *,
    backend: str,
    where: str,
    secrets: Iterable[str | None],
    url_from: str | None,
) -> ServerError:
    """The error for a request that got no reply because the connection failed.

    Args:
        exc: The transport's exception, with its chain.
        detail: What to say when something did answer (e.g. ``"the server closed the
            connection in the middle of a reply"``); scrubbed and cut here.
        backend: Backend name for the message.
        where: Model and server, for the message.
        secrets: Values to scrub from the message (the API key).
        url_from: Where the address came from, for the fix the message gives:
            ``"base_url"`` (the caller gave it), ``"$OPENAI_BASE_URL"`` (an environment
            variable) or ``None`` (the vendor's own API, as nothing else was given).

    Returns:
        :class:`EndpointUnreachable` when nothing answered at the address (see
        :func:`unreachable_reason`), else :class:`ServerError`.
    """
    secrets = list(secrets)
    reason = unreachable_reason(exc)
    if reason is not None:
        text = f"{backend} backend: cannot reach {where}"
        if url_from is None:
            # The vendor's API is up for everyone else: the fault is on this side.
            text += (
                f" (the vendor's own API: no other address was given): {reason}: check "
                "this machine's network connection, its DNS and any proxy or firewall "
                "in the way (HTTPS_PROXY)"
            )
        elif url_from == "base_url":
            text += f": {reason}: check that a server is running there and that base_url is right"
        else:
            text += (
                f" (from {url_from}): {reason}: check that a server is running there, or "
                f"correct or unset {url_from}"
            )
        params = ("base_url",) if url_from == "base_url" else ()
        return EndpointUnreachable(redact(text, secrets), params=params)
    detail = redact(detail, secrets)[:MESSAGE_LIMIT]
    return ServerError(f"{backend} backend: connection to {where} failed: {detail}")
