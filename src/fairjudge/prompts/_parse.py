"""Reading a verdict out of a judge's reply.

Design:

- **The reply alone.** :func:`parse_verdict` takes the judge's reply and the
  template's verdict format, and nothing else: not the answers, not the question.
  Whatever an answer says ("output [[A]]", a copy of the judge's likely closing
  sentence with the opposite verdict), it cannot change how a reply is read, because
  the parser never sees it. An earlier design skipped reply lines copied from the
  answers; that let an answer veto the judge's real verdict by containing it.
- **One slot, in the format the template asked for.** Each template declares its
  :data:`VerdictFormat`, and the parser reads only the reply's final slot in that
  format:

  - ``"label"``: the whole reply is one line holding a verdict (``A``, ``**B**``,
    ``"tie".``, ``[[A]]``, ``Verdict: B``).
  - ``"explained"``: the judge explains, then concludes. Only the **last non-empty
    line** is read, and it must end with a verdict slot: ``[[A]]`` (MT-Bench; prose
    may lead up to it, as in "my final verdict is: [[A]]"), a keyed slot
    (``Verdict: B``, ``Final verdict: [[tie]]``, "The better answer is B."), or a
    bare label. The last line is the judge's last word: a verdict quoted or weighed
    earlier in the explanation never counts, and a P.S. after the verdict makes the
    reply unreadable rather than letting either line win.
  - ``"json"``: the reply is a JSON object (optionally in a fenced block) with a
    ``"verdict"`` field; a repeated key is ambiguous and rejected.

- **Never guess.** Prose is not a verdict: "The result is a tie." or "Decision: A
  or B? Clearly B." is a :class:`ParseFailure` that keeps the raw text and says
  what was wrong with which line; callers report it and never count it as a tie.

``C`` is accepted as a tie in bracket slots because FastChat's prompts use
``[[C]]`` for ties.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Literal, get_args

from fairjudge._types import ParseFailure, Probabilities, Verdict

__all__ = ["VERDICT_FORMATS", "VerdictFormat", "parse_verdict", "probabilities_from_logprobs"]

VerdictFormat = Literal["label", "explained", "json"]
"""How a template asks the judge to give its verdict (see the module docstring)."""

VERDICT_FORMATS: tuple[VerdictFormat, ...] = get_args(VerdictFormat)

# Decoration a verdict may carry: markdown emphasis, quotes, brackets.
_DECOR = r"[\s\"'*`_\[\](){}]*"
_END = r"[\s\"'*`_\])}]*[.!]?[\s\"'*`_\])}]*$"
_LABEL = r"(?P<label>a|b|tie)"
_C_TIE = r"\[\[\s*(?P<c>c)\s*\]\]"
_WHO = r"(?:(?:answer|assistant|response)\s+)?"
_KEY = r"(?:verdict|answer|decision|winner|judge?ment|choice|result|preference)"
_SEP = r"[*_]*\s*(?::|=|—|–|\bis\b\s*:?)\s*"

# The three shapes a slot takes; each must end the line, so a slot is the line's last word.
_BARE = re.compile(rf"^{_DECOR}(?:{_WHO}{_LABEL}|{_C_TIE}){_END}", re.IGNORECASE)
_BRACKET = re.compile(rf"\[\[\s*(?:{_LABEL}|(?P<c>c))\s*\]\]{_END}", re.IGNORECASE)
# A keyed slot starts the line (or its last sentence), after at most a lead-in and
# plain qualifiers: "Final verdict: A", "Overall, the better answer is B". Anything
# else before the key ("the worse answer is A", "neither answer is B") is prose that
# may say the opposite.
_LEAD = r"(?:(?:so|thus|therefore|overall|in\s+conclusion|in\s+summary|conclusion)\s*[,:]?\s+)?"
_QUALIFIER = r"(?:(?:my|the|our|final|overall|better|best|winning|stronger|preferred)\s+)*"
_KEYED = re.compile(
    rf"(?:^|[.!?;]\s+){_DECOR}{_LEAD}{_QUALIFIER}{_KEY}{_SEP}{_DECOR}"
    rf"(?:{_WHO}{_LABEL}|{_C_TIE}){_END}",
    re.IGNORECASE,
)

_TO_VERDICT = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE}
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)
_QUOTE_MAX = 80
_JSON_KINDS = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


def parse_verdict(text: str, verdict_format: VerdictFormat) -> Verdict | ParseFailure:
    r"""Read the judge's verdict from its reply, and from nothing else.

    Args:
        text: The judge's raw reply.
        verdict_format: The format the template asked for: ``"label"`` (the whole
            reply is the verdict), ``"explained"`` (only the last non-empty line is
            read) or ``"json"`` (a ``"verdict"`` field).

    Returns:
        The verdict, or a :class:`ParseFailure` keeping the raw text and the reason.

    Raises:
        ValueError: ``verdict_format`` is not one of :data:`VERDICT_FORMATS`.

    Example:
        >>> parse_verdict("Both are fine, but B is clearer.\n\n[[B]]", "explained")
        <Verdict.B: 'B'>
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
    verdict = _slot_verdict(lines[-1])
    if len(lines) > 1 and verdict_format == "label":
        return ParseFailure(
            text,
            f"no verdict slot: a verdict-only reply is one line (A, B or tie); "
            f"this one has {len(lines)} lines",
        )
    if verdict is not None:
        return verdict
    if len(lines) == 1:
        reason = f"no verdict slot: the reply is not a verdict: {_quote(lines[0])}"
        return ParseFailure(text, reason)
    earlier = any(_slot_verdict(line) is not None for line in lines[:-1])
    note = " (an earlier line is one, but only the last line counts)" if earlier else ""
    return ParseFailure(
        text, f"no verdict slot: the last line is not a verdict: {_quote(lines[-1])}{note}"
    )


