"""Scrub secrets from text before it reaches an exception message, a log line or a store.

Two layers, one module. Backends build error messages from the server's own error
text, and some servers echo the presented key back ("Incorrect API key provided:
sk-..."), so everything a backend puts in a message goes through :func:`redact` with
the key it holds. The runner cannot know a backend's key, and a backend written by a
user may forget to scrub, so everything it writes also goes through :func:`scrub`: the
same patterns, plus the values of credential-like environment variables
(``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

__all__ = ["env_secrets", "redact", "scrub"]

MASK = "***"

# Provider keys: OpenAI ("sk-...", "sk-proj-..."), Anthropic ("sk-ant-..."), OpenRouter
# ("sk-or-..."). Eight or more key characters, so prose such as "sk-learn" survives.
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}")
# "Authorization: Bearer <token>" echoed in a debug message, whatever the token looks like.
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s\"',;]+")


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Replace known secret values, and anything that looks like an API key, with ``***``.

    Args:
        text: The text to scrub, e.g. a server's error message.
        secrets: Exact values to remove (the API key in use); empty and ``None`` values
            are skipped. Longer values are replaced first, so a secret that contains
            another is removed whole.

    Returns:
        The text with every occurrence masked.

    Example:
        >>> redact("Incorrect API key provided: sk-abc123def456.", ["sk-abc123def456"])
        'Incorrect API key provided: ***.'
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    text = _KEY_LIKE.sub(MASK, text)
    return _BEARER.sub(rf"\g<1>{MASK}", text)


_SECRET_ENV = re.compile(r"(?i)(API_?KEY|TOKEN|SECRET|PASSWORD)$")
_MIN_SECRET_LEN = 8  # shorter values are too likely to be ordinary words


def env_secrets() -> list[str]:
    """The values of credential-like environment variables (``*_API_KEY``, ``*_TOKEN``, ...)."""
    return [
        value
        for name, value in os.environ.items()
        if len(value) >= _MIN_SECRET_LEN and _SECRET_ENV.search(name)
    ]


def scrub(text: str) -> str:
    """Mask anything that looks like a credential, and every credential env value, in ``text``.

    Example:
        >>> scrub("401: invalid key sk-abcdef123456")
        '401: invalid key ***'
    """
    return redact(text, env_secrets())
