"""What the HTTP backends share: base URLs, settings, the SDK client, sampling defaults, usage.

The OpenAI and Anthropic backends differ in request and reply shapes, not in how they
are configured or fail: base URL and key from the environment, the SDK client (its
retries off), sampling defaults and every failure mapped, key scrubbed, onto
:class:`fairjudge.BackendError`. A base URL must be ``http(s)://host[:port][/path]``,
refused where it is given otherwise, naming it as the user gave it; what is shown
and stored is :func:`shown_url`, with every credential masked.

Each reads its server's token usage here, as untrusted input (:func:`openai_usage`,
:func:`anthropic_usage`). Usage decides what a call costs, and a hostile or buggy
server can send anything there; a figure that fails a check is never used, the call
is marked with a ``usage_problem`` and charged its estimate. Both providers come out
in one convention (whole prompt, whole completion).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar, TypedDict
from urllib.parse import parse_qsl, urlsplit

from fairjudge._errors import BackendError, BackendTimeout, ConfigError, ServerError
from fairjudge._redact import known_secrets, redact_url, remember_secret, url_secrets
from fairjudge.backends._capabilities import at_api
from fairjudge.backends._http_errors import (
    connection_error,
    pooled_http_client,
    translate_sdk_error,
)

__all__ = [
    "LABEL_MAX_TOKENS",
    "MAX_REPORTED_TOKENS",
    "REPLY_MAX_TOKENS",
    "HTTPBackend",
    "HTTPOptions",
    "Usage",
    "anthropic_usage",
    "check_base_url",
    "is_loopback_host",
    "openai_usage",
    "rebuild",
    "shown_url",
    "split_query",
    "trimmed",
]

LABEL_MAX_TOKENS = 8
"""Default ``max_tokens`` of a label-only call: the label and a little slack."""
REPLY_MAX_TOKENS = 1024
"""Default ``max_tokens`` of a call whose reply is free text (reasoning, then a label)."""


_UNPRINTABLE = re.compile(r"[\x00-\x20\x7f]")
_FORM = "http(s)://host[:port][/path], e.g. http://localhost:8000/v1"


def _quoted(url: str) -> str:
    """The URL for a message: every credential in it masked, and cut short."""
    url = redact_url(url, known_secrets())
    return repr(url if len(url) <= 80 else url[:79] + "…")


def check_base_url(url: str, *, name: str = "base_url", key_env: str = "OPENAI_API_KEY") -> None:
    """Refuse a base URL that is not ``http(s)://host[:port][/path]``.

    Args:
        url: The URL as given.
        name: How the user gave it, for the message: ``base_url``, ``--base-url``,
            ``$OPENAI_BASE_URL``, ``--jury FILE: member.0.base_url``.
        key_env: The variable that should hold the key, named when the URL carries one.

    Raises:
        ConfigError: The URL does not parse, its scheme is not ``http``/``https``, it
            has no host, a bad port, user information or a fragment; the message
            names ``name`` and says what would fix it, and shows the URL only with
            its credentials masked.
    """
    if not isinstance(url, str) or not url:
        raise ConfigError(f"{name} is empty; give {_FORM}")
    if _UNPRINTABLE.search(url):
        raise ConfigError(f"{name} holds spaces or control characters; give {_FORM}")
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port  # urlsplit checks the port when it is read
    except ValueError as exc:
        if "port" in str(exc).lower():
            raise ConfigError(f"{name} has a bad port ({exc}); give a number from 1 to 65535, "
                              "e.g. http://localhost:8000/v1") from None  # fmt: skip
        raise ConfigError(f"{name} is not a valid URL ({exc}); give {_FORM}") from None
    if parts.scheme not in ("http", "https"):
        scheme = f"scheme {parts.scheme!r}" if "://" in url else "no scheme (add http://)"
        raise ConfigError(f"{name} must be an http:// or https:// URL; {_quoted(url)} has "
                          f"{scheme}; give {_FORM}")  # fmt: skip
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            f"{name} carries credentials (user:password@{host}); base URLs are stored and "
            f"printed, so put the key in ${key_env} instead and give the URL without them"
        )
    if not host:
        raise ConfigError(f"{name} has no host: {_quoted(url)}; give {_FORM}")
    if port == 0:
        raise ConfigError(f"{name} has a bad port (0); give a number from 1 to 65535")
    if parts.fragment or url.endswith("#"):
        raise ConfigError(f"{name} has a fragment (#...); give {_FORM}")


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` is a loopback name or address, so a key sent there stays here.

    ``host`` is a URL's host or a ``HOST`` from ``HOST:PORT`` (an IPv6 address may keep
    its brackets). Jury files and config files send work to a server off this machine
    only when the user allows it; this is the one test of "on this machine" they share.
    """
    host = host.lower().strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def trimmed(url: str) -> str:
    """``url`` in one spelling: no trailing slashes on its path, no empty query.

    Scheme and host are lowered (they are case-blind), so the spellings of one server
    key its calls alike and a rerun is served from the store; the path and a query
    keep every character (user information is refused before, by :func:`check_base_url`).

    Example:
        >>> trimmed("HTTP://Example.COM/V1/?api-version=2024-10-21")
        'http://example.com/V1?api-version=2024-10-21'
        >>> trimmed("http://h/v1?")
        'http://h/v1'
    """
    head, mark, query = url.partition("?")
    scheme, sep, rest = head.partition("://")
    if sep:
        host, slash, path = rest.partition("/")
        head = scheme.lower() + sep + host.lower() + slash + path
    return head.rstrip("/") + (mark + query if query else "")


