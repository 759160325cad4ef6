"""Reading rubric scores out of a judge's reply.

As for verdicts (:mod:`._parse`), the parsers read the reply alone, never the
answer that was scored. A reply is one JSON object that ends it (or one bare number),
validated against the rubric; anything else is a :class:`~fairjudge.ParseFailure`
naming the dimension and the value, never clipped, rounded or imputed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any

from fairjudge._call import Completion
from fairjudge._items import CallFailures
from fairjudge._types import (
    CallError,
    ExpectedScore,
    ParseFailure,
    Reply,
    ScoreReading,
    never_made,
)
from fairjudge.prompts._parse import after_object, fold, quote
from fairjudge.prompts._rubrics import Rubric

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "AnswerScores",
    "ExpectedScore",
    "ScoreCall",
    "ScoreContext",
    "ScoreReading",
    "expected_score",
    "parse_score_label",
    "parse_scores",
    "read_scores",
    "validate_scores",
]

_LABEL = re.compile(
    r"^[\s\"'*`_\[(]*(?P<n>[+-]?[0-9]+(?:\.[0-9]+)?)[\s\"'*`_\])]*\.?\s*\Z", re.ASCII
)
_DIGITS_MAX = 18
"""Longest score read as a number: past it, any scale is missed, and Python refuses
to convert a string of over 4,300 digits to an int (a ``ValueError``)."""
_QUOTE_MAX = 80
_PAIRWISE = frozenset({"verdict", "probabilities"})  # a score reply's record has neither


class _Object(dict[str, Any]):
    """A decoded JSON object that remembers a key it saw twice (after normalising)."""

    repeated: str | None = None


def _pairs(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object()
    for key, value in pairs:
        norm = fold(key)
        if norm in obj and obj.repeated is None:
            obj.repeated = key
        obj[norm] = value
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs)


def _the_object(text: str) -> _Object | str:
    """The reply's one JSON object, which its first ``{`` opens and which ends the reply.

    Returns:
        The object, or why the reply is not one object: none at all, a broken one, a
        second object after it, or text after it.
    """
    pos = text.find("{")
    if pos == -1:
        return f"no scores: the reply holds no JSON object: {quote(text.strip())}"
    obj: _Object  # an object, as it starts at a "{"
    try:
        obj, end = _DECODER.raw_decode(text, pos)
    except RecursionError:
        return "no scores: the reply holds no valid JSON object (nested too deeply)"
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            where = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
            return f"no scores: the reply holds no valid JSON object at its first '{{' ({where})"
        return f"no scores: the reply holds no valid JSON object ({exc})"
    trailing = after_object(text[end:])
    if trailing is not None:
        return f"no scores: {trailing}"
    return obj


@cache
def _model(names: tuple[str, ...], low: int, high: int) -> type[BaseModel]:
    # pydantic loads here, when the first reply is validated: the judges that use
    # these types load with every command, pydantic only with a scoring run.
    from pydantic import ConfigDict, Field, StrictInt, StrictStr, create_model

    score = (StrictInt, Field(ge=low, le=high))
    fields: dict[str, Any] = {name: score for name in names}
    fields["reason"] = (StrictStr | None, None)
    return create_model("RubricScores", __config__=ConfigDict(extra="ignore"), **fields)


def _why(error: Mapping[str, Any], scale: str) -> str:
    field = str(error["loc"][0]) if error.get("loc") else "?"
    kind, value = error.get("type"), error.get("input")
    if kind == "missing":
        return f"{field!r} is missing"
    if field == "reason":
        return f"'reason' must be a string; got {_shown(value)}"
    if kind in ("greater_than_equal", "less_than_equal"):
        return f"{field!r} is {_shown(value)}, outside the scale {scale}"
    return f"{field!r} must be a whole number on the scale {scale}; got {_shown(value)}"


def _shown(value: Any) -> str:
    """A decoded JSON value as JSON, cut to 80 characters, for a failure's reason."""
    try:
        shown = json.dumps(value)
    except RecursionError:  # nested nearly as deep as the decoder allows
        shown = f"a JSON {'object' if isinstance(value, dict) else 'array'} nested too deeply"
    return shown if len(shown) <= _QUOTE_MAX else shown[: _QUOTE_MAX - 3] + "..."


