"""Scrub secrets from text before it reaches an exception message, a log line or a store.

Two layers, one module. Backends build error messages from the server's own error
text, and some servers echo the presented key back ("Incorrect API key provided:
sk-..."), so everything a backend puts in a message goes through :func:`redact` with
the key it holds. A backend written by a user may forget to scrub, so everything the
runner writes also goes through :func:`scrub`: the same patterns, plus every
:func:`known_secrets` value: credential-like environment variables (``*_API_KEY``,
``*_TOKEN``, ``*_SECRET``) and each key a built-in backend read
(:func:`remember_secret`), whatever its variable is called.

Replies are scrubbed whole, once: a server (a debugging proxy, say) may echo the
``Authorization`` header in any field of a successful reply, not only in its text.
So the runner passes every fresh :class:`~fairjudge._call.Completion`, from every
backend, through :meth:`Redactor.completion` before anything reads, stores or prints
it: every text field (the text, the model the server names, the logprob tokens) is
masked there, not in each backend.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from fairjudge._call import Completion

__all__ = ["Redactor", "env_secrets", "known_secrets", "redact", "remember_secret", "scrub"]

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


_REMEMBERED: set[str] = set()
"""The keys built-in backends read, wherever from (see :func:`remember_secret`)."""


def remember_secret(value: str | None) -> None:
    """Mask ``value`` from now on wherever :func:`scrub` or a :class:`Redactor` runs.

    Backends call it with the key they read, so that a key read from a variable with
    any name is scrubbed from replies and messages like a ``*_API_KEY`` value. Values
    shorter than 8 characters are ignored, as in :func:`env_secrets`: masking a
    toy key such as ``"A"`` would mask every verdict.
    """
    if value and len(value) >= _MIN_SECRET_LEN:
        _REMEMBERED.add(value)


def known_secrets() -> list[str]:
    """The values scrubbed everywhere: :func:`env_secrets` and every remembered key."""
    return [*env_secrets(), *_REMEMBERED]


def scrub(text: str) -> str:
    """Mask anything that looks like a credential, and every known secret, in ``text``.

    Example:
        >>> scrub("401: invalid key sk-abcdef123456")
        '401: invalid key ***'
    """
    return redact(text, known_secrets())


_COMPLETION_FIELDS = tuple(f.name for f in dataclasses.fields(Completion))


class Redactor:
    """Masks a fixed set of secrets, and anything key-shaped, in text and whole replies.

    Text with nothing to mask (nearly every reply) is found so by substring tests,
    a few microseconds for a long reply, and comes back as the same object; only text
    that holds a secret, ``sk-`` or the word "bearer" goes through :func:`redact`.

    Args:
        secrets: Exact values to mask, as in :func:`redact`.

    Example:
        >>> r = Redactor(["fj-local-0123456789"])
        >>> r.completion(Completion("A", model="m@fj-local-0123456789")).model
        'm@***'
    """

    __slots__ = ("_secrets",)

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    @classmethod
    def current(cls) -> Redactor:
        """A redactor for every :func:`known_secrets` value, read now."""
        return cls(known_secrets())

    def _may_hold(self, text: str) -> bool:
        """Whether :func:`redact` could mask anything in ``text`` (a cheap superset test).

        Substring tests, not a regex: Python's regex engine scans an alternation of
        patterns with no common literal at about 100 ns a character, 20 times slower.
        """
        return (
            "sk-" in text  # _KEY_LIKE
            or any(secret in text for secret in self._secrets)
            or "bearer" in text.lower()  # _BEARER (case-insensitive)
        )

    def text(self, text: str) -> str:
        """``text`` with every secret masked; the same object when there is none."""
        return redact(text, self._secrets) if self._may_hold(text) else text

    def completion(self, completion: Completion) -> Completion:
        """The reply with every text field masked: the one place replies are scrubbed.

        Every field of :class:`~fairjudge._call.Completion` is visited, so a text
        field added to it later is scrubbed without a change here: strings, and the
        keys and string values of mappings (two logprob tokens that mask to the same
        text keep the higher logprob). Returns ``completion`` itself when nothing
        needed masking.
        """
        changes: dict[str, Any] = {}
        for name in _COMPLETION_FIELDS:
            value = getattr(completion, name)
            clean = self._value(value)
            if clean is not value:
                changes[name] = clean
        return dataclasses.replace(completion, **changes) if changes else completion

    def _value(self, value: object) -> object:
        if value is None or type(value) in _PLAIN:  # most fields: no ABC check needed
            return value
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, Mapping) or not value:
            return value
        if not self._may_hold(_joined(value.keys()) + "\0" + _joined(value.values())):
            return value
        clean: dict[Any, Any] = {}
        for key, item in value.items():
            key = self.text(key) if isinstance(key, str) else key
            item = self.text(item) if isinstance(item, str) else item
            if key in clean and _is_number(item) and _is_number(clean[key]):
                item = max(item, clean[key])
            clean[key] = item
        return clean


_PLAIN = (int, float, bool)


def _joined(values: Collection[object]) -> str:
    """The strings among ``values``, joined by NULs; quick when all or none are strings."""
    kinds = set(map(type, values))
    if kinds == {str}:
        return "\0".join(values)  # type: ignore[arg-type]  # all str, as just checked
    if not any(issubclass(kind, str) for kind in kinds):
        return ""  # e.g. the logprobs: floats
    return "\0".join(v for v in values if isinstance(v, str))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
