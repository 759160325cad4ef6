"""Versioned pairwise prompt templates, shipped as package data.

A template is a TOML file in ``templates/``: a system message, a user message with
``{question}``, ``{answer_a}``, ``{answer_b}`` (and ``{reference}`` where needed),
and a version. The name and version go into every call's cache key, so editing a
prompt means bumping its version, and a stale cached reply is never served for it.

Untrusted text stays data. Answers are wrapped in ``<answer_a>`` / ``<answer_b>``
tags, and :func:`defuse` rewrites any tag-like text inside the inserted values so an
answer cannot close its own block and pose as instructions. Substitution is a single
pass, so an answer that contains ``{answer_b}`` is inserted literally, never
expanded.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from fairjudge._call import Conversation, Message
from fairjudge._errors import ConfigError
from fairjudge._items import question_text

__all__ = ["PairwiseTemplate", "defuse", "get_template", "list_templates", "load_template"]

_PLACEHOLDER = re.compile(r"\{(question|answer_a|answer_b|reference)\}")
_TAG = re.compile(r"<(/?)(question|answer_a|answer_b|reference)>", re.IGNORECASE)


def defuse(text: str) -> str:
    r"""Neutralise our delimiter tags inside untrusted text.

    ``</answer_a>`` inside an answer becomes ``<\/answer_a>``: still readable to the
    judge, but no longer the tag that ends the block.
    """
    return _TAG.sub(lambda m: f"<\\{m.group(1)}{m.group(2)}>", text)


@dataclass(frozen=True, slots=True)
class PairwiseTemplate:
    """A pairwise judge prompt.

    Attributes:
        name: Template name, part of the cache key.
        version: Template version, part of the cache key.
        system: The system message.
        user: The user message, with placeholders.
        verdict_only: The judge replies with a bare verdict (so ``max_tokens`` can be
            tiny and the first token's logprobs are the verdict's probabilities).
        needs_reference: The template uses ``{reference}``.
        description: One line for ``--help`` and reports.
    """

    name: str
    version: str
    system: str
    user: str
    verdict_only: bool = True
    needs_reference: bool = False
    description: str = ""

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
        user = _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.user)
        messages: list[Message] = []
        if self.system:
            messages.append(("system", self.system))
        messages.append(("user", user))
        return tuple(messages)


def load_template(text: str, *, source: str = "<string>") -> PairwiseTemplate:
    """Parse a template from TOML text.

    Raises:
        ConfigError: The TOML is invalid or a required field is missing.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"template {source}: invalid TOML: {exc}") from exc
    missing = [k for k in ("name", "version", "user") if k not in data]
    if missing:
        raise ConfigError(f"template {source}: missing field(s) {missing}")
    user = str(data["user"])
    for needed in ("{question}", "{answer_a}", "{answer_b}"):
        if needed not in user:
            raise ConfigError(f"template {source}: the user message lacks {needed}")
    needs_reference = bool(data.get("needs_reference", "{reference}" in user))
    return PairwiseTemplate(
        name=str(data["name"]),
        version=str(data["version"]),
        system=str(data.get("system", "")),
        user=user,
        verdict_only=bool(data.get("verdict_only", True)),
        needs_reference=needs_reference,
        description=str(data.get("description", "")),
    )


@cache
def _builtin() -> dict[str, PairwiseTemplate]:
    folder = resources.files("fairjudge.prompts") / "templates"
    found = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".toml"):
            template = load_template(entry.read_text("utf-8"), source=entry.name)
            found[template.name] = template
    return found


def list_templates() -> list[str]:
    """Names of the built-in templates."""
    return sorted(_builtin())


def get_template(name: str = "default") -> PairwiseTemplate:
    """A built-in template by name, or a template file by path (``*.toml``).

    Raises:
        ConfigError: No such template; the message lists the built-in names.
    """
    if name.endswith(".toml"):
        try:
            with open(name, encoding="utf-8") as fh:
                return load_template(fh.read(), source=name)
        except OSError as exc:
            raise ConfigError(f"cannot read template file {name!r}: {exc}") from exc
    try:
        return _builtin()[name]
    except KeyError:
        raise ConfigError(
            f"unknown template {name!r}; built-in templates: {', '.join(list_templates())}, "
            "or give a path to a .toml file"
        ) from None
