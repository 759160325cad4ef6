"""What a server's base URL may be: ``http(s)://host[:port][/path]``, checked before any call.

Every place that takes a base URL checks it here, before a backend is built or a
call is made: the backends (``base_url``, or ``$OPENAI_BASE_URL`` /
``$ANTHROPIC_BASE_URL``), :class:`~fairjudge.judges.BackendOptions`, a jury file's
members and the command line's ``--base-url``. Each names the URL the way its user
gave it (the parameter, the variable, the flag, the file and member).

A URL that is not ``http``/``https`` (``file://``, ``ftp://``, no scheme at all) or
has no host cannot reach a server: left alone, every call would fail and be retried.
User information (``user:key@``) and a key in the query string are refused too: a
base URL is stored with every call and printed in messages, so a key inside it would
be written everywhere (and the two transports would disagree about it: the SDK sends
user information as Basic auth, the lean client drops it); the message then never
repeats the URL. A plain query (an ``api-version=...``) is allowed, as before; a
fragment is not.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from fairjudge._errors import ConfigError

__all__ = ["check_base_url"]

_SECRET_PARAM = re.compile(r"(?i)(?:^|&)[^=&]*(?:key|token|secret|password|auth)[^=&]*=")
_UNPRINTABLE = re.compile(r"[\x00-\x20\x7f]")
_FORM = "http(s)://host[:port][/path], e.g. http://localhost:8000/v1"


def _quoted(url: str) -> str:
    """The URL for a message: repeated unless it may carry a key, and cut short."""
    if "@" in url or "?" in url or "#" in url:
        return "(not repeated: it may carry a key)"
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
            has no host, a bad port, user information, a key in its query or a
            fragment; the message names ``name`` and says what would fix it.
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
    if parts.query and _SECRET_PARAM.search(parts.query):
        raise ConfigError(
            f"{name} carries a key in its query string ({host}?...); base URLs are stored "
            f"and printed, so put the key in ${key_env} instead and give the URL without it"
        )
    if parts.fragment or url.endswith("#"):
        raise ConfigError(f"{name} has a fragment (#...); give {_FORM}")
