"""Pairwise judges as :func:`fairjudge.evaluate_pairs` sees them.

The whole batch goes to the judge: a Python callable answers one call at a time, an
LLM judge through its session. Both return one :class:`fairjudge.Reply` per request,
in order, and never raise for a single bad reply: a failure is a record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from fairjudge._call import Conversation
from fairjudge._types import Reply

__all__ = ["BatchJudge", "PairwiseRequest", "ProgressCallback"]

ProgressCallback = Callable[[int], None]
"""Called with the number of calls just finished, for progress bars."""


@dataclass(frozen=True, slots=True)
class PairwiseRequest:
    """One planned pairwise call, already in the order the judge will see it.

    Attributes:
        question: The question (a string or a conversation).
        answer_a: The answer shown first (position A).
        answer_b: The answer shown second (position B).
        reference: A reference answer, for reference-guided templates.
        sample: Sample index among calls with the same content and order.
    """

    question: str | Conversation
    answer_a: str
    answer_b: str
    reference: str | None = None
    sample: int = 0


@runtime_checkable
class BatchJudge(Protocol):
    """A judge that answers a batch of planned calls."""

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> list[Reply]:
        """Return one reply per request, in order; failures are records, not exceptions.

        A spent budget is not raised either: return the replies as
        :class:`~fairjudge.judges.Replies` with ``stopped`` set (``NotRun`` failures
        for the calls not made). May raise :class:`fairjudge.FatalBackendError` to
        stop a whole run.
        """
        ...
