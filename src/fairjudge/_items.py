"""Items, the calls made on them, and resolved judgments.

An :class:`Item` is what a user brings: a question (a string or a conversation), two
answers, and whatever else is known. A :class:`Call` is one judge call on it in one
:class:`~fairjudge.Order`, and a :class:`Judgment` is the item resolved from its
calls by a :class:`~fairjudge.Resolution` rule, with every call kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from fairjudge._call import Conversation
from fairjudge._types import (
    OUTCOME_SCORE,
    CallError,
    Order,
    Outcome,
    ParseFailure,
    Reply,
    Resolution,
    Verdict,
    failure_counts,
    translate,
)

__all__ = ["Call", "CallFailures", "Item", "Judgment", "QuestionKeys", "ScoreItem", "question_text"]


def question_text(question: str | Conversation) -> str:
    """A question as one string: itself, or a conversation as a role-labelled transcript.

    The transcript is what a single-prompt template shows the judge, and what seeds
    and bootstrap clusters are derived from, so it is stable and unambiguous.
    """
    if isinstance(question, str):
        return question
    return "\n\n".join(f"[{role}]\n{content}" for role, content in question)


class _Replied(Protocol):
    @property
    def reply(self) -> Reply[Any]: ...


class CallFailures:
    """``parse_failures`` and ``call_errors`` of a judgment made of calls with replies.

    A pairwise :class:`~fairjudge.Judgment` and a pointwise answer's scores count their
    calls' failures by one rule (:func:`~fairjudge._types.failure_counts`); each holds ``calls``.
    """

    __slots__ = ()
    if TYPE_CHECKING:

        @property
        def calls(self) -> Sequence[_Replied]: ...

    @property
    def parse_failures(self) -> int:
        """Calls whose reply held nothing readable (no verdict, no valid scores)."""
        return failure_counts(c.reply for c in self.calls)[0]

    @property
    def call_errors(self) -> int:
        """Calls that failed outright (after retries); calls never started are not."""
        return failure_counts(c.reply for c in self.calls)[1]


class QuestionKeys:
    """The question's text and bootstrap cluster, for items that have both.

    Shared by pairwise items and scoring items: whatever the kind, a conversation
    reads as its transcript and items on one question resample together.
    """

    __slots__ = ()
    question: str | Conversation
    cluster: str | None

    @property
    def question_text(self) -> str:
        """The question as one string (a conversation as a transcript)."""
        return question_text(self.question)

    @property
    def cluster_key(self) -> str:
        """The bootstrap cluster: the explicit cluster, else the question text."""
        return self.cluster if self.cluster is not None else self.question_text


@dataclass(frozen=True, slots=True)
class Item(QuestionKeys):
    """One question with the two systems' answers, plus whatever else is known.

    Attributes:
        question: The prompt both systems answered: a string, or a conversation
            (``(role, content)`` messages, oldest first) whose last turn the answers
            continue.
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

    question: str | Conversation
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

    def swapped(self) -> Item:
        """The same item with the two answers (and models and human label) exchanged.

        ``human_score`` is dropped: its scale, and so its mirror image, is unknown.
        """
        flip = {Outcome.ONE: Outcome.TWO, Outcome.TWO: Outcome.ONE, Outcome.TIE: Outcome.TIE}
        return replace(
            self,
            answer_1=self.answer_2,
            answer_2=self.answer_1,
            human=flip[self.human] if self.human is not None else None,
            human_score=None,  # the score's scale, and so its mirror point, is unknown
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
            return OUTCOME_SCORE[translate(reply.verdict, self.order)]
        p = reply.probabilities.normalized()
        p_first = p.a if self.order is Order.ORIGINAL else p.b
        return p_first + 0.5 * p.tie

    def to_dict(self) -> dict[str, Any]:
        """The call in the ``compare --out`` form that ``replay:`` reads."""
        reply = self.reply
        return {
            "order": self.order.value,
            "sample": self.sample,
            "verdict": reply.verdict.value if reply.verdict is not None else None,
            "preferred": self.preferred.value if self.preferred is not None else None,
            "probabilities": reply.probabilities.to_dict() if reply.probabilities else None,
            "raw": reply.raw,
            "failure": _failure_dict(reply.failure),
            "cached": reply.cached,
            "key": reply.key,
        }


@dataclass(frozen=True, slots=True)
class Judgment(CallFailures):
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
    def both_orders(self) -> bool:
        """Whether the item was shown in both orders, so its verdict survived a swap."""
        return {c.order for c in self.calls} == {Order.ORIGINAL, Order.SWAPPED}

    @property
    def raw_replies(self) -> tuple[str | None, ...]:
        """The judge's raw text for every call, in call order."""
        return tuple(c.reply.raw for c in self.calls)

    @property
    def verdicts(self) -> tuple[Verdict | None, ...]:
        """The parsed position verdict of every call, in call order."""
        return tuple(c.reply.verdict for c in self.calls)

    @property
    def resolved(self) -> bool:
        """Whether every call produced a verdict, so the item counts."""
        return self.outcome is not None

    def item_dict(self) -> dict[str, Any]:
        """The item's fields of :meth:`to_dict` (``id`` to ``human_score``), without ``extra``."""
        item = self.item
        return {
            "id": item.id,
            "question": (
                item.question
                if isinstance(item.question, str)
                else [{"role": r, "content": c} for r, c in item.question]
            ),
            "answer_1": item.answer_1,
            "answer_2": item.answer_2,
            "category": item.category,
            "human": item.human.value if item.human is not None else None,
            "human_score": item.human_score,
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record of the item, every call and the resolution."""
        return {
            **self.item_dict(),
            "outcome": self.outcome.value if self.outcome is not None else None,
            "score": self.score,
            "consistent": self.consistent,
            "rule": self.rule.value,
            "calls": [c.to_dict() for c in self.calls],
            **self.extra,
        }


def _failure_dict(failure: ParseFailure | CallError | None) -> dict[str, str] | None:
    if failure is None:
        return None
    if isinstance(failure, ParseFailure):
        return {"type": "parse_failure", "reason": failure.reason}
    return {"type": "call_error", "kind": failure.kind, "message": failure.message}


@dataclass(frozen=True, slots=True)
class ScoreItem(QuestionKeys):
    """One answer to score, with whatever else is known about it.

    Attributes:
        question: The question, or the conversation (oldest message first) whose next
            assistant turn is the answer.
        answer: The answer to score.
        id: A stable identifier (the line number when the file gives none).
        reference: A reference answer, for rubrics that need one.
        category: A free-form label for breakdowns.
        system: The system that wrote the answer, when several are scored.
        human: Human scores by dimension, when known (on the rubric's scale when
            the loader was given it).
        cluster: Items sharing a cluster are resampled together by the bootstrap, and
            systems are paired on it; defaults to the question text.
    """

    question: str | Conversation
    answer: str
    id: str | None = None
    reference: str | None = None
    category: str | None = None
    system: str | None = None
    human: Mapping[str, float] = field(default_factory=dict)
    cluster: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; a conversation as a list of ``{"role", "content"}``."""
        question: Any = self.question
        if not isinstance(question, str):
            question = [{"role": r, "content": c} for r, c in question]
        return {
            "id": self.id,
            "system": self.system,
            "category": self.category,
            "question": question,
            "answer": self.answer,
            "reference": self.reference,
            "human": dict(self.human),
        }
