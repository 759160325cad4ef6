"""What a server's base URL may be: ``http(s)://host[:port][/path]``, checked before any call.

A URL that cannot reach a server, or that holds user information or a fragment, is
refused where it is given, naming it as the user gave it; a query is kept and sent.
What is shown and stored is :func:`shown_url`, with every credential masked.
"""

from __future__ import annotations

import ipaddress
import os
import re
from urllib.parse import parse_qsl, urlsplit

from fairjudge._errors import ConfigError
from fairjudge._redact import known_secrets, redact_url, remember_secret, url_secrets

__all__ = ["check_base_url", "is_loopback_host", "shown_url", "split_query", "trimmed"]

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
    """``url`` without trailing slashes on its path; a query keeps every character.

    Example:
        >>> trimmed("http://h/v1/?api-version=2024-10-21")
        'http://h/v1?api-version=2024-10-21'
    """
    head, mark, query = url.partition("?")
    return head.rstrip("/") + mark + query


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
