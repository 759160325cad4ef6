"""The score page's explorer: one record per answer, with its scores, reason and calls.

Each record (the kit's form, :mod:`fairjudge.report._page`) holds what the answer's
:class:`~fairjudge.evaluation.ScoredItem` holds: the question, the answer, every
dimension's score (with its probability-weighted score and the human's, when known),
the judge's reason, and every call with its raw reply or its failure. Its filters are
the item's failures and its disagreement with a human score; its selects are the
system, the category, and each dimension's score, so "accuracy = 2" is one choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fairjudge._types import CallError, ParseFailure
from fairjudge.evaluation import ScoredItem, ScoreResult

__all__ = ["DISAGREEMENT", "UNSCORED", "score_explorer_spec", "score_records"]

DISAGREEMENT = 1.0
"""How far a judge's score must be from the human's for the answer to disagree."""
UNSCORED = "unscored"


def score_explorer_spec(result: ScoreResult) -> dict[str, list[dict[str, str]]]:
    """The explorer's filters and selects for this run."""
    facets = [{"key": f"d:{name}", "label": name} for name in result.rubric.names]
    if result.systems or any(i.item.system for i in result.items):
        facets.append({"key": "system", "label": "system"})
    if any(i.item.category for i in result.items):
        facets.append({"key": "category", "label": "category"})
    flags = [
        {"key": "parse", "label": "have a parse failure"},
        {"key": "error", "label": "have a call error"},
        {"key": "unscored", "label": "are not fully scored"},
        {"key": "disagrees", "label": f"differ from a human score by {DISAGREEMENT:g} or more"},
    ]
    return {"flags": flags, "facets": facets}


def _question_text(question: object) -> str:
    if isinstance(question, str):
        return question
    return "\n".join(f"[{role}] {content}" for role, content in question)  # type: ignore[attr-defined]


def _disagrees(item: ScoredItem) -> bool:
    human, scores = item.item.human, item.scored.scores
    return any(abs(scores[d] - h) >= DISAGREEMENT for d, h in human.items() if d in scores)


def _call_rows(item: ScoredItem) -> list[list[str]]:
    rows = []
    for n, call in enumerate(item.scored.calls, 1):
        failure = call.reply.failure
        if isinstance(failure, ParseFailure):
            what = f"parse failure: {failure.reason}"
        elif isinstance(failure, CallError):
            what = f"call error ({failure.kind}): {failure.message}"
        else:
            reading = call.reply.reading
            what = ", ".join(f"{d} {s}" for d, s in reading.scores.items()) if reading else ""
        asked = call.dimension or "all dimensions"
        rows.append([str(n), asked, what, "yes" if call.reply.cached else "no"])
    return rows


def _score_table(
    item: ScoredItem, names: Sequence[str], columns: tuple[bool, bool]
) -> dict[str, Any]:
    """The answer's scores; the weighted and human columns only when the run has them."""
    weighted, human = columns
    scored = item.scored
    cols = ["dimension", "score"] + ["weighted"] * weighted + ["human"] * human
    cells = []
    for name in names:
        row = [name, str(scored.scores[name]) if name in scored.scores else UNSCORED]
        if weighted:
            e = scored.expected.get(name)
            row.append("" if e is None else f"{e:.2f}")
        if human:
            h = item.item.human.get(name)
            row.append("" if h is None else f"{h:g}")
        cells.append(row)
    return {"h": "Scores", "cols": cols, "cells": cells}


def _key(item: ScoredItem, index: int, seen: set[str]) -> str:
    key = item.item.id if item.item.id is not None else f"#{index + 1}"
    if key in seen:  # ids need not be unique in the input; a permalink must be
        key = f"{key}#{index + 1}"
    seen.add(key)
    return key


def _record(
    item: ScoredItem, key: str, names: Sequence[str], columns: tuple[bool, bool]
) -> dict[str, Any]:
    scored, it = item.scored, item.item
    failures = [c.reply.failure for c in scored.calls]
    parse = any(isinstance(f, ParseFailure) for f in failures)
    error = any(isinstance(f, CallError) for f in failures)
    shown = ", ".join(f"{n} {scored.scores[n]}" for n in names if n in scored.scores)
    title = " · ".join(p for p in (it.id or key, it.system, shown or "no score") if p)
    facets: dict[str, Any] = {f"d:{n}": str(scored.scores.get(n, UNSCORED)) for n in names}
    facets.update(system=it.system, category=it.category)
    question = _question_text(it.question)
    raws = [c.reply.raw or "" for c in scored.calls]
    facts = [["id", it.id or key], ["system", it.system or "(none)"],
             ["category", it.category or "(none)"]]  # fmt: skip
    details: list[dict[str, Any]] = [
        {"h": "Item", "rows": facts},
        _score_table(item, names, columns),
        {"h": "The judge's reason", "pre": scored.reason or "(none given)"},
        {"h": "Question", "pre": question},
        {"h": "Answer", "pre": it.answer},
    ]  # fmt: skip
    if it.reference is not None:
        details.append({"h": "Reference", "pre": it.reference})
    details.append({"h": "Calls", "cols": ["#", "asked", "reading or failure", "cached"],
                    "cells": _call_rows(item)})  # fmt: skip
    details.extend({"h": f"Call {n} raw reply", "pre": raw or "(no reply)"}
                   for n, raw in enumerate(raws, 1))  # fmt: skip
    return {
        "k": key,
        "t": title,
        "s": "",  # the search reads the details, which hold every text
        "f": {
            "parse": parse,
            "error": error,
            "unscored": not item.complete,
            "disagrees": _disagrees(item),
        },
        "v": facets,
        "d": details,
    }


def score_records(result: ScoreResult) -> list[dict[str, Any]]:
    """One explorer record per answer, in input order."""
    seen: set[str] = set()
    names = result.rubric.names
    columns = (
        any(i.scored.expected for i in result.items),
        any(i.item.human for i in result.items),
    )
    return [_record(item, _key(item, i, seen), names, columns)
            for i, item in enumerate(result.items)]  # fmt: skip
