"""Reading a verdict out of a judge's reply, and what every reply parser shares.

The parser sees the reply alone, never the answers, so an answer can reach it only
through the judge echoing it. The verdict is the one slot that ends the reply; a
reply holding a second slot, or prose instead of a slot, is a :class:`ParseFailure`
that is counted, never a guess and never a tie. Labels and keys (here and in the
score parsers) match after :func:`fold` only (ASCII case and whitespace), so a
look-alike character never passes for a real key, and after a reply's one slot only
whitespace and a closing code fence may follow.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Mapping
from typing import Any, Literal, get_args

from fairjudge._types import ParseFailure, Probabilities, Verdict

__all__ = [
    "FOLD",
    "SPACE",
    "VERDICT_FORMATS",
    "VerdictFormat",
    "after_object",
    "fold",
    "parse_verdict",
    "probabilities_from_logprobs",
    "quote",
]

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


VerdictFormat = Literal["label", "explained", "json"]
"""How a template asks the judge to give its verdict (see the module docstring)."""

VERDICT_FORMATS: tuple[VerdictFormat, ...] = get_args(VerdictFormat)

# Decoration a verdict may carry: markdown emphasis, quotes, brackets.
_DECOR = r"[\s\"'*`_\[\](){}]*"
_CLOSE = r"[\s\"'*`_\])}]*"
_END = rf"{_CLOSE}[.!]?{_CLOSE}$"
_LABEL = r"(?P<label>a|b|tie)"
_C_TIE = r"\[\[\s*(?P<c>c)\s*\]\]"
_WHO = r"(?:(?:answer|assistant|response)\s+)?"
_KEY = r"(?:verdict|answer|decision|winner|judge?ment|choice|result|preference)"
_SEP = r"[*_]*\s*(?::|=|—|–|\bis\b\s*:?)\s*"
# A keyed slot starts the line (or a sentence), after at most a lead-in and plain
# qualifiers: "Final verdict: A", "Overall, the better answer is B". Anything else
# before the key ("the worse answer is A", "neither answer is B") is prose that may
# say the opposite.
_LEAD = r"(?:(?:so|thus|therefore|overall|in\s+conclusion|in\s+summary|conclusion)\s*[,:]?\s+)?"
_QUALIFIER = r"(?:(?:my|the|our|final|overall|better|best|winning|stronger|preferred)\s+)*"
_KEYED_START = rf"{_DECOR}{_LEAD}{_QUALIFIER}{_KEY}{_SEP}{_DECOR}"
_KEYED_SLOT = rf"{_KEYED_START}(?:{_WHO}{_LABEL}|{_C_TIE})"

# The three shapes a final slot takes; each must end the line, so a slot is the
# line's last word.
_BARE = re.compile(rf"^{_DECOR}(?:{_WHO}{_LABEL}|{_C_TIE}){_END}", FOLD)
_BRACKET = re.compile(rf"\[\[\s*(?:{_LABEL}|(?P<c>c))\s*\]\]{_END}", FOLD)
_KEYED = re.compile(rf"(?:^|[.!?;]\s+){_KEYED_SLOT}{_END}", FOLD)
# A label reply is a slot from its first word: a bare label or a keyed slot.
_WHOLE_KEYED = re.compile(rf"^{_KEYED_SLOT}{_END}", FOLD)

# What counts as a slot anywhere in the reply (see _slots): a bracket slot wherever
# it stands; a keyed slot whose label is a word (a capital A or B, or tie: "Verdict:
# A Sydney." is the judge's verdict run into an echo) or ends a sentence or the line
# (any case: "the answer is a city" is prose, "Verdict: a." is not).
_ANY_BRACKET = re.compile(r"\[\[\s*(?:a|b|tie|c)\s*\]\]", FOLD)
_ANY_KEYED = re.compile(
    rf"(?:^|(?<=[.!;?]\s)){_KEYED_START}{_WHO}"
    rf"(?:(?-i:[AB])\b|tie\b|{_C_TIE}|[ab](?:{_END}|{_CLOSE}[.!;][\"'*`_\])}}]*(?=\s)))",
    FOLD,
)

_TO_VERDICT = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE}
_CLOSING_FENCE = re.compile(r"`{3,}")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | FOLD)
_JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


def parse_verdict(text: str, verdict_format: VerdictFormat) -> Verdict | ParseFailure:
    r"""Read the judge's verdict from its reply, and from nothing else.

    The verdict is the reply's one slot, and it ends the reply: a reply holding a
    second slot anywhere (a quoted ``[[B]]``, an echoed ``Verdict: A``) is a
    :class:`ParseFailure`, never a choice between them.

    Args:
        text: The judge's raw reply.
        verdict_format: The format the template asked for: ``"label"`` (the whole
            reply is the verdict), ``"explained"`` (the last non-empty line ends with
            the slot) or ``"json"`` (one JSON object with a ``"verdict"`` field).

    Returns:
        The verdict, or a :class:`ParseFailure` keeping the raw text and the reason.

    Raises:
        ValueError: ``verdict_format`` is not one of :data:`VERDICT_FORMATS`.

    Example:
        >>> parse_verdict("Both are fine, but B is clearer.\n\n[[B]]", "explained")
        <Verdict.B: 'B'>
        >>> parse_verdict("My verdict: [[A]]\nIt said: [[B]]", "explained").reason[:26]
        'more than one verdict slot'
    """
    if verdict_format not in VERDICT_FORMATS:
        raise ValueError(f"verdict_format must be one of {VERDICT_FORMATS}; got {verdict_format!r}")
    if not isinstance(text, str):
        return ParseFailure(repr(text), f"reply is {type(text).__name__}, not text")
    if not text.strip():
        return ParseFailure(text, "empty reply")
    if verdict_format == "json":
        return _parse_json(text)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if verdict_format == "explained" and len(lines) > 1 and _CLOSING_FENCE.fullmatch(lines[-1]):
        lines.pop()  # a closing fence may follow the slot
    if len(lines) > 1 and verdict_format == "label":
        return ParseFailure(
            text,
            f"no verdict slot: a verdict-only reply is one line (A, B or tie); "
            f"this one has {len(lines)} lines",
        )
    last = lines[-1]
    verdict = _slot_verdict(last) if verdict_format == "explained" else _label_verdict(last)
    if verdict is None:
        return _no_slot(text, lines)
    slots = _slots(lines)
    if len(slots) > 1:
        listed = ", ".join(f"{quote(slot)} (line {number})" for number, slot in slots)
        return ParseFailure(
            text, f"more than one verdict slot: {listed}; the reply must hold one, at its end"
        )
    return verdict


def _no_slot(text: str, lines: list[str]) -> ParseFailure:
    if len(lines) == 1:
        return ParseFailure(text, f"no verdict slot: the reply is not a verdict: {quote(lines[0])}")
    earlier = bool(_slots(lines[:-1]))
    note = " (an earlier line is one, but only the last line counts)" if earlier else ""
    return ParseFailure(
        text, f"no verdict slot: the last line is not a verdict: {quote(lines[-1])}{note}"
    )


def _slot_verdict(line: str) -> Verdict | None:
    """The verdict that ends one line, or ``None`` when the line does not end in a slot.

    A slot is a bare label (``A``, ``**tie**``), a bracket slot (``[[B]]``, after any
    prose) or a keyed slot (``Verdict: A``, "the better answer is B."), and nothing
    but decoration may follow it.
    """
    match = _final_slot(line)
    return None if match is None else _verdict_of(match)


def _final_slot(line: str) -> re.Match[str] | None:
    for pattern in (_BARE, _BRACKET, _KEYED):
        match = pattern.search(line)
        if match:
            return match
    return None


def _label_verdict(line: str) -> Verdict | None:
    """The verdict of a line that is one slot from its first word, or ``None``."""
    for pattern in (_BARE, _WHOLE_KEYED):
        match = pattern.match(line)
        if match:
            return _verdict_of(match)
    return None


def _verdict_of(match: re.Match[str]) -> Verdict | None:
    # The patterns fold ASCII only, so the label is "a", "b" or "tie" in some case;
    # a lookup that can miss all the same keeps a pattern edit from ever raising.
    return Verdict.TIE if match.group("c") else _TO_VERDICT.get(fold(match.group("label")))


def _slots(lines: list[str]) -> list[tuple[int, str]]:
    """Every verdict slot in the reply's lines, as ``(line number, text)``.

    A slot is whatever would be read as a verdict where it stands:

    - a bracket slot (``[[A]]``, ``[[ tie ]]``, ``[[C]]``), anywhere in a line;
    - a keyed slot at the start of a line or sentence (``Verdict: A.``, "The better
      answer is B;"), when its label is a capital ``A`` or ``B`` or ``tie`` standing
      as a word ("Verdict: A Sydney." counts) or ends the sentence ("verdict: a.");
    - whatever ends a line that would be read as the verdict were it the reply's
      last: a line that is a bare label (``B``, ``**Answer A**``), a line ending in
      a keyed slot ("... The better answer is b.").

    Prose that merely names an answer ("Answer A is better because ...", "B is
    wrong.", "A. names the city", "the answer is a city") holds no slot. Overlapping
    matches (``Verdict: [[A]]`` is a keyed and a bracket slot) are one slot.
    """
    found: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        spans = [m.span() for m in _ANY_BRACKET.finditer(line)]
        spans += [m.span() for m in _ANY_KEYED.finditer(line)]
        final = _final_slot(line)  # whatever would be read were this the last line
        if final is not None:
            spans.append(final.span())
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        found += [(number, line[start:end].strip(" .!?;")) for start, end in merged]
    return found


class _RepeatedKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _RepeatedKey(key)
        found[key] = value
    return found


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)


def _parse_json(text: str) -> Verdict | ParseFailure:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data, end = _DECODER.raw_decode(body)
    except _RepeatedKey as exc:
        return ParseFailure(text, f"no verdict field: the JSON object repeats {str(exc)!r}")
    except RecursionError:
        return ParseFailure(text, "no verdict field: the reply's JSON is nested too deeply")
    except ValueError as exc:  # json.JSONDecodeError
        return ParseFailure(text, f"no verdict field: the reply is not JSON ({exc})")
    if not isinstance(data, dict):
        kind = _JSON_KINDS.get(type(data), "a number")
        return ParseFailure(text, f"no verdict field: the reply is {kind}, not a JSON object")
    trailing = after_object(body[end:])
    if trailing is not None:
        return ParseFailure(text, f"no verdict field: {trailing}")
    if "verdict" not in data:
        return ParseFailure(text, "no verdict field: the JSON object has no 'verdict'")
    value = data["verdict"]
    verdict = _TO_VERDICT.get(fold(value)) if isinstance(value, str) else None
    if verdict is None:
        return ParseFailure(
            text, f'no verdict field: \'verdict\' must be "A", "B" or "tie"; got {_shown(value)}'
        )
    return verdict


def _shown(value: object) -> str:
    """``value`` for a reason: its ``repr``, cut short; a value too deep to print is named."""
    try:
        shown = repr(value)
    except RecursionError:  # JSON nested nearly as deep as the decoder allows
        return f"a {type(value).__name__} nested too deeply to show"
    return shown if len(shown) <= _SHOWN_MAX else shown[: _SHOWN_MAX - 3] + "..."


_SHOWN_MAX = 80


def _label_of(token: str) -> str | None:
    if token in _LABELS:
        return _LABELS[token]
    cleaned = fold(token.strip(SPACE + "\"'*`[](){}.:,"))
    label = _TOKEN_LABELS.get(cleaned)
    if len(_LABELS) < _MAX_LABELS:
        _LABELS[token] = label
    return label


_TOKEN_LABELS = {"a": "a", "b": "b", "tie": "tie", "ti": "tie", "c": "tie"}
"""What a cleaned token means: ``ti`` is the first piece of a split ``tie``; ``C`` is
FastChat's tie."""
_LABELS: dict[str, str | None] = {}
"""Each token's label, once read: a judge's top alternatives are the same few dozen
tokens in every reply, and a rerun reads thousands of replies."""
_MAX_LABELS = 4096


def probabilities_from_logprobs(top_logprobs: Mapping[str, float]) -> Probabilities | None:
    """Turn the verdict token's top logprobs into P(A), P(B), P(tie).

    Tokens are matched after stripping whitespace, quotes, brackets and case, so
    ``" A"``, ``"A"`` and ``"[["``-free variants pool together. ``tie`` may be split
    by the tokenizer, so its first piece ``ti`` counts as tie; ``C`` counts as tie
    (FastChat's convention). Mass on other tokens is left out, so the result may
    sum to less than 1.

    Returns:
        The probabilities, or ``None`` when no label token is among the alternatives.
    """
    mass = {"a": 0.0, "b": 0.0, "tie": 0.0}
    for token, logprob in top_logprobs.items():
        label = _label_of(token)
        if label is not None and math.isfinite(logprob):
            # A log probability is at most 0; a server's rounding may pass it a
            # little, a broken one by any amount (exp(710) overflows): both read as 0.
            mass[label] += math.exp(min(logprob, 0.0))
    total = sum(mass.values())
    if total <= 0:
        return None
    if total > 1:  # rounding in the server's logprobs; renormalise
        mass = {k: v / total for k, v in mass.items()}
    return Probabilities(mass["a"], mass["b"], mass["tie"])
