"""What an audit judges: answers to questions, from the built-in suite or the user's file.

The built-in suite (package data, validated on load: a broken row is a packaging bug
that fails loudly with file and line) gives each question a short correct answer and a
flawed one. A user's file (``--items``) is read like ``fairjudge score``'s input:
``question`` (or a conversation), ``answer``, optional ``id``, ``reference``, and
``system``, the model (family) that wrote the answer. Which experiments an input
allows follows from what it has (:func:`position_pairs`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from fairjudge._call import Conversation
from fairjudge._errors import ConfigError, InputError
from fairjudge._items import Item, question_text

__all__ = [
    "CATEGORIES",
    "AuditItem",
    "Category",
    "SuiteItem",
    "builtin_items",
    "check_items",
    "load_audit_items",
    "load_builtin_suite",
    "parse_suite",
    "position_pairs",
]


@dataclass(frozen=True, slots=True)
class AuditItem:
    """One answer an audit judges.

    Attributes:
        question: The question, or the conversation the answer continues.
        answer: A concise answer (padded for the verbosity experiment).
        other: A second answer to the same question (the built-in suite's flawed
            one), for the position experiment; ``None`` if none.
        id: A stable identifier.
        system: The model (family) that wrote ``answer``, for self-preference.
        reference: A reference answer, when the rubric needs one.
        category: A free-form label.
    """

    question: str | Conversation
    answer: str
    other: str | None = None
    id: str | None = None
    system: str | None = None
    reference: str | None = None
    category: str | None = None

    @property
    def cluster(self) -> str:
        """Answers to one question are resampled together."""
        return question_text(self.question)

    def paired(
        self, answer_2: str, *, model_1: str | None = None, model_2: str | None = None
    ) -> Item:
        """This answer as answer 1 against ``answer_2``, with its id, reference and category."""
        return Item(self.question, self.answer, answer_2, id=self.id, reference=self.reference,
                    category=self.category, model_1=model_1, model_2=model_2)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        question: Any = self.question
        if not isinstance(question, str):
            question = [{"role": r, "content": c} for r, c in question]
        return {
            "id": self.id, "question": question, "answer": self.answer, "other": self.other,
            "system": self.system, "reference": self.reference, "category": self.category,
        }  # fmt: skip


Category = Literal["fact", "reasoning", "code", "summary"]
CATEGORIES: tuple[Category, ...] = get_args(Category)
"""The kinds of item the suite covers, in the order the file lists them."""

_SUITE_FILE = "builtin.jsonl"
_FIELDS = ("id", "category", "question", "answer", "flawed")


@dataclass(frozen=True, slots=True)
class SuiteItem:
    """One question of the audit suite, with a right and a wrong answer.

    Attributes:
        id: Stable identifier such as ``"fact-01"``; it keys cached judge calls.
        category: What kind of question this is: a fact, reasoning, code or a summary.
        question: The question as the judge sees it (summaries include the passage).
        answer: A short, correct answer: the concise side of the verbosity experiment.
        flawed: A plausible answer of similar length and style that is wrong.
    """

    id: str
    category: Category
    question: str
    answer: str
    flawed: str


def _category(value: str, source: str, line: int) -> Category:
    for category in CATEGORIES:
        if value == category:
            return category
    raise InputError(
        f"category must be one of {', '.join(CATEGORIES)}; got {value!r}", path=source, line=line
    )


def _item(row: object, source: str, line: int) -> SuiteItem:
    """One validated row: an object with exactly the five fields, each a non-empty string."""
    if not isinstance(row, dict):
        kind = type(row).__name__
        raise InputError(f"expected a JSON object, got {kind}", path=source, line=line)
    missing = [f for f in _FIELDS if f not in row]
    unknown = sorted(set(row) - set(_FIELDS))
    if missing or unknown:
        raise InputError(
            f"fields must be {', '.join(_FIELDS)}; missing {missing}, unknown {unknown}",
            path=source,
            line=line,
        )
    for field in _FIELDS:
        value = row[field]
        if not isinstance(value, str) or not value.strip():
            raise InputError(
                f"field {field!r} must be a non-empty string; got {value!r}", path=source, line=line
            )
    return SuiteItem(
        id=row["id"],
        category=_category(row["category"], source, line),
        question=row["question"],
        answer=row["answer"],
        flawed=row["flawed"],
    )


def parse_suite(text: str, source: str = "<suite>") -> tuple[SuiteItem, ...]:
    """Parse and validate suite rows: one JSON object a line, blank lines skipped.

    Args:
        text: The JSONL text.
        source: Where it came from, for error messages.

    Returns:
        The items, in file order.

    Raises:
        InputError: A line is not JSON, lacks a field or has an unknown one, has an
            empty or non-string value or an unknown category, or repeats an id; the
            message names ``source`` and the line.
    """
    items: list[SuiteItem] = []
    first_line: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", path=source, line=number) from exc
        item = _item(row, source, number)
        if item.id in first_line:
            raise InputError(
                f"duplicate id {item.id!r} (first on line {first_line[item.id]})",
                path=source,
                line=number,
            )
        first_line[item.id] = number
        items.append(item)
    if not items:
        raise InputError("the suite has no items", path=source)
    return tuple(items)


@cache
def load_builtin_suite() -> tuple[SuiteItem, ...]:
    """The built-in audit suite, read once from the package data.

    Returns:
        The 40 items, ten per category, in file order.

    Raises:
        InputError: The packaged file is broken (see :func:`parse_suite`); reinstalling
            fairjudge restores it.
    """
    resource = resources.files("fairjudge.audit") / "suite" / _SUITE_FILE
    source = f"fairjudge/audit/suite/{_SUITE_FILE}"
    try:
        text = resource.read_text("utf-8")
    except OSError as exc:
        raise InputError(
            f"the built-in suite is missing from the installed package ({exc}); "
            "reinstall fairjudge",
            path=source,
        ) from exc
    return parse_suite(text, source)


def builtin_items() -> list[AuditItem]:
    """The built-in suite: 40 questions written for fairjudge, each with a flawed answer."""
    return [
        AuditItem(s.question, s.answer, other=s.flawed, id=s.id, category=s.category)
        for s in load_builtin_suite()
    ]


def load_audit_items(
    path: str | Path, *, skip_invalid: bool = False, allow_empty: bool = False
) -> list[AuditItem]:
    """Read a user's audit items (the columns of ``fairjudge score``'s input).

    Raises:
        InputError: The file cannot be read or a row is invalid (file and line named).
    """
    from fairjudge.io import load_score_items

    loaded = load_score_items(path, skip_invalid=skip_invalid, allow_empty=allow_empty)
    return [
        AuditItem(
            it.question,
            it.answer,
            id=it.id,
            system=it.system,
            reference=it.reference,
            category=it.category,
        )
        for it in loaded.items
    ]


def position_pairs(items: Sequence[AuditItem]) -> list[Item]:
    """The pairs the position experiment swaps.

    An item with a second answer (``other``) gives one pair. Otherwise answers to the
    same question from different systems pair up: the first two, in input order.
    """
    pairs: list[Item] = []
    by_question: dict[str, list[AuditItem]] = {}
    for it in items:
        if it.other is not None:
            pairs.append(it.paired(it.other))
        elif it.system is not None:
            by_question.setdefault(it.cluster, []).append(it)
    for group in by_question.values():
        first = group[0]
        second = next((g for g in group[1:] if g.system != first.system), None)
        if second is None:
            continue
        pairs.append(first.paired(second.answer, model_1=first.system, model_2=second.system))
    return pairs


def check_items(items: Sequence[AuditItem]) -> None:
    """Refuse an empty input or blank answers before any call.

    Raises:
        ConfigError: No items, or an item with an empty answer.
    """
    if not items:
        raise ConfigError("no items to audit; give items=FILE or use the built-in suite",
                          params="items")  # fmt: skip
    blank = [it.id or str(i) for i, it in enumerate(items) if not it.answer.strip()]
    if blank:
        raise ConfigError(f"{len(blank)} item(s) have an empty answer (first: {blank[0]!r})")
