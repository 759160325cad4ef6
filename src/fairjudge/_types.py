"""Core value types: verdicts, scores, probabilities, replies and failures.

Two vocabularies are kept apart on purpose. A single judge call speaks in
*positions* (:class:`Verdict`: ``A``, ``B`` or ``tie``), because that is what the
judge saw. A resolved judgment speaks in *models* (:class:`Outcome`: ``"1"``,
``"2"`` or ``"tie"``), because that is what the user asked about. The
:class:`Order` of a call is what translates one into the other (:func:`translate`).
Items, calls and resolved judgments, built from these, are in :mod:`fairjudge._items`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, TypeVar

__all__ = [
    "OUTCOME_SCORE",
    "CallError",
    "ExpectedScore",
    "Order",
    "Outcome",
    "ParseFailure",
    "Probabilities",
    "Replies",
    "Reply",
    "Resolution",
    "ScoreReading",
    "Verdict",
    "failure_counts",
    "never_made",
    "stopped_by",
    "translate",
]


class Verdict(StrEnum):
    """What one judge call said, by position: the first answer shown, the second, or a tie."""

    A = "A"
    B = "B"
    TIE = "tie"


class Outcome(StrEnum):
    """A resolved verdict, by model: model 1 is better, model 2 is better, or a tie."""

    ONE = "1"
    TWO = "2"
    TIE = "tie"


class Order(StrEnum):
    """Which answer the judge saw first in one call."""

    ORIGINAL = "original"
    """``(question, answer_1, answer_2)``: position A holds model 1."""
    SWAPPED = "swapped"
    """``(question, answer_2, answer_1)``: position A holds model 2."""


OUTCOME_SCORE = {Outcome.ONE: 1.0, Outcome.TIE: 0.5, Outcome.TWO: 0.0}
"""Model 1's score for each outcome: a win counts 1, a tie ½, a loss 0."""


def translate(verdict: Verdict, order: Order) -> Outcome:
    """Map a position verdict back to the model it prefers.

    In the original order position A holds model 1; in the swapped order it holds
    model 2. A tie stays a tie.
    """
    if verdict is Verdict.TIE:
        return Outcome.TIE
    first_is_one = order is Order.ORIGINAL
    if verdict is Verdict.A:
        return Outcome.ONE if first_is_one else Outcome.TWO
    return Outcome.TWO if first_is_one else Outcome.ONE


class Resolution(StrEnum):
    """How the calls on one item are resolved into one :class:`Outcome`.

    - ``conservative`` (the seed protocol, the default): a model wins only if every
      call prefers it; any disagreement or any tie is a tie.
    - ``lenient`` (JudgeBench): ties abstain; the model with more preferring calls
      wins, and equal counts are a tie. With two calls, (A-pref, tie) counts as
      that preference, and two opposite preferences are a tie.
    - ``soft``: the item's score is the mean over calls of P(model 1 better)
      + ½·P(tie), from the judge's probabilities (a label counts as probability 1).
      The outcome is model 1 above ½, model 2 below, and a tie at exactly ½.
    """

    CONSERVATIVE = "conservative"
    LENIENT = "lenient"
    SOFT = "soft"