def shown_url(url: str, *, key_env: str) -> str:
    """What a backend shows of ``url`` (stores, prints, keys calls on): credentials masked.

    The key in ``$key_env`` and every :func:`~fairjudge._redact.known_secrets` value
    are masked where they appear, and so is anything key-shaped
    (:func:`~fairjudge._redact.redact_url`). Each value masked is remembered
    (:func:`~fairjudge._redact.remember_secret`), so the runner masks it in replies
    and messages too. A URL with no credential comes back unchanged, so the calls
    made through it keep the store keys they always had.
    """
    secrets = [*known_secrets(), os.environ.get(key_env)]
    for value in url_secrets(url, secrets):
        remember_secret(value)
    return redact_url(url, secrets)


def split_query(url: str) -> tuple[str, dict[str, str | list[str]] | None]:
    """``url`` without its query, and the query as the SDKs' ``default_query``.

    The OpenAI and Anthropic SDKs join a request's path onto the base URL's raw path,
    query included, so a query left in the base URL would end up inside the path
    (``/v1?api-version=1/chat/completions``). Given apart, as ``default_query``, it
    is sent with every request. A name given twice keeps every value, in order.

    Example:
        >>> split_query("http://h/v1?api-version=2024-10-21&x=1&x=2")
        ('http://h/v1', {'api-version': '2024-10-21', 'x': ['1', '2']})
    """
    head, _, query = url.partition("?")
    if not query:
        return head, None
    params: dict[str, str | list[str]] = {}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name not in params:
            params[name] = value
        else:
            held = params[name]
            params[name] = [*held, value] if isinstance(held, list) else [held, value]
    return head, params


class HTTPOptions(TypedDict, total=False):
    """The settings every HTTP backend takes as keywords; see :class:`HTTPBackend`.

    Backends declare them as ``**options: Unpack[HTTPOptions]``, so each setting is
    defined, defaulted and documented once, and type checkers still check every name.
    """

    base_url: str | None
    api_key_env: str | None
    timeout: float
    temperature: float | None
    max_tokens: int | None
    extra_params: Mapping[str, Any] | None
    max_connections: int


