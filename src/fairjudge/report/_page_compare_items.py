"""The explorer of judged pairs (``compare``, ``calibrate``, ``rank``): one record per item.

Each record (the kit's form, :mod:`fairjudge.report._page`) holds what the item's
:class:`~fairjudge.Judgment` holds: the question, both answers, the outcome and the
score, and every call with its verdict, probabilities and raw reply or its failure.
Its filters are the item's inconsistency, failures and disagreement with the human
label; its select is the category; it sorts by model 1's score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import fairjudge.report._page as kit
from fairjudge._call import Conversation
from fairjudge._items import Call, Judgment, question_text
from fairjudge._types import CallError, ParseFailure

__all__ = ["pair_explorer"]

_FLAGS = (
    {"key": "inconsistent", "label": "are inconsistent"},
    {"key": "parse", "label": "have a parse failure"},
    {"key": "error", "label": "have a call error"},
    {"key": "disagrees", "label": "disagree with the human label"},
)
_SNIPPET = 160
# The line under each title: the outcome (the Item section's first row), then the
# question's first 160 characters; explorer.js builds it from the record's details.
_SNIPPET_PARTS = ({"path": [0, "rows", 0, 1]}, {"path": [1, "pre"], "cut": _SNIPPET})


def _keys(judgments: Sequence[Judgment]) -> list[str]:
    """Permalink keys: the item ids when they are unique, else the 1-based positions."""
    ids = [j.item.id for j in judgments]
    if None not in ids and len(set(ids)) == len(ids):
        return [str(i) for i in ids]
    return [str(n) for n in range(1, len(judgments) + 1)]


def _side(value: str | None, m1: str | None, m2: str | None) -> str:
    """An outcome in words: the better model by name when known, a tie, or unresolved."""
    if value == "1":
        return f"{m1 or 'model 1'} better"
    if value == "2":
        return f"{m2 or 'model 2'} better"
    return "tie" if value == "tie" else "unresolved"


def _shown_first(verdict: str, order: str) -> str:
    if verdict == "tie":
        return "a tie"
    first = verdict == "A"
    answer = "answer 1" if (order == "original") == first else "answer 2"
    return f"{answer}, shown {'first' if first else 'second'}"


def _card(n: int, c: Call, m1: str | None, m2: str | None) -> dict[str, Any]:
    """One call: its order, its verdict and what it meant, its failure, its raw reply."""
    order = c.order.value
    head = f"Call {n} · {order} order" + (f" · sample {c.sample}" if c.sample else "")
    card: dict[str, Any] = {"h": head + (" · cached" if c.reply.cached else "")}
    rows = []
    failure = c.reply.failure
    if isinstance(failure, ParseFailure):
        card["fail"] = f"Parse failure: {failure.reason}"
    elif isinstance(failure, CallError):
        card["fail"] = f"Call error: {failure.kind}: {failure.message}"
    elif c.reply.verdict is not None:
        v = c.reply.verdict.value
        preferred = c.preferred.value if c.preferred is not None else None
        rows.append(["verdict", f"{v} ({_shown_first(v, order)}) → {_side(preferred, m1, m2)}"])
    probs = c.reply.probabilities
    if probs is not None:
        a, b = ("answer 1", "answer 2") if order == "original" else ("answer 2", "answer 1")
        shares = f"A ({a}) {probs.a:.3f} · B ({b}) {probs.b:.3f} · tie {probs.tie:.3f}"
        rows.append(["probabilities", shares])
    if rows:
        card["rows"] = rows
    card["pre"] = c.reply.raw if c.reply.raw is not None else "(no reply)"
    return card


def _question(question: str | Conversation) -> dict[str, Any]:
    """The question's detail: its text, or a conversation as the judge's transcript.

    A conversation is shown as :func:`~fairjudge._items.question_text` writes it (what a
    single-prompt template shows the judge), as the panel pages show it.
    """
    if isinstance(question, str):
        return {"h": "Question", "pre": question}
    return {"h": f"Conversation ({len(question)} turns)", "pre": question_text(question)}


def _record(key: str, n: int, j: Judgment) -> dict[str, Any]:
    it = j.item
    m1, m2 = it.model_1, it.model_2
    outcome = j.outcome.value if j.outcome is not None else None
    human = it.human.value if it.human is not None else None
    facts = [
        ["outcome", _side(outcome, m1, m2)],
        ["model 1's score", "none (unresolved)" if j.score is None else f"{j.score:.3f}"],
        ["consistent", "unknown (unresolved)" if j.consistent is None
         else "yes" if j.consistent else "no"],
        ["human label", {"1": "model 1", "2": "model 2", "tie": "tie"}.get(human or "", "none")],
    ]  # fmt: skip
    if it.human_score is not None:
        facts.append(["human score", f"{it.human_score:g}"])
    if it.category is not None:
        facts.append(["category", it.category])
    if m1 is not None or m2 is not None:
        facts.append(["models", f"1: {m1 or '?'}, 2: {m2 or '?'}"])
    question = _question(it.question)
    answers = [{"h": f"Answer 1 ({m1 or 'model 1'})", "pre": it.answer_1},
               {"h": f"Answer 2 ({m2 or 'model 2'})", "pre": it.answer_2}]  # fmt: skip
    # Side by side, in the order they were made: each swapped call beside its original.
    cards = [_card(i, c, m1, m2) for i, c in enumerate(j.calls, 1)]
    calls = {"h": "Calls", "c": "fj-calls", "two": cards}
    kinds = {type(c.reply.failure) for c in j.calls}
    flags = {
        "inconsistent": j.consistent is False,
        "parse": ParseFailure in kinds,
        "error": CallError in kinds,
        "disagrees": human is not None and outcome is not None and human != outcome,
    }
    # What is absent is left out (a flag not raised, no category, no score): the
    # explorer reads a missing value as false or none, and 10,000 items stay small.
    # The heading ("Item " + title) and the line under the title (the outcome, then
    # the question's start) are the spec's HEAD and SNIPPET, drawn from the record.
    record: dict[str, Any] = {"k": key, "t": it.id if it.id is not None else f"#{n}"}
    raised = {name: True for name, up in flags.items() if up}
    if raised:
        record["f"] = raised
    if it.category is not None:
        record["v"] = {"category": it.category}
    if j.score is not None:
        record["n"] = {"score": j.score}
    record["d"] = [{"h": "Item", "rows": facts}, question, {"two": answers}, calls]
    return record


def pair_explorer(judgments: Sequence[Judgment]) -> kit.Explorer | None:
    """The explorer over the judged items, in input order; ``None`` when there are none."""
    if not judgments:
        return None
    facets = [{"key": "category", "label": "Category"}]
    spec = {"flags": list(_FLAGS), "facets": facets,
            "sorts": [{"key": "score", "label": "model 1's score"}],
            "head": "Item ", "snippet": _SNIPPET_PARTS}  # fmt: skip
    records = [_record(k, n, j) for n, (k, j) in enumerate(zip(_keys(judgments), judgments,
                                                                strict=True), 1)]  # fmt: skip
    return kit.Explorer(spec, records)
