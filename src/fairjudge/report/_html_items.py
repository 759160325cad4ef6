"""The comparison explorer's data: one compact record per judged item.

The records go into the page as JSON in a ``<script type="application/json">``
block, which the browser never runs; the page's script parses it and inserts every
string with ``textContent``. :func:`~fairjudge.report._document.script_json` embeds
them, so no answer, reply or question can close the block (``</script>``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fairjudge._items import Call, Judgment
from fairjudge._types import CallError, ParseFailure
from fairjudge.report._text import visible_all

__all__ = ["item_records"]


def _call(c: Call) -> dict[str, Any]:
    record: dict[str, Any] = {"o": c.order.value, "s": c.sample}
    if c.reply.verdict is not None:
        record["v"] = c.reply.verdict.value
    if c.preferred is not None:
        record["p"] = c.preferred.value
    probs = c.reply.probabilities
    if probs is not None:
        record["pr"] = [probs.a, probs.b, probs.tie]
    if c.reply.raw is not None:
        record["raw"] = c.reply.raw
    failure = c.reply.failure
    if isinstance(failure, ParseFailure):
        record["f"], record["ft"] = failure.reason, "parse"
    elif isinstance(failure, CallError):
        record["f"], record["ft"] = f"{failure.kind}: {failure.message}", "error"
    if c.reply.cached:
        record["c"] = 1
    return record


def _keys(judgments: Sequence[Judgment]) -> list[str]:
    """Permalink keys: the item ids when they are unique, else the 1-based positions."""
    ids = [j.item.id for j in judgments]
    if None not in ids and len(set(ids)) == len(ids):
        return [str(i) for i in ids]
    return [str(n) for n in range(1, len(judgments) + 1)]


def item_records(judgments: Sequence[Judgment]) -> list[dict[str, Any]]:
    """One compact record per judgment, in input order (``None`` fields left out).

    Keys: ``k`` permalink key, ``id``, ``q`` question (a string, or ``[role, content]``
    turns), ``a1``/``a2`` answers, ``m1``/``m2`` model names, ``cat`` category, ``h``
    human label, ``hs`` human score, ``out`` outcome, ``sc`` score, ``cons``
    consistency, ``calls``: ``o`` order, ``s`` sample, ``v`` verdict, ``p`` preferred
    model, ``pr`` probabilities ``[A, B, tie]``, ``raw`` reply, ``f`` failure and
    ``ft`` its type (``parse`` or ``error``), ``c`` cached. Every string but ``k`` is
    text to show, with its hidden characters made visible.
    """
    records = []
    for key, j in zip(_keys(judgments), judgments, strict=True):
        it = j.item
        question: Any = (
            it.question if isinstance(it.question, str) else [list(t) for t in it.question]
        )
        shown: dict[str, Any] = visible_all({
            "id": it.id, "q": question, "a1": it.answer_1, "a2": it.answer_2,
            "m1": it.model_1, "m2": it.model_2, "cat": it.category,
            "h": it.human.value if it.human is not None else None, "hs": it.human_score,
            "out": j.outcome.value if j.outcome is not None else None, "sc": j.score,
            "cons": j.consistent, "calls": [_call(c) for c in j.calls],
        })  # fmt: skip
        # The key stays exact: it is the item's id in the permalink, never shown as text.
        record = {"k": key, **shown}
        records.append({k: v for k, v in record.items() if v is not None})
    return records