class HTTPBackend:
    """Base of the backends that call a model server over HTTP through a vendor SDK.

    Subclasses set :attr:`name`, :attr:`default_host`, :attr:`base_url_env` and
    :attr:`default_key_env`, build their client with :meth:`_sdk_client` and send
    requests in ``complete``.

    Args:
        model: The model name the server knows.
        sdk: The vendor SDK module (``openai``, ``anthropic``), for its client's
            HTTP stack and its exception classes; ``None`` when the subclass imports
            it on first use (and sets ``_sdk`` before building its client).
        base_url: The server; ``None`` means ``$<base_url_env>`` if set, else the
            vendor's API. Part of the cache key.
        api_key_env: The environment variable holding the key, read by
            :meth:`_read_key`; ``None`` means :attr:`default_key_env`.
        timeout: Seconds to wait for a reply (and for a free connection).
        temperature: Sampling temperature; ``None`` sends none.
        max_tokens: Reply length cap; ``None`` means :data:`LABEL_MAX_TOKENS` for
            label-only calls and :data:`REPLY_MAX_TOKENS` otherwise.
        extra_params: More request fields, sent as given and part of the cache key.
        max_connections: Size of the HTTP connection pool; also :attr:`max_concurrency`.
    """

    name: ClassVar[str]
    """Backend kind, as in :attr:`fairjudge._call.CallSpec.backend`."""
    default_host: ClassVar[str]
    """The vendor's API host, named in messages when no ``base_url`` is set."""
    base_url_env: ClassVar[str]
    """The environment variable that supplies ``base_url`` when none is given."""
    default_key_env: ClassVar[str]
    """The environment variable holding the key unless ``api_key_env`` names another."""

    def __init__(
        self,
        model: str,
        *,
        sdk: ModuleType | None,
        base_url: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 60.0,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        extra_params: Mapping[str, Any] | None = None,
        max_connections: int = 512,
    ) -> None:
        given = base_url
        base_url = base_url or os.environ.get(self.base_url_env) or None
        # Where the address came from, for the fix a message gives; None: the vendor's.
        self._url_from = ("base_url" if given else f"${self.base_url_env}") if base_url else None
        if base_url:
            check_base_url(
                base_url, name=self._url_from or "", key_env=api_key_env or self.default_key_env
            )
        self._sdk = sdk
        self._model = model
        self._base_url = trimmed(base_url) if base_url else None  # sent as given
        self._api_key_env = api_key_env or self.default_key_env
        # What is stored, printed and keyed on: any credential in the URL masked.
        self._shown_url = (
            shown_url(self._base_url, key_env=self._api_key_env) if self._base_url else None
        )
        self._timeout = timeout
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._extra_params = dict(extra_params or {})
        self._max_connections = max_connections
        # The SDK client, which alone holds the key (it never prints it); None for a
        # subclass that talks through another transport.
        self._client: Any = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model!r}, base_url={self._shown_url!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the settings only: never the key, the client or its connections.

        A copy sent to another process (a Ray worker) is built anew there from the
        settings, and reads the key from that process's environment, by the name of
        its variable: the key never travels with the backend.
        """
        return (rebuild, (type(self), self._model, self._settings()))

    def _settings(self) -> dict[str, Any]:
        """The keywords that build an equal backend (base URL resolved, no key)."""
        return {
            "base_url": self._base_url,
            "api_key_env": self._api_key_env,
            "timeout": self._timeout,
            "temperature": self._temperature,
            "max_tokens": self._max_tokens,
            "extra_params": self._extra_params,
            "max_connections": self._max_connections,
        }

    @property
    def model(self) -> str:
        """The model name sent to the server."""
        return self._model

    @property
    def base_url(self) -> str | None:
        """The server's base URL, credentials masked, or ``None`` for the vendor's API.

        This is the URL calls are stored and keyed with; requests go to the URL as
        given (see :func:`shown_url`).
        """
        return self._shown_url

    @property
    def at_vendor(self) -> bool:
        """Whether the calls go to the vendor's API itself (no ``base_url``, or its host).

        The capability table is the vendor's, and so are its refusals before any call (an
        effort or thinking budget the model does not take, a Responses-only model, a cap
        above the ceiling, structured output, a temperature): they apply here only. A
        compatible server (LocalAI, a LiteLLM or vLLM alias; DeepSeek, Moonshot (Kimi) and
        LiteLLM serve Anthropic's Messages API too) may serve another model under the
        vendor's name, with its own limits, so there the request is sent as asked and its
        own reply stands. The table's adaptations (the reasoning models' cap, no
        temperature or logprobs, o1-mini's system text in the user turn, ``max_tokens``
        with room after a thinking budget, the cache marks) are sent at any server: each
        is a request every compatible server takes, and a proxy to the real model
        (LiteLLM, OpenRouter) would refuse the unadapted one.
        """
        return at_api(self._base_url, self.default_host)

    @classmethod
    def calls_the_api(cls, base_url: str | None) -> bool:
        """Whether a backend made with ``base_url`` would be :attr:`at_vendor` (before one is).

        ``None`` means ``$<base_url_env>``, else the API, as the constructor reads it.
        """
        return at_api(base_url or os.environ.get(cls.base_url_env) or None, cls.default_host)

    @property
    def max_concurrency(self) -> int | None:
        """The connection pool size: more concurrent calls would only queue for a socket."""
        return self._max_connections

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """Sampling parameters for a call; part of the cache key.

        Args:
            label_only: The reply is one short label, so ``max_tokens`` is small and,
                where the server reports them, the first token's logprobs are the
                label's distribution (see :meth:`_label_params`).
        """
        default = LABEL_MAX_TOKENS if label_only else REPLY_MAX_TOKENS
        params: dict[str, Any] = {"max_tokens": self._max_tokens or default}
        if self._temperature is not None:
            params["temperature"] = self._temperature
        if label_only:
            params.update(self._label_params())
        params.update(self._extra_params)
        return params

    def _label_params(self) -> dict[str, Any]:
        """Extra parameters of a label-only call (logprob requests); none by default."""
        return {}

    def _read_key(self) -> str | None:
        """The API key from the environment, or ``None`` when unset or empty.

        The key is remembered by :mod:`fairjudge._redact`, so the runner masks it in
        every reply and message whatever the variable holding it is called.
        """
        key = os.environ.get(self._api_key_env) or None
        remember_secret(key)
        return key

    def _sdk_client(self, client_cls: Any, api_key: str) -> Any:
        """The SDK's async client, with a keep-alive pool of ``max_connections``.

        The SDK's own retries are off: the runner retries, with backoff that honours
        ``Retry-After``. The base URL's query goes in ``default_query``, so that it
        is sent with every request (see :func:`split_query`).
        """
        base_url, query = split_query(self._base_url) if self._base_url else (None, None)
        return client_cls(
            api_key=api_key,
            base_url=base_url,
            default_query=query,
            timeout=self._timeout,
            max_retries=0,
            http_client=pooled_http_client(self._loaded_sdk, self._max_connections, self._timeout),
        )

    @property
    def _loaded_sdk(self) -> ModuleType:
        assert self._sdk is not None, "the SDK is imported before its client is built"
        return self._sdk

    @property
    def _where(self) -> str:
        return f"model {self._model!r} at {self._shown_url or self.default_host}"

    def _secrets(self) -> list[str | None]:
        """Values to scrub from messages: the key the client holds, any key in the URL."""
        urls = url_secrets(self._base_url) if self._base_url else []
        return [getattr(self._client, "api_key", None), *urls]

    def _translate(self, exc: Exception) -> BackendError:
        """The :class:`BackendError` for an exception the SDK raised."""
        return translate_sdk_error(
            exc,
            self._loaded_sdk,
            backend=self.name,
            where=self._where,
            timeout=self._timeout,
            secrets=self._secrets(),
            key_env=self._api_key_env,
            url_from=self._url_from,
        )

    def _connection_failed(self, exc: BaseException, detail: str) -> ServerError:
        """The error for a connection that failed: see :func:`connection_error`."""
        return connection_error(
            exc,
            detail,
            backend=self.name,
            where=self._where,
            secrets=self._secrets(),
            url_from=self._url_from,
        )

    def _timed_out(self) -> BackendTimeout:
        return BackendTimeout(
            f"{self.name} backend: no reply from {self._where} within {self._timeout:g} s"
        )

    def _not_json(self) -> ServerError:
        return ServerError(f"{self.name} backend: {self._where}: reply is not valid JSON")

    @property
    def opened(self) -> bool:
        """Whether this backend holds a client (made by its first call) to close."""
        return self._client is not None

    async def aclose(self) -> None:
        """Close the connection pool."""
        if self._client is not None:
            await self._client.close()


def rebuild(cls: type[HTTPBackend], model: str, settings: dict[str, Any]) -> HTTPBackend:
    """A backend unpickled: built from its settings, its key read from this environment."""
    return cls(model, **settings)


# --- usage -----------------------------------------------------------------------------

MAX_REPORTED_TOKENS = 100_000_000
"""The sane bound: a count at or above it is not believed.

