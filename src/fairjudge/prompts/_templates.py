"""Versioned pairwise prompt templates, shipped as package data.

A template is a TOML file in ``templates/``; its name and version go into every
call's cache key. Answers are inserted, in one pass, inside tags that
:func:`defuse` keeps them from closing, so an answer cannot pose as instructions.
"""

from __future__ import annotations

import functools
import html
import itertools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from html.entities import html5
from importlib import resources
from typing import Any, Protocol, TypeVar

from fairjudge._call import Conversation, Message
from fairjudge._errors import ConfigError, InputError
from fairjudge._items import question_text
from fairjudge.io import BadTOML, loads_toml, read_text, shown
from fairjudge.prompts._parse import VERDICT_FORMATS, VerdictFormat

__all__ = ["PairwiseTemplate", "defuse", "get_template", "list_templates", "load_template"]


class _HasName(Protocol):
    @property
    def name(self) -> str: ...


_Named = TypeVar("_Named", bound=_HasName)

_PLACEHOLDER = re.compile(r"\{(question|answer_a|answer_b|reference)\}")

# Something a reader could take for one of our tags, in the text as it reads (see
# _as_read): a "<", any spaces and slashes, then the start of a block name. No closing
# ">" is needed, and the name may go on: over-escaping a look-alike costs nothing.
_TAG_START = re.compile(r"<[\s/]*(?:question|answer[\s_-]*[ab]|reference)")
# Every character that reads as "<" after NFKC ("<", "﹤", "＜"), and the start of any
# character reference: text without them cannot hold a tag.
_OPENERS = ("<", "\ufe64", "\uff1c", "&")
_ANY_OPENER = re.compile("[" + "".join(_OPENERS) + "]")
"""Finds any of :data:`_OPENERS` in one pass over the text, in C."""
# html.unescape's own pattern for a character reference.
_REFERENCE = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")


def _decode(reference: str) -> tuple[str, int]:
    """One match of html.unescape's pattern: its value, and how many characters it spans.

    As in :func:`html.unescape`, a named reference without ``;`` is its longest known
    prefix and the rest stays text. ``("", 0)``: no reference at all.
    """
    name = reference[1:]
    if name.startswith("#") or name in html5:
        return html.unescape(reference), len(reference)
    known = next((n for n in range(len(name) - 1, 1, -1) if name[:n] in html5), 0)
    return (html5[name[:known]], known + 1) if known else ("", 0)


def _as_read(text: str) -> tuple[str, list[int]]:
    """The text as a reader may take it, and where in ``text`` each character's source ends.

    Character references are decoded as :func:`html.unescape` does, again and again
    while any are left (``&amp;lt;`` reads as ``<`` too); each pass shortens the text,
    so this ends. A decoded character's source ends where the reference it came from
    ends. Then every character is NFKC-normalised (fullwidth and small forms become
    ASCII) and casefolded, and invisible characters (format, control, combining marks)
    are dropped, except whitespace.
    """
    ends = list(range(1, len(text) + 1))
    while True:
        pieces: list[str] = []
        new_ends: list[int] = []
        pos = 0
        for match in _REFERENCE.finditer(text):
            value, size = _decode(match.group(0))
            if size:
                last = match.start() + size - 1
                pieces.append(text[pos : match.start()] + value)
                new_ends += ends[pos : match.start()] + [ends[last]] * len(value)
                pos = last + 1
        if not pieces:
            break
        text, ends = "".join([*pieces, text[pos:]]), new_ends + ends[pos:]
    shown: list[str] = []
    shown_ends: list[int] = []
    for char, end in zip(text, ends, strict=True):
        for c in unicodedata.normalize("NFKC", char).casefold():
            if c.isspace() or unicodedata.category(c)[0] not in "CM":
                shown.append(c)
                shown_ends.append(end)
    return "".join(shown), shown_ends


def defuse(text: str) -> str:
    r"""Neutralise anything in untrusted text that could read as one of our tags.

    Rather than list the spellings of a tag, this reads the text as a judge might and
    looks there: character references decoded (``&lt;/answer_a&gt;``, ``&#60;``,
    ``&amp;lt;``), compatibility forms folded (``＜/answer_a＞``), case ignored
    (``</ANSWER_A>``), invisible characters dropped, and any spaces or slashes
    allowed between the ``<`` and the name (``</ answer_a >``, ``< /answer_a>``).
    Every ``<`` that starts such a tag, closing or opening, gets a backslash right
    after it, in whatever form it was written: ``</answer_a>`` becomes
    ``<\/answer_a>`` and ``&lt;answer_b&gt;`` becomes ``&lt;\answer_b&gt;``. The text
    stays readable to the judge but holds no tag of ours, and defusing it again
    changes nothing.
    """
    return defuse_tags(text, _TAG_START)


