"""The runner's last scrub of error text before it reaches the store or the user.

Backends already scrub their messages with :func:`fairjudge.judges._redact.redact`
(key-shaped tokens, ``Bearer`` headers, the key they hold). The runner cannot know a
backend's key, and a backend written by a user may forget to scrub, so everything it
writes also goes through :func:`scrub`: the same patterns, plus the values of
credential-like environment variables (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``).
"""

from __future__ import annotations

import os
import re

from fairjudge.judges._redact import redact

__all__ = ["scrub"]

_SECRET_ENV = re.compile(r"(?i)(API_?KEY|TOKEN|SECRET|PASSWORD)$")
_MIN_SECRET_LEN = 8  # shorter values are too likely to be ordinary words


def scrub(text: str) -> str:
    """Mask anything that looks like a credential, and every credential env value, in ``text``.

    Example:
        >>> scrub("401: invalid key sk-abcdef123456")
        '401: invalid key ***'
    """
    secrets = [
        value
        for name, value in os.environ.items()
        if len(value) >= _MIN_SECRET_LEN and _SECRET_ENV.search(name)
    ]
    return redact(text, secrets)