def validate_scores(data: Mapping[str, Any], rubric: Rubric) -> ScoreReading | str:
    """Check one set of scores against the rubric: every dimension, a whole number on the scale.

    Args:
        data: ``{dimension: score, ..., "reason": str}``; keys match after
            :func:`~fairjudge.prompts._parse.fold` (ASCII only), and other keys
            are ignored.
        rubric: Gives the dimensions and the scale.

    Returns:
        The reading, or the reason it is not one (every problem, ``;``-separated).
    """
    normalised: dict[str, Any] = {}
    for key, value in data.items():
        norm = fold(str(key))
        if norm in normalised:
            return f"invalid scores: the key {norm!r} is given twice"
        normalised[norm] = value
    from pydantic import ValidationError

    model = _model(rubric.names, *rubric.scale)
    try:
        parsed = model.model_validate(normalised)
    except ValidationError as exc:
        problems = [_why(e, rubric.scale_text) for e in exc.errors()]
        return "invalid scores: " + "; ".join(problems)
    values = parsed.model_dump()
    return ScoreReading({n: values[n] for n in rubric.names}, values.get("reason"))


def parse_scores(text: str, rubric: Rubric) -> ScoreReading | ParseFailure:
    r"""Read a JSON reply's scores, from the reply alone.

    Args:
        text: The judge's raw reply.
        rubric: The rubric the call was rendered from (its dimensions and scale).

    Returns:
        The scores and the reason, or a :class:`ParseFailure` that keeps the raw text
        and says what was wrong.

    Example:
        >>> from fairjudge.prompts import get_rubric
        >>> reply = '```json\n{"accuracy": 4, "relevance": 5, "usefulness": 3}\n```'
        >>> dict(parse_scores(reply, get_rubric("production")).scores)
        {'accuracy': 4, 'relevance': 5, 'usefulness': 3}
    """
    if not isinstance(text, str):
        return ParseFailure(repr(text), f"reply is {type(text).__name__}, not text")
    if not text.strip():
        return ParseFailure(text, "empty reply")
    found = _the_object(text)
    if isinstance(found, str):
        return ParseFailure(text, found)
    if found.repeated is not None:
        return ParseFailure(text, f"invalid scores: the JSON object repeats {found.repeated!r}")
    reading = validate_scores(found, rubric)
    return ParseFailure(text, reading) if isinstance(reading, str) else reading


def parse_score_label(text: str, rubric: Rubric, dimension: str) -> ScoreReading | ParseFailure:
    """Read a bare-number reply to a one-dimension call (``4``, ``**4**``, ``"4".``).

    Returns:
        The one score, or a :class:`ParseFailure`: the reply is not a single whole
        number, or the number is off the scale.
    """
    if not isinstance(text, str):
        return ParseFailure(repr(text), f"reply is {type(text).__name__}, not text")
    match = _LABEL.match(text)
    if match is None:
        return ParseFailure(
            text, f"no score: the reply is not a whole number: {quote(text.strip())}"
        )
    number = match.group("n")
    if not re.fullmatch(r"[+-]?[0-9]+", number):
        return ParseFailure(text, f"no score: {quote(number)[1:-1]} is not a whole number")
    low, high = rubric.scale
    if len(number.lstrip("+-0")) > _DIGITS_MAX:
        shown = quote(number)[1:-1]
        return ParseFailure(text, f"no score: {shown} is outside the scale {rubric.scale_text}")
    value = int(number)
    if not low <= value <= high:
        return ParseFailure(text, f"no score: {value} is outside the scale {rubric.scale_text}")
    return ScoreReading({dimension: value})


