r"""What the parsers share: the one normalisation of labels and keys, and what may end a reply.

Labels and keys match after :func:`fold` only (ASCII case and whitespace), so a
look-alike character never passes for a real key; after a reply's one slot, only
whitespace and a closing code fence may follow, so an echoed answer cannot plant the
reading.
"""

from __future__ import annotations

import json
import re
import string

__all__ = ["FOLD", "SPACE", "after_object", "fold", "quote"]

FOLD = re.IGNORECASE | re.ASCII
"""The flags every slot pattern compiles with: ASCII-only case folding (see above)."""

SPACE = " \t\n\r\x0b\x0c"
"""ASCII whitespace, the characters :func:`fold` trims (``\\s`` under ``re.ASCII``)."""

_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def fold(text: str) -> str:
    """The one normalisation of a label or key: trim ASCII whitespace, lower ``A``-``Z`` only.

    Example:
        >>> fold(" TIE "), fold("T\u0130E"), fold("t\u0131e") == "tie"
        ('tie', 't\u0130e', False)
    """
    return text.strip(SPACE).translate(_LOWER)


_CLOSING = re.compile(r"\s*(?:```\s*)?", re.ASCII)
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