A hundred million tokens is ten times the longest context window any model offers
(10 million), so no honest reply reaches it; a count that does is a bug or an attack.
"""


@dataclass(frozen=True, slots=True)
class Usage:
    """The usage figures of one reply, as far as they can be believed.

    Attributes:
        input_tokens: The whole prompt (cached and cache-written tokens included).
        output_tokens: The whole completion (reasoning included).
        reasoning_tokens: Of the completion, the hidden reasoning tokens.
        cached_input_tokens: Of the prompt, the tokens read from the prompt cache.
        cache_write_tokens: Of the prompt, the tokens written to the prompt cache.
        problem: Why the figures were not all believed; ``None`` when they were. A
            field that failed its check is ``None`` here, whatever the server sent.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    problem: str | None = None

    def fields(self) -> dict[str, Any]:
        """The :class:`~fairjudge._call.Completion` keyword arguments these figures fill."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "usage_problem": self.problem,
        }


class _Reader:
    """Reads counts out of one usage object, noting the first problem met."""

    def __init__(self, usage: object) -> None:
        self.usage = usage if isinstance(usage, Mapping) else None
        self.problems: list[str] = []
        if usage is None:
            self.problems.append("the reply has no usage")
        elif self.usage is None:
            self.problems.append(f"usage is {_kind(usage)}, not an object")

    def count(self, *path: str, required: bool) -> int | None:
        """The count at ``path`` in the usage object, if it can be believed."""
        value: object = self.usage
        for i, name in enumerate(path):
            if value is None:
                return None  # no usage at all: already noted
            if not isinstance(value, Mapping):
                self.problems.append(f"usage.{'.'.join(path[:i])} is {_kind(value)}")
                return None
            if name not in value or (value[name] is None and not required):
                if required:
                    self.problems.append(f"usage.{'.'.join(path)} is missing")
                return None
            value = value[name]
        return self._checked(".".join(path), value)

    def _checked(self, name: str, value: object) -> int | None:
        if type(value) is not int:  # bool is a subclass of int: excluded too
            self.problems.append(f"usage.{name} is {_kind(value)}, not a whole number")
            return None
        if value < 0:
            self.problems.append(f"usage.{name} is negative ({value})")
            return None
        if value >= MAX_REPORTED_TOKENS:
            self.problems.append(
                f"usage.{name} is {value}, not below the bound of {MAX_REPORTED_TOKENS:,}"
            )
            return None
        return value

    def part(self, name: str, part: int | None, whole: int | None, of: str) -> int | None:
        """``part`` if it fits in ``whole`` (a part larger than its whole is not believed)."""
        if part is not None and whole is not None and part > whole:
            self.problems.append(f"usage.{name} ({part}) is more than {of} ({whole})")
            return None
        return part

    def problem(self) -> str | None:
        if not self.problems:
            return None
        more = len(self.problems) - 1
        return self.problems[0] + (f" (and {more} more)" if more else "")


def _kind(value: object) -> str:
    """What a bad value is, in a few safe characters (never the value's whole text)."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, float):
        return f"a number with a fraction ({value!r})" if value == value else "NaN"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


def openai_usage(usage: object) -> Usage:
    """The figures of an OpenAI chat-completion reply's ``usage`` object.

    Example:
        >>> openai_usage({"prompt_tokens": 10, "completion_tokens": -5}).problem
        'usage.completion_tokens is negative (-5)'
    """
    read = _Reader(usage)
    n_in = read.count("prompt_tokens", required=True)
    n_out = read.count("completion_tokens", required=True)
    cached = read.count("prompt_tokens_details", "cached_tokens", required=False)
    reasoning = read.count("completion_tokens_details", "reasoning_tokens", required=False)
    return Usage(
        input_tokens=n_in,
        output_tokens=n_out,
        reasoning_tokens=read.part(
            "completion_tokens_details.reasoning_tokens", reasoning, n_out, "completion_tokens"
        ),
        cached_input_tokens=read.part(
            "prompt_tokens_details.cached_tokens", cached, n_in, "prompt_tokens"
        ),
        problem=read.problem(),
    )


def anthropic_usage(usage: object) -> Usage:
    """The figures of an Anthropic Messages reply's ``usage`` object, in one convention.

    ``input_tokens`` comes back as the whole prompt: the reply's ``input_tokens``
    plus its cache reads and cache writes.

    Example:
        >>> u = anthropic_usage({"input_tokens": 20, "output_tokens": 3,
        ...                      "cache_read_input_tokens": 1000})
        >>> (u.input_tokens, u.cached_input_tokens, u.problem)
        (1020, 1000, None)
    """
    read = _Reader(usage)
    uncached = read.count("input_tokens", required=True)
    n_out = read.count("output_tokens", required=True)
    cached = read.count("cache_read_input_tokens", required=False)
    written = read.count("cache_creation_input_tokens", required=False)
    n_in = None
    if uncached is not None:
        n_in = uncached + (cached or 0) + (written or 0)  # each below the bound: no overflow
    return Usage(
        input_tokens=n_in,
        output_tokens=n_out,
        cached_input_tokens=cached,
        cache_write_tokens=written,
        problem=read.problem(),
    )