_PROB_TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True)
class Probabilities:
    """The judge's probabilities for the verdict slot, by position.

    They need not sum to 1 (the verdict token's mass can leak to other tokens), but
    each must be finite and non-negative and the sum at most 1.
    """

    a: float
    b: float
    tie: float = 0.0

    def __post_init__(self) -> None:
        for name in ("a", "b", "tie"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(
                    f"Probabilities.{name} must be a finite number >= 0; got {value!r}"
                )
        total = self.a + self.b + self.tie
        if total > 1 + _PROB_TOLERANCE:
            raise ValueError(f"Probabilities must sum to at most 1; got {total!r} ({self!r})")
        if total <= 0:
            raise ValueError(f"Probabilities must not all be zero; got {self!r}")

    @property
    def total(self) -> float:
        """The mass on the three verdicts."""
        return self.a + self.b + self.tie

    def normalized(self) -> Probabilities:
        """The same probabilities rescaled to sum to 1."""
        t = self.total
        return Probabilities(self.a / t, self.b / t, self.tie / t)

    def argmax(self) -> Verdict:
        """The most probable verdict; exact ties between A and B resolve to ``tie``."""
        if self.tie >= self.a and self.tie >= self.b:
            return Verdict.TIE
        if self.a == self.b:
            return Verdict.TIE
        return Verdict.A if self.a > self.b else Verdict.B

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form."""
        return {"A": self.a, "B": self.b, "tie": self.tie}

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, float]) -> Probabilities:
        """Build from ``{"A": pa, "B": pb, "tie": pt}`` (keys case-insensitive)."""
        lowered = {str(k).strip().lower(): float(v) for k, v in mapping.items()}
        unknown = set(lowered) - {"a", "b", "tie"}
        if unknown:
            raise ValueError(
                f"probability keys must be 'A', 'B' and optionally 'tie'; got {sorted(unknown)!r}"
            )
        return cls(lowered.get("a", 0.0), lowered.get("b", 0.0), lowered.get("tie", 0.0))


@dataclass(frozen=True, slots=True)
class ParseFailure:
    """A judge reply that held no readable verdict. Never counted as a tie or a loss."""

    raw: str
    reason: str


@dataclass(frozen=True, slots=True)
class CallError:
    """A judge call that failed after its retries (timeout, server error, ...)."""

    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class ExpectedScore:
    """The probability-weighted score of one dimension, from the score token's logprobs.

    Attributes:
        expected: Σ p(k)·k over the scale's levels, with p renormalised over them.
        probabilities: p(k) per level, renormalised (sums to 1).
        mass: The share of the first token's reported mass that fell on a level
            (low mass means the judge meant to say something other than a score).
    """

    expected: float
    probabilities: Mapping[int, float]
    mass: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (levels as string keys)."""
        return {
            "expected": self.expected,
            "probabilities": {str(k): p for k, p in self.probabilities.items()},
            "mass": self.mass,
        }


@dataclass(frozen=True, slots=True)
class ScoreReading:
    """A pointwise reading: the scores read from one reply.

    Attributes:
        scores: One whole number per dimension read (every dimension for a JSON reply,
            one for a bare-number reply).
        reason: The judge's reason, when it gave one.
        expected: The probability-weighted score of a dimension whose bare-number reply
            came with logprobs (G-Eval); empty otherwise.
    """

    scores: Mapping[str, int]
    reason: str | None = None
    expected: Mapping[str, ExpectedScore] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as the store's row and a ``score --out`` call record keep it."""
        out: dict[str, Any] = {"scores": dict(self.scores), "reason": self.reason}
        if self.expected:
            out["expected"] = {name: e.to_dict() for name, e in self.expected.items()}
        return out


# The reading's type: a pairwise reply's is a Verdict, the default, so a bare ``Reply``
# is ``Reply[Verdict]``. Type checkers see the default (PEP 696, from typing_extensions);
# at run time a plain TypeVar serves, so importing fairjudge does not load that module.
if TYPE_CHECKING:
    from typing_extensions import TypeVar as _DefaultTypeVar

    R = _DefaultTypeVar("R", covariant=True, default=Verdict)
else:
    R = TypeVar("R", covariant=True)


@dataclass(frozen=True, slots=True, init=False)
class Reply(Generic[R]):
    """What one judge call produced: its reading, or why there is none.

    The reading's type is the kind of judgment: a :class:`Verdict` for a pairwise
    call (``Reply[Verdict]``, the default, with :attr:`probabilities` when the
    backend gave logprobs), a :class:`ScoreReading` for a pointwise one
    (``Reply[ScoreReading]``), or whatever a custom parser reads. A reply holds a
    reading or a :attr:`failure`, never both and never neither. The parsers, the
    session and the records are generic over it; only :meth:`to_record` turns it
    into JSON.

    ``Reply(verdict=...)`` and :attr:`verdict` are the pairwise spelling, kept for
    every caller written before readings were typed; :attr:`payload` holds JSON-ready
    detail beside the reading (a jury's member votes), or a custom parser's reading.
    """

    reading: R | None
    probabilities: Probabilities | None
    raw: str | None
    failure: ParseFailure | CallError | None
    cached: bool
    key: str | None
    """The store key of the call, for LLM judges; links the judgment to its audit row."""
    payload: Mapping[str, object] | None
    """JSON-ready detail beside the reading, e.g. ``{"members": {...}}`` for a jury."""

    def __init__(
        self,
        reading: R | None = None,
        probabilities: Probabilities | None = None,
        raw: str | None = None,
        failure: ParseFailure | CallError | None = None,
        cached: bool = False,
        key: str | None = None,
        payload: Mapping[str, object] | None = None,
        *,
        verdict: Verdict | None = None,
    ) -> None:
        if verdict is not None:
            if reading is not None:
                raise TypeError("give a Reply its reading or its verdict, not both")
            reading = verdict  # type: ignore[assignment]  # the pairwise spelling
        if (reading is not None or payload is not None) == (failure is not None):
            raise ValueError("a Reply holds either a reading or a failure, not both or neither")
        for name, value in (
            ("reading", reading), ("probabilities", probabilities), ("raw", raw),
            ("failure", failure), ("cached", cached), ("key", key), ("payload", payload),
        ):  # fmt: skip
            object.__setattr__(self, name, value)

    @property
    def verdict(self) -> Verdict | None:
        """The pairwise reading: the verdict, or ``None`` (a failure, or another kind)."""
        reading = self.reading
        return reading if isinstance(reading, Verdict) else None

    @property
    def ok(self) -> bool:
        """Whether the call produced a reading."""
        return self.failure is None

    def to_record(self) -> dict[str, Any]:
        """The JSON-ready reading stored next to the raw reply in the store's row.

        A verdict is ``verdict``; any other reading (its ``to_dict()``, or itself when it
        is JSON already) and the :attr:`payload` are ``payload``.
        """
        if isinstance(self.failure, ParseFailure):
            return {"verdict": None, "failure": "parse_failure", "reason": self.failure.reason}
        if isinstance(self.failure, CallError):
            return {"verdict": None, "failure": "call_error", "reason": self.failure.message}
        reading = self.reading
        record: dict[str, Any] = {
            "verdict": reading.value if isinstance(reading, Verdict) else None,
            "probabilities": self.probabilities.to_dict() if self.probabilities else None,
        }
        if reading is not None and not isinstance(reading, Verdict):
            to_dict = getattr(reading, "to_dict", None)
            record["payload"] = to_dict() if callable(to_dict) else reading
        if self.payload is not None:
            record["payload"] = {**record.get("payload", {}), **self.payload}
        return record


def never_made(failure: object) -> bool:
    """Whether a call's failure is ``NotRun``: a budget stopped the run before it started.

    Such a call is neither a parse failure nor a call error: it is reported as not yet
    made, and a rerun with a larger budget makes it.
    """
    return isinstance(failure, CallError) and failure.kind == "NotRun"


def failure_counts(replies: Iterable[Reply[object]]) -> tuple[int, int]:
    """``(parse failures, call errors)`` among replies, whatever kind of judgment.

    A call a budget never started (``NotRun``) is neither: it is reported as not yet
    made, never as an error.
    """
    parse = errors = 0
    for reply in replies:
        failure = reply.failure
        if isinstance(failure, ParseFailure):
            parse += 1
        elif isinstance(failure, CallError) and not never_made(failure):
            errors += 1
    return parse, errors


T = TypeVar("T")


class Replies(list[T]):
    """A batch's answers, one per request in order, and why a budget stopped it, if it did.

    A judge's batch methods return this: it is a plain list of the answers (replies,
    or :class:`~fairjudge.judges.AnswerScores`) with one more attribute. When the
    session's ``max_calls`` or ``max_cost`` ran out, the calls never made are
    ``NotRun`` failures and :attr:`stopped` says which budget and how far the batch
    got; the evaluation built on the batch copies it into its result's ``stopped``.
    A budget stop is a result, not an exception: nothing has to be caught to keep
    the finished work.

    Attributes:
        stopped: The budget's message, or ``None`` when every call was made.
    """

    def __init__(self, answers: Iterable[T] = (), *, stopped: str | None = None) -> None:
        super().__init__(answers)
        self.stopped = stopped


def stopped_by(*batches: Iterable[object]) -> str | None:
    """The first budget stop among batches (each a :class:`Replies` or a plain list)."""
    for batch in batches:
        if isinstance(batch, Replies) and batch.stopped is not None:
            return batch.stopped
    return None
