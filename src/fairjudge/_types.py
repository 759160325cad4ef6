"""Core value types: verdicts, items, single calls and resolved judgments.

Two vocabularies are kept apart on purpose. A single judge call speaks in
*positions* (:class:`Verdict`: ``A``, ``B`` or ``tie``), because that is what the
judge saw. A resolved judgment speaks in *models* (:class:`Outcome`: ``"1"``,
``"2"`` or ``"tie"``), because that is what the user asked about. The
:class:`Order` of a call is what translates one into the other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = [
    "Call",
    "CallError",
    "Item",
    "Judgment",
    "Order",
    "Outcome",
    "ParseFailure",
    "Probabilities",
    "Reply",
    "Resolution",
    "Verdict",
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
class Reply:
    """What one judge call produced: a verdict, or the record of why there is none."""

    verdict: Verdict | None
    probabilities: Probabilities | None = None
    raw: str | None = None
    failure: ParseFailure | CallError | None = None
    cached: bool = False
    key: str | None = None
    """The store key of the call, for LLM judges; links the judgment to its audit row."""

    def __post_init__(self) -> None:
        if (self.verdict is None) == (self.failure is None):
            raise ValueError("a Reply holds either a verdict or a failure, not both or neither")

    @property
    def ok(self) -> bool:
        """Whether the call produced a verdict."""
        return self.verdict is not None


@dataclass(frozen=True, slots=True)
class Item:
    """One question with the two systems' answers, plus whatever else is known.

    Attributes:
        question: The prompt both systems answered.
        answer_1: Model 1's answer.
        answer_2: Model 2's answer.
        id: A stable identifier; used in results and to seed per-item randomness.
        reference: A reference answer, for reference-guided templates.
        category: A free-form label for breakdowns.
        human: A human label, ``"1"``, ``"2"`` or ``"tie"``, when known.
        human_score: A human score of how much better answer 1 is (any scale),
            for calibrating a judge's scores; ``None`` when unknown.
        cluster: Items sharing a cluster are resampled together by the bootstrap;
            defaults to the question text.
        model_1: Name of system 1, when known.
        model_2: Name of system 2, when known.
    """

    question: str
    answer_1: str
    answer_2: str
    id: str | None = None
    reference: str | None = None
    category: str | None = None
    human: Outcome | None = None
    human_score: float | None = None
    cluster: str | None = None
    model_1: str | None = None
    model_2: str | None = None

    @property
    def cluster_key(self) -> str:
        """The bootstrap cluster: the explicit cluster, else the question text."""
        return self.cluster if self.cluster is not None else self.question

    def swapped(self) -> Item:
        """The same item with the two answers (and models and human label) exchanged.

        ``human_score`` is dropped: its scale, and so its mirror image, is unknown.
        """
        flip = {Outcome.ONE: Outcome.TWO, Outcome.TWO: Outcome.ONE, Outcome.TIE: Outcome.TIE}
        return Item(
            question=self.question,
            answer_1=self.answer_2,
            answer_2=self.answer_1,
            id=self.id,
            reference=self.reference,
            category=self.category,
            human=flip[self.human] if self.human is not None else None,
            # The score's scale (and so its mirror point) is unknown: drop it.
            human_score=None,
            cluster=self.cluster,
            model_1=self.model_2,
            model_2=self.model_1,
        )


@dataclass(frozen=True, slots=True)
class Call:
    """One judge call on an item: the order it was shown in, and the reply."""

    order: Order
    sample: int
    reply: Reply

    @property
    def preferred(self) -> Outcome | None:
        """The reply translated back to models (``None`` when the call failed)."""
        verdict = self.reply.verdict
        if verdict is None:
            return None
        from fairjudge._protocol import translate

        return translate(verdict, self.order)

    @property
    def p_one(self) -> float | None:
        """Expected score of model 1 from this call: P(model 1 better) + ½·P(tie).

        Uses the judge's probabilities (renormalised over the three verdicts) when it
        gave them, and the label as a one-hot otherwise.
        """
        reply = self.reply
        if reply.verdict is None:
            return None
        if reply.probabilities is None:
            from fairjudge._protocol import OUTCOME_SCORE, translate

            return OUTCOME_SCORE[translate(reply.verdict, self.order)]
        p = reply.probabilities.normalized()
        p_first = p.a if self.order is Order.ORIGINAL else p.b
        return p_first + 0.5 * p.tie


@dataclass(frozen=True, slots=True)
class Judgment:
    """The resolved judgment on one item, with every call behind it.

    Attributes:
        item: The item judged.
        calls: Every call, in the order they were planned.
        rule: The resolution rule applied.
        outcome: The resolved outcome; ``None`` when any call failed (see ``failures``).
        score: Model 1's score on this item (1, ½, 0, or the soft score); ``None``
            when unresolved.
        consistent: Whether every call preferred the same model (or all said tie);
            ``None`` when unresolved.
    """

    item: Item
    calls: tuple[Call, ...]
    rule: Resolution
    outcome: Outcome | None
    score: float | None
    consistent: bool | None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def raw_replies(self) -> tuple[str | None, ...]:
        """The judge's raw text for every call, in call order."""
        return tuple(c.reply.raw for c in self.calls)

    @property
    def verdicts(self) -> tuple[Verdict | None, ...]:
        """The parsed position verdict of every call, in call order."""
        return tuple(c.reply.verdict for c in self.calls)

    @property
    def parse_failures(self) -> int:
        """How many calls returned text with no readable verdict."""
        return sum(isinstance(c.reply.failure, ParseFailure) for c in self.calls)

    @property
    def call_errors(self) -> int:
        """How many calls failed outright (after retries)."""
        return sum(isinstance(c.reply.failure, CallError) for c in self.calls)

    @property
    def resolved(self) -> bool:
        """Whether every call produced a verdict, so the item counts."""
        return self.outcome is not None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record of the item, every call and the resolution."""
        item = self.item
        return {
            "id": item.id,
            "question": item.question,
            "answer_1": item.answer_1,
            "answer_2": item.answer_2,
            "category": item.category,
            "human": item.human.value if item.human is not None else None,
            "human_score": item.human_score,
            "outcome": self.outcome.value if self.outcome is not None else None,
            "score": self.score,
            "consistent": self.consistent,
            "rule": self.rule.value,
            "calls": [
                {
                    "order": c.order.value,
                    "sample": c.sample,
                    "verdict": c.reply.verdict.value if c.reply.verdict is not None else None,
                    "preferred": c.preferred.value if c.preferred is not None else None,
                    "probabilities": (
                        c.reply.probabilities.to_dict() if c.reply.probabilities else None
                    ),
                    "raw": c.reply.raw,
                    "failure": _failure_dict(c.reply.failure),
                    "cached": c.reply.cached,
                    "key": c.reply.key,
                }
                for c in self.calls
            ],
            **self.extra,
        }


def _failure_dict(failure: ParseFailure | CallError | None) -> dict[str, str] | None:
    if failure is None:
        return None
    if isinstance(failure, ParseFailure):
        return {"type": "parse_failure", "reason": failure.reason}
    return {"type": "call_error", "kind": failure.kind, "message": failure.message}