def expected_score(top_logprobs: Mapping[str, float], rubric: Rubric) -> ExpectedScore | None:
    """The probability-weighted score from the score token's top logprobs (G-Eval).

    Tokens are matched after stripping whitespace, quotes and markdown; a token counts
    for level ``k`` when it is exactly ``k``'s digits. Only scales whose levels are all
    one digit qualify (on 1-10, the token ``1`` may begin ``10``).

    Returns:
        The expected score, or ``None`` when the scale does not qualify or no level is
        among the alternatives.
    """
    if not rubric.single_digit:
        return None
    levels = set(rubric.levels)
    mass: dict[int, float] = {}
    total = 0.0
    for token, logprob in top_logprobs.items():
        if not math.isfinite(logprob):
            continue
        p = math.exp(min(logprob, 0.0))  # at most 0; exp() of a broken 710 overflows
        total += p
        cleaned = token.strip().strip("\"'*`_[]()")
        if _is_level(cleaned) and int(cleaned) in levels:
            mass[int(cleaned)] = mass.get(int(cleaned), 0.0) + p
    on_scale = sum(mass.values())
    if on_scale <= 0:
        return None
    probs = {k: mass.get(k, 0.0) / on_scale for k in sorted(levels)}
    expected = sum(k * p for k, p in probs.items())
    return ExpectedScore(expected, probs, min(on_scale / total, 1.0) if total > 0 else 0.0)


def _is_level(token: str) -> bool:
    """Whether a cleaned token is digits that may name a level (ASCII, and short)."""
    return token.isascii() and token.isdigit() and len(token) <= _DIGITS_MAX


@dataclass(frozen=True, slots=True)
class ScoreContext:
    """What the parser of one call needs: the rubric, and the one dimension asked, if any."""

    rubric: Rubric
    dimension: str | None = None


@dataclass(frozen=True, slots=True)
class ScoreCall:
    """One call made to score an answer: the dimension it asked (``None``: all), its reply."""

    dimension: str | None
    reply: Reply[ScoreReading]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: the reading or the failure, the raw reply, the store key."""
        reply, failure = self.reply, self.reply.failure
        record: dict[str, Any] = {"dimension": self.dimension, "payload": None}
        record.update((k, v) for k, v in reply.to_record().items() if k not in _PAIRWISE)
        if isinstance(failure, CallError):
            record["kind"] = failure.kind
        return {**record, "raw": reply.raw, "cached": reply.cached, "key": reply.key}


@dataclass(frozen=True, slots=True)
class AnswerScores(CallFailures):
    """What a judge said about one answer: every call, and the scores read from them.

    Attributes:
        calls: Every call, in order (one in JSON mode, one per dimension in label mode).
        scores: The dimensions scored (all of them, unless a call failed).
        expected: Probability-weighted scores, for dimensions whose call gave logprobs.
        reason: The judge's reason, when it gave one.
    """

    calls: tuple[ScoreCall, ...]
    scores: Mapping[str, int]
    expected: Mapping[str, float]
    reason: str | None = None

    @classmethod
    def from_calls(cls, calls: Sequence[ScoreCall]) -> AnswerScores:
        """Merge the readings of an answer's calls."""
        scores: dict[str, int] = {}
        expected: dict[str, float] = {}
        reason = None
        for call in calls:
            reading = call.reply.reading
            if reading is None:
                continue
            scores.update(reading.scores)
            expected.update((name, e.expected) for name, e in reading.expected.items())
            reason = reason or reading.reason
        return cls(tuple(calls), scores, expected, reason)

    @property
    def not_run(self) -> bool:
        """Whether a call was never made (a budget stopped the run first)."""
        return any(never_made(c.reply.failure) for c in self.calls)


def read_scores(completion: Completion, context: ScoreContext) -> Reply[ScoreReading]:
    """Read one pointwise reply, from the reply and the rubric alone.

    A JSON reply gives every dimension's score and the reason; a bare-number reply to
    a one-dimension call gives that score, and its probability-weighted score when the
    first token's logprobs came with it.
    """
    rubric, dimension = context.rubric, context.dimension
    if dimension is None:
        reading = parse_scores(completion.text, rubric)
    else:
        reading = parse_score_label(completion.text, rubric, dimension)
    if isinstance(reading, ParseFailure):
        return Reply(failure=reading)
    if dimension is not None and completion.top_logprobs:
        weighted = expected_score(completion.top_logprobs, rubric)
        if weighted is not None:
            reading = replace(reading, expected={dimension: weighted})
    return Reply(reading)