def _slot_verdict(line: str) -> Verdict | None:
    """The verdict that ends one line, or ``None`` when the line does not end in a slot.

    A slot is a bare label (``A``, ``**tie**``), a bracket slot (``[[B]]``, after any
    prose) or a keyed slot (``Verdict: A``, "the better answer is B."), and nothing
    but decoration may follow it.
    """
    for pattern in (_BARE, _BRACKET, _KEYED):
        match = pattern.search(line)
        if match:
            return Verdict.TIE if match.group("c") else _TO_VERDICT[match.group("label").lower()]
    return None


def _quote(line: str) -> str:
    return repr(line if len(line) <= _QUOTE_MAX else line[: _QUOTE_MAX - 3] + "...")


class _RepeatedKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _RepeatedKey(key)
        found[key] = value
    return found


def _parse_json(text: str) -> Verdict | ParseFailure:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        return ParseFailure(text, f"no verdict field: the JSON object repeats {str(exc)!r}")
    except ValueError as exc:  # json.JSONDecodeError
        return ParseFailure(text, f"no verdict field: the reply is not JSON ({exc})")
    if not isinstance(data, dict):
        kind = _JSON_KINDS.get(type(data), "a number")
        return ParseFailure(text, f"no verdict field: the reply is {kind}, not a JSON object")
    if "verdict" not in data:
        return ParseFailure(text, "no verdict field: the JSON object has no 'verdict'")
    value = data["verdict"]
    label = value.strip().lower() if isinstance(value, str) else None
    if label not in _TO_VERDICT:
        return ParseFailure(
            text, f'no verdict field: \'verdict\' must be "A", "B" or "tie"; got {value!r}'
        )
    return _TO_VERDICT[label]


def _label_of(token: str) -> str | None:
    if token in _LABELS:
        return _LABELS[token]
    cleaned = token.strip().strip("\"'*`[](){}.:,").lower()
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
            mass[label] += math.exp(logprob)
    total = sum(mass.values())
    if total <= 0:
        return None
    if total > 1:  # rounding in the server's logprobs; renormalise
        mass = {k: v / total for k, v in mass.items()}
    return Probabilities(mass["a"], mass["b"], mass["tie"])
