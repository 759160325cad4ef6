"""What an audit judges: answers to questions, with a second answer and a family when known.

The built-in suite gives each question a short correct answer and a flawed one. A
user's file (``--items``) is read like ``fairjudge score``'s input: ``question`` (or a
conversation), ``answer``, optional ``id``, ``reference``, and ``system``, the model
(family) that wrote the answer. Which experiments an input allows follows from what
it has (:func:`position_pairs`, :func:`families`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._call import Conversation
from fairjudge._errors import ConfigError
from fairjudge._items import Item, question_text

__all__ = ["AuditItem", "builtin_items", "check_items", "load_audit_items", "position_pairs"]


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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        question: Any = self.question
        if not isinstance(question, str):
            question = [{"role": r, "content": c} for r, c in question]
        return {
            "id": self.id, "question": question, "answer": self.answer, "other": self.other,
            "system": self.system, "reference": self.reference, "category": self.category,
        }  # fmt: skip


def builtin_items() -> list[AuditItem]:
    """The built-in suite: 40 questions written for fairjudge, each with a flawed answer."""
    from fairjudge.audit._suite import load_builtin_suite

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
            pairs.append(Item(it.question, it.answer, it.other, id=it.id, reference=it.reference,
                              category=it.category))  # fmt: skip
        elif it.system is not None:
            by_question.setdefault(it.cluster, []).append(it)
    for group in by_question.values():
        first = group[0]
        second = next((g for g in group[1:] if g.system != first.system), None)
        if second is None:
            continue
        pairs.append(
            Item(
                first.question,
                first.answer,
                second.answer,
                id=first.id,
                reference=first.reference,
                category=first.category,
                model_1=first.system,
                model_2=second.system,
            )
        )
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
