"""Scrub secrets from text before it reaches an exception message, a log line or a store.

Backends scrub their own messages with :func:`redact`; everything the runner writes
also goes through :func:`scrub`, and every fresh reply through
:meth:`Redactor.completion`, so a backend that forgets, or a server that echoes the
key, cannot leak it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any
from urllib.parse import unquote, unquote_plus, urlsplit

from fairjudge._call import Completion

__all__ = [
    "Redactor",
    "env_secrets",
    "known_secrets",
    "redact",
    "redact_arg",
    "redact_url",
    "remember_secret",
    "scrub",
    "url_secrets",
    "well_formed",
]

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


# -- base URLs ---------------------------------------------------------------------------

# A query parameter whose name (decoded, ASCII case folded) holds one of these words
# carries a credential, whatever its value looks like: ?api_key=, ?k%65y=, ?token=, ?sig=.
_CREDENTIAL_NAME = re.compile(
    r"key|token|secret|passw(?:or)?d|pwd|auth|sig|credential|session", re.IGNORECASE | re.ASCII
)
# Vendor key prefixes (OpenAI/Anthropic/OpenRouter sk-, Groq gsk_, Hugging Face hf_,
# GitHub ghp_/github_pat_, GitLab glpat-, xAI, Perplexity, Fireworks, Replicate r8_,
# NVIDIA nvapi-), then eight key characters; Google's keys start "AIza".
_PREFIXED_KEY = re.compile(
    r"(?:\b|_)(?:sk|rk|gsk|hf|ghp|gho|ghs|ghu|github_pat|glpat|xai|pplx|fw|r8|nvapi)[-_]"
    r"[A-Za-z0-9_\-]{8,}|\bAIza[A-Za-z0-9_\-]{20,}",
    re.ASCII,
)
# A long run of letters and digits holding both: a hex or base62 token (an Azure key
# is 32 hex digits), not a word, a version or a date (gpt-4o-mini-2024-07-18 has no
# run longer than 4).
_TOKEN_RUN = re.compile(r"[A-Za-z0-9]{20,}", re.ASCII)
_URL_SECRET_MIN = 8  # as for remember_secret: a shorter "secret" would mask ordinary text


def _decodings(text: str, plus: bool) -> list[str]:
    """``text`` and each percent-decoding of it until it no longer changes, at most 4.

    Every stage is a form a server may read (one decoding is what it does; a double
    encoding hides a name or a key from a look at the first). ``+`` is a space in a
    query only at the first decoding: a ``%2B`` decoded once is a literal ``+``.
    """
    stages = [text]
    for n in range(4):
        decoded = unquote_plus(text) if plus and n == 0 else unquote(text)
        if decoded == text:
            break
        stages.append(decoded)
        text = decoded
    return stages


def _key_shaped(value: str, secrets: tuple[str, ...]) -> bool:
    """Whether a decoded URL part holds a known secret or looks like a key (see redact_url)."""
    if any(secret in value for secret in secrets):
        return True
    if _PREFIXED_KEY.search(value):
        return True
    return any(not run.isdigit() and not run.isalpha() for run in _TOKEN_RUN.findall(value))


def redact_url(url: str, secrets: Iterable[str | None] = ()) -> str:
    """``url`` with every credential in it replaced by ``***``; ``url`` itself when none.

    Before a base URL is stored, printed or written to a file. What counts as a
    credential, each part percent-decoded first until it no longer changes (so
    ``%6B``, ``%6b`` and ``%256B`` are all ``k``):

    - user information (``user:pass@``), whole: ``***@host``;
    - a path segment, query value or host label that holds a ``secrets`` value (8
      characters or more) or looks like a key: a vendor key prefix (``sk-``,
      ``gsk_``, ``hf_``, ``AIza``, ...) then 8 key characters, or a run of 20 or more
      letters and digits holding both (a hex or base62 token; words, versions and
      dates such as ``gpt-4o-mini-2024-07-18`` have no such run);
    - the value of a query parameter whose name holds ``key``, ``token``, ``secret``,
      ``password``, ``pwd``, ``auth``, ``sig``, ``credential`` or ``session``
      (``?api-key=``, ``?k%65y=``), whatever the value; a name that is itself
      key-shaped masks the whole parameter;
    - a fragment.

    A URL with nothing to mask comes back unchanged, character for character, so a
    call key made from it is the one it always was. Masking a segment that only
    looks like a key (a 32-hex account id) costs nothing but a ``***`` in the shown
    URL: the request still goes to the URL as given.

    Args:
        url: The URL as given.
        secrets: Exact values to mask too (the API key in use).

    Example:
        >>> redact_url("http://h:8000/v1/sk-abcdefgh1234?k%65y=xyz&api-version=2024")
        'http://h:8000/v1/***?k%65y=***&api-version=2024'
    """
    return _url_parts(url, _long(secrets))[0]


def url_secrets(url: str, secrets: Iterable[str | None] = ()) -> list[str]:
    """The values :func:`redact_url` masks in ``url``, as given and as decoded.

    A backend scrubs them from its messages and replies like its key: a server that
    repeats the request's path or query in an error would otherwise print them.
    Values shorter than 8 characters are left out, as in :func:`remember_secret`:
    masking a 3-letter password everywhere would mask ordinary words.
    """
    return [v for v in _url_parts(url, _long(secrets))[1] if len(v) >= _URL_SECRET_MIN]


def _long(secrets: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(sorted({s for s in secrets if s and len(s) >= _URL_SECRET_MIN}))


@functools.lru_cache(maxsize=256)
def _url_parts(url: str, secrets: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """``(url shown, values masked)``; a URL is parsed once however often it is shown."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL at all (an unclosed "[" host): mask what can be seen
        return redact(url, secrets), ()
    found: list[str] = []

    def masked(raw: str, plus: bool = False) -> bool:
        stages = _decodings(raw, plus)
        if raw and any(_key_shaped(stage, secrets) for stage in stages):
            found.extend(stages)
            return True
        return False

    netloc = parts.netloc
    userinfo, at, host = netloc.rpartition("@")
    if at:
        found.extend(v for v in (*_decodings(userinfo, False), *userinfo.split(":", 1)) if v)
    host = ".".join(MASK if masked(label) else label for label in host.split("."))
    netloc = f"{MASK}@{host}" if at else host
    path = "/".join(MASK if masked(segment) else segment for segment in parts.path.split("/"))
    query = "&".join(_query_part(part, masked, found) for part in parts.query.split("&"))
    fragment = parts.fragment
    if fragment:
        found.extend(_decodings(fragment, False))
        fragment = MASK
    if not found:
        return redact(url, secrets), ()
    shown = f"{parts.scheme}://{netloc}{path}" if parts.scheme or netloc else path
    shown += ("?" + query if "?" in url else "") + ("#" + fragment if "#" in url else "")
    return redact(shown, secrets), tuple(dict.fromkeys(v for v in found if v != MASK))


def _query_part(part: str, masked: Any, found: list[str]) -> str:
    """One ``name=value`` of a query, its value (or all of it) masked when a credential."""
    name, eq, value = part.partition("=")
    if masked(name, True):
        return MASK
    if value and any(_CREDENTIAL_NAME.search(stage) for stage in _decodings(name, True)):
        found.extend(_decodings(value, True))
        return f"{name}{eq}{MASK}"
    return f"{name}{eq}{MASK}" if masked(value, True) else part


_URL_IN_ARG = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+")


def redact_arg(arg: str) -> str:
    """A command-line argument with every URL in it passed through :func:`redact_url`.

    Then :func:`scrub`, so a known secret or a key-shaped value outside a URL is
    masked too: ``--base-url=http://h/v1/<key>`` and ``--base-url`` ``http://...``
    are both safe to record.
    """
    secrets = known_secrets()
    return scrub(_URL_IN_ARG.sub(lambda m: redact_url(m.group(0), secrets), arg))


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
        """``text`` with every secret masked, and made encodable (see :func:`well_formed`).

        The same object when there is nothing to do, as for nearly every reply.
        """
        if not text.isascii():  # O(1) in CPython: most replies skip the scan
            text = well_formed(text)
        return redact(text, self._secrets) if self._may_hold(text) else text

    def completion(self, completion: Completion) -> Completion:
        r"""The reply with every text field masked: the one place replies are scrubbed.

        Every text field is made encodable here too (:func:`well_formed`): a server
        may send a lone surrogate (``"\ud800"`` is valid JSON), which no store,
        file or terminal can write, and the call would otherwise be lost.

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

    def tree(self, value: Any) -> Any:
        """A JSON value (a dict, list or string tree) with every string in it masked.

        For replies read back from a store or a results file, which another tool or
        an older fairjudge may have written unscrubbed. ``value`` itself when nothing
        needed masking.
        """
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            clean: Any = {self.tree(k): self.tree(v) for k, v in value.items()}
        elif isinstance(value, list):
            clean = [self.tree(v) for v in value]
        else:
            return value
        return value if clean == value else clean  # a masked string never equals its text

    def _value(self, value: object) -> object:
        if value is None or type(value) in _PLAIN:  # most fields: no ABC check needed
            return value
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, Mapping) or not value:
            return value
        joined = _joined(value.keys()) + "\0" + _joined(value.values())
        if not self._may_hold(joined) and well_formed(joined) is joined:
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
_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    r"""``text`` with each lone surrogate replaced by U+FFFD; ``text`` itself when none.

    A JSON reply may escape a UTF-16 surrogate alone (``"\ud800"``); Python decodes
    it to a string that UTF-8 cannot encode, so SQLite, a file or the terminal would
    raise on it. A pair of surrogates becomes the character it encodes; a lone one
    becomes the replacement character, as any UTF-8 decoder shows a broken sequence.

    Example:
        >>> well_formed("A\udfff") == "A\ufffd", well_formed("\ud83d\ude00") == "\U0001f600"
        (True, True)
    """
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


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