def defuse_tags(text: str, tag_start: re.Pattern[str]) -> str:
    """Put a backslash after every ``<`` that starts a match of ``tag_start``, as read."""
    if _ANY_OPENER.search(text) is None:
        return text  # nothing can read as "<": the common case, kept cheap
    shown, ends = _as_read(text)
    cuts = sorted({ends[m.start()] for m in tag_start.finditer(shown)})
    if not cuts:
        return text
    bounds = [0, *cuts, len(text)]
    return "\\".join(text[start:stop] for start, stop in itertools.pairwise(bounds))


@functools.lru_cache(maxsize=64)
def _pieces(user: str) -> tuple[str, ...]:
    """A template's text cut at its placeholders: literal text, name, literal, name...

    Even positions hold literal text, odd positions a placeholder's name. Rendering
    puts each name's value in its place and joins: the same text ``_PLACEHOLDER.sub``
    gives, without a regular-expression pass and a callback per placeholder per call.
    """
    out: list[str] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(user):
        out += [user[pos : m.start()], m.group(1)]
        pos = m.end()
    out.append(user[pos:])
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PairwiseTemplate:
    """A pairwise judge prompt.

    Attributes:
        name: Template name, part of the cache key.
        version: Template version, part of the cache key.
        system: The system message.
        user: The user message, with placeholders.
        verdict_format: How the judge gives its verdict, and so how a reply is read:
            ``"label"``, ``"explained"`` or ``"json"`` (see
            :func:`fairjudge.prompts.parse_verdict`).
        needs_reference: The template uses ``{reference}``.
        description: One line for ``--help`` and reports.
    """

    name: str
    version: str
    system: str
    user: str
    verdict_format: VerdictFormat = "label"
    needs_reference: bool = False
    description: str = ""

    @property
    def verdict_only(self) -> bool:
        """Whether the reply is a bare verdict (the ``"label"`` format).

        Then ``max_tokens`` can be tiny and the first token's logprobs are the
        verdict's probabilities.
        """
        return self.verdict_format == "label"

    def render(
        self,
        question: str | Conversation,
        answer_a: str,
        answer_b: str,
        reference: str | None = None,
    ) -> tuple[Message, ...]:
        """Render the chat messages for one call.

        A conversation is shown inside the question block as a role-labelled
        transcript (:func:`fairjudge._items.question_text`), defused like any other
        untrusted text.

        Raises:
            ConfigError: The template needs a reference and none was given.
        """
        if self.needs_reference and reference is None:
            raise ConfigError(
                f"template {self.name!r} needs a reference answer; add a 'reference' column"
            )
        values = {
            "question": defuse(question_text(question)),
            "answer_a": defuse(answer_a),
            "answer_b": defuse(answer_b),
            "reference": defuse(reference or ""),
        }
        parts = list(_pieces(self.user))
        parts[1::2] = [values[name] for name in parts[1::2]]
        user = "".join(parts)
        messages: list[Message] = []
        if self.system:
            messages.append(("system", self.system))
        messages.append(("user", user))
        return tuple(messages)


_TEMPLATE_KEYS = frozenset(
    {"name", "version", "description", "system", "user", "verdict_format", "verdict_only",
     "needs_reference"}
)  # fmt: skip


def load_template(text: str, *, source: str = "<string>") -> PairwiseTemplate:
    """Parse a template from TOML text.

    Every field is type-checked, and an unknown field is an error rather than
    ignored: a template is data (text, a version, a format), and may come from
    someone else, so it names no code and nothing else is read from it.

    Raises:
        ConfigError: The TOML is invalid or nested too deeply, a required field is
            missing, a field is unknown or of the wrong type, or the verdict format
            is unknown or contradicts ``verdict_only``; names the source and field.
    """
    data = read_toml(text, "template", source, ("name", "version", "user"))
    unknown = sorted(set(data) - _TEMPLATE_KEYS)
    if unknown:
        raise ConfigError(f"template {source}: unknown field(s) {shown(unknown)}; "
                          f"the fields are {', '.join(sorted(_TEMPLATE_KEYS))}")  # fmt: skip
    user = toml_string(data, "user", "template", source)
    for needed in ("{question}", "{answer_a}", "{answer_b}"):
        if needed not in user:
            raise ConfigError(f"template {source}: the user message lacks {needed}")
    needs_reference = data.get("needs_reference", "{reference}" in user)
    if not isinstance(needs_reference, bool):
        raise ConfigError(f"template {source}: 'needs_reference' must be true or false; "
                          f"got {shown(needs_reference)}")  # fmt: skip
    name = toml_string(data, "name", "template", source)
    if not name.strip():
        raise ConfigError(f"template {source}: 'name' is empty")
    return PairwiseTemplate(
        name=name,
        version=toml_version(data, "template", source),
        system=toml_string(data, "system", "template", source, ""),
        user=user,
        verdict_format=_verdict_format(data, source),
        needs_reference=needs_reference,
        description=toml_string(data, "description", "template", source, ""),
    )


