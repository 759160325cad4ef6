"""The built-in audit suite: 40 questions that ship with fairjudge, so an audit needs no data.

Ten each of facts, reasoning, code and summaries, each with a short correct answer and
a plausible wrong one. The file is validated on load: a broken row is a packaging bug
that fails loudly with the file and line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal, get_args

from fairjudge._errors import InputError

__all__ = ["CATEGORIES", "Category", "SuiteItem", "load_builtin_suite", "parse_suite"]

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
