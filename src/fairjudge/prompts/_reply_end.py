"""What may follow a reply's one slot: whitespace and a closing code fence, nothing else.

Both JSON parsers (verdicts in :mod:`._parse`, rubric scores in :mod:`._score_parse`)
read one JSON object that must end the reply. A judge that writes its object and
then echoes an answer would otherwise hand the reading to whatever the answer
planted after it. So the text after the object decides only whether the reply is
read at all, and this module says why it is not.
"""

from __future__ import annotations

import json
import re

__all__ = ["after_object", "quote"]

_CLOSING = re.compile(r"\s*(?:```\s*)?")
_QUOTE_MAX = 80
_PLAIN = json.JSONDecoder()


def quote(text: str) -> str:
    """``repr`` of ``text``, cut to 80 characters, for a failure's reason."""
    return repr(text if len(text) <= _QUOTE_MAX else text[: _QUOTE_MAX - 3] + "...")


def after_object(tail: str) -> str | None:
    """Why ``tail``, the text after a reply's JSON object, may not stand there.

    Returns:
        ``None`` when the tail is whitespace with at most one closing fence;
        otherwise the reason, naming a second JSON object or quoting the text.
    """
    if _CLOSING.fullmatch(tail):
        return None
    if _holds_object(tail):
        return "the reply holds a second JSON object after the first; it must be exactly one"
    return f"text after the JSON object: {quote(tail.strip())}; the object must end the reply"


def _holds_object(text: str) -> bool:
    pos = text.find("{")
    while pos != -1:
        try:
            obj, _ = _PLAIN.raw_decode(text, pos)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict):
            return True
        pos = text.find("{", pos + 1)
    return False