def toml_string(
    data: dict[str, Any], key: str, kind: str, source: str, default: str | None = None
) -> str:
    """The string field ``key`` (``default`` when absent, if one is given)."""
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ConfigError(f"{kind} {source}: {key!r} must be a string; got {shown(value)}")
    return value


def toml_version(data: dict[str, Any], kind: str, source: str) -> str:
    """The version: a string, or a whole number (``version = 2`` reads as ``"2"``)."""
    value = data["version"]
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f"{kind} {source}: 'version' must be a string such as \"2\" (or a whole "
            f"number); got {shown(value)}"
        )
    return value


def read_toml(text: str, kind: str, source: str, required: tuple[str, ...]) -> dict[str, Any]:
    """Parse TOML text for a ``kind`` file, checking that the ``required`` keys are there."""
    try:
        data = loads_toml(text)
    except BadTOML as exc:
        raise ConfigError(f"{kind} {source}: {exc}") from None
    missing = [k for k in required if k not in data]
    if missing:
        raise ConfigError(f"{kind} {source}: missing field(s) {missing}")
    return data


def load_builtins(folder: str, load: Callable[..., _Named]) -> dict[str, _Named]:
    """Every ``*.toml`` in the package data ``folder``, parsed by ``load``, by name."""
    found = {}
    for entry in (resources.files("fairjudge.prompts") / folder).iterdir():
        if entry.name.endswith(".toml"):
            loaded = load(entry.read_text("utf-8"), source=entry.name)
            found[loaded.name] = loaded
    return found


def _load_file(name: str, kind: str, load: Callable[..., _Named]) -> _Named:
    """A ``kind`` file at path ``name``, parsed by ``load``."""
    try:
        text = read_text(name)  # a regular UTF-8 file of bounded size, or one InputError
    except InputError as exc:
        raise ConfigError(f"{kind} {exc}") from None
    return load(text, source=name)


def get_named(
    name: str, kind: str, load: Callable[..., _Named], found: Callable[[], dict[str, _Named]]
) -> _Named:
    """A ``kind`` file by path (``*.toml``, parsed by ``load``), or a built-in one by name."""
    if name.endswith(".toml"):
        return _load_file(name, kind, load)
    builtin = found()
    try:
        return builtin[name]
    except KeyError:
        raise ConfigError(
            f"unknown {kind} {name!r}; built-in {kind}s: {', '.join(sorted(builtin))}, "
            "or give a path to a .toml file"
        ) from None


def _verdict_format(data: dict[str, object], source: str) -> VerdictFormat:
    """The template's ``verdict_format``, or the one its legacy ``verdict_only`` implies."""
    legacy = data.get("verdict_only")
    if legacy is not None and not isinstance(legacy, bool):
        raise ConfigError(f"template {source}: 'verdict_only' must be true or false; "
                          f"got {shown(legacy)}")  # fmt: skip
    implied: VerdictFormat = "explained" if legacy is False else "label"
    declared = data.get("verdict_format", implied)
    for allowed in VERDICT_FORMATS:
        if declared == allowed:
            fmt = allowed
            break
    else:
        raise ConfigError(
            f"template {source}: verdict_format must be one of "
            f"{', '.join(map(repr, VERDICT_FORMATS))}; got {shown(declared)}"
        )
    if legacy is not None and legacy != (fmt == "label"):
        raise ConfigError(
            f"template {source}: verdict_only = {str(legacy).lower()} contradicts "
            f"verdict_format = {fmt!r}; drop verdict_only"
        )
    return fmt


@cache
def _builtin() -> dict[str, PairwiseTemplate]:
    return load_builtins("templates", load_template)


def list_templates() -> list[str]:
    """Names of the built-in templates."""
    return sorted(_builtin())


def get_template(name: str = "default") -> PairwiseTemplate:
    """A built-in template by name, or a template file by path (``*.toml``).

    Raises:
        ConfigError: No such template; the message lists the built-in names.
    """
    return get_named(name, "template", load_template, _builtin)
