"""Scrub secrets from text before it reaches an exception message, a log line or a store.

Backends build error messages from the server's own error text, and some servers echo
the presented key back ("Incorrect API key provided: sk-..."). Everything a backend
puts in a message goes through :func:`redact` first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["redact"]

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
