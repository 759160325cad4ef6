"""The item explorer's data: one compact record per judged item, and safe embedding.

The records go into the page as JSON in a ``<script type="application/json">``
block, which the browser never runs; the page's script parses it and inserts every
string with ``textContent``. :func:`script_json` escapes ``<``, ``>`` and ``&``
(and the two line separators JavaScript once treated as newlines), so no answer,
reply or question can close the block (``</script>``) or open a comment in it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from fairjudge._items import Call, Judgment
from fairjudge._types import CallError, ParseFailure
from fairjudge.report._text import HiddenTable, replace_hidden, visible_all

__all__ = ["item_records", "json_ready", "script_json"]


def _json_escape(code: int) -> str:
    r"""``\uXXXX``, or a surrogate pair of them beyond the BMP, as JSON writes a code point."""
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


_HTML_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))
# The two line separators JavaScript once treated as newlines, and every hidden character.
_SCRIPT_ESCAPES = HiddenTable(_json_escape, {0x2028: "\\u2028", 0x2029: "\\u2029"})


def json_ready(value: Any) -> Any:
    """``value`` with every non-finite float as ``None`` (``JSON.parse`` rejects ``NaN``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    return value


def script_json(value: Any) -> str:
    r"""JSON that is safe inside a ``<script>`` element: it cannot end the element early.

    ``script_json({"a": "</script>"})`` is ``{"a": "\u003c/script\u003e"}``. Hidden
    characters (:func:`~fairjudge.report._text.is_hidden`) become escapes too: a right-to-left
    override is written as the six characters ``\u202e``, never as itself.
    """
    text = json.dumps(json_ready(value), ensure_ascii=False, allow_nan=False, default=str)
    for char, escape in _HTML_ESCAPES:
        text = text.replace(char, escape)
    return replace_hidden(text, _SCRIPT_ESCAPES)


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
