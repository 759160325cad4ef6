"""The anytime-valid interval of an adaptive run, with unresolved items bounded, not guessed.

An adaptive run feeds one score per *question* (the sampling unit) to a
:class:`~fairjudge.stats._confseq.ConfidenceSequence`, in the seeded draw order. A
question's score is the mean of its items' scores under the rule, and an item whose
judgment failed (a parse failure, a call error) has no score: it is never counted as a
tie, which would pull the estimate towards 0.5 without saying so, and never dropped,
which would make the population the sequence is about depend on the judge's failures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from fairjudge.stats import ConfidenceInterval, ConfidenceSequence, Population

__all__ = ["DESCRIBES", "AnytimeInterval", "Scored"]

METHOD = {
    "source": "betting confidence sequence by question, with replacement over the seeded "
    "random order (Waudby-Smith & Ramdas); unresolved items bounded: 0 in the lower bound, "
    "1 in the upper",
    "file": "betting confidence sequence by question, without replacement (Waudby-Smith & "
    "Ramdas): this file only; unresolved items bounded: 0 in the lower bound, 1 in the upper",
}
DESCRIBES: dict[Population, str] = {
    "source": "questions like these: the population the file's questions are drawn from",
    "file": "this file only: its own questions, not questions like these",
}
"""What the interval and its decision describe, per ``population``."""


class Scored(Protocol):
    """A judged item as the interval reads it: model 1's score, ``None`` when unresolved."""

    @property
    def score(self) -> float | None:
        """Model 1's score on the item."""


@dataclass(frozen=True, slots=True)
class AnytimeInterval:
    """Model 1's win rate over the file's questions, valid at every batch (immutable).

    Attributes:
        lower: The sequence with every unresolved item counted 0 (a loss for model 1).
        upper: The sequence with every unresolved item counted 1.
        resolved_total: Sum of the unit scores of the questions with a resolved item
            (each the mean over its resolved items).
        resolved_units: How many such questions.
        unresolved_items: Items in the sequence's questions whose judgment failed.
        unresolved_questions: Questions in the sequence without a single resolved item.
        partly_unresolved_questions: Questions with both resolved and unresolved items.
    """

    lower: ConfidenceSequence
    upper: ConfidenceSequence
    resolved_total: float = 0.0
    resolved_units: int = 0
    unresolved_items: int = 0
    unresolved_questions: int = 0
    partly_unresolved_questions: int = 0

    @classmethod
    def start(
        cls, population: int, *, level: float, resolution: int = 2000, about: Population = "source"
    ) -> AnytimeInterval:
        """Before any question: the interval is [0, 1].

        Args:
            population: Questions in the file.
            level: Coverage, simultaneously over every batch.
            resolution: Grid steps of the bounds.
            about: ``"source"`` (questions like these) or ``"file"`` (this file only).

        Raises:
            ConfigError: ``level`` or ``resolution`` is out of range.
        """
        start = ConfidenceSequence.start(
            population, level=level, resolution=resolution, replacement=about != "file"
        )
        return cls(start, start)

    def update(self, units: Sequence[Sequence[Scored]]) -> AnytimeInterval:
        """The interval after the next questions, each its items' judgments, in draw order.

        A judged item is anything with a ``score`` (a judgment, a panel's judgment).
        """
        low_scores: list[float] = []
        high_scores: list[float] = []
        total, resolved, failed, empty, partly = 0.0, 0, 0, 0, 0
        for unit in units:
            scores = [j.score for j in unit if j.score is not None]
            missing = len(unit) - len(scores)
            low_scores.append(math.fsum(scores) / len(unit))
            high_scores.append((math.fsum(scores) + missing) / len(unit))
            failed += missing
            if scores:
                total += math.fsum(scores) / len(scores)
                resolved += 1
                partly += missing > 0
            else:
                empty += 1
        if not units:
            return self
        # Without a failure the two sequences see the same scores: update once.
        lower = self.lower.update(low_scores)
        same = self.lower is self.upper and low_scores == high_scores
        return AnytimeInterval(
            lower,
            lower if same else self.upper.update(high_scores),
            self.resolved_total + total,
            self.resolved_units + resolved,
            self.unresolved_items + failed,
            self.unresolved_questions + empty,
            self.partly_unresolved_questions + partly,
        )

    @property
    def population(self) -> int:
        """Questions in the file (``N``)."""
        return self.lower.population

    @property
    def about(self) -> Population:
        """What the interval describes: ``"source"`` (questions like these) or ``"file"``."""
        return "source" if self.lower.replacement else "file"

    @property
    def n(self) -> int:
        """Questions judged so far, in the sequence."""
        return self.lower.n

    @property
    def level(self) -> float:
        """Coverage, simultaneously over every batch."""
        return self.lower.level

    @property
    def complete(self) -> bool:
        """Whether every question of the file is in the sequence."""
        return self.lower.complete

    @property
    def estimate(self) -> float:
        """Mean score of the questions with a resolved item (NaN when there is none)."""
        return self.resolved_total / self.resolved_units if self.resolved_units else math.nan

    @property
    def interval(self) -> ConfidenceInterval:
        """The anytime-valid interval ``[lower.low, upper.high]``."""
        low, high = self.lower.low, self.upper.high
        return ConfidenceInterval(min(low, high), max(low, high), self.level)

    @property
    def half_width(self) -> float:
        """Half the interval's width."""
        ci = self.interval
        return (ci.high - ci.low) / 2

    @property
    def winner(self) -> Literal["1", "2"] | None:
        """The side shown better, or ``None`` while 0.5 is still possible.

        ``"1"`` once model 1 is better even with every unresolved item a loss, ``"2"``
        once model 2 is even with every one a win for model 1.
        """
        one, two = self.lower.winner == "1", self.upper.winner == "2"
        return "1" if one and not two else "2" if two and not one else None

    @property
    def contradicted(self) -> bool:
        """The data excluded every candidate somewhere (probability at most ``1 - level``)."""
        both = self.lower.winner == "1" and self.upper.winner == "2"
        crossed = self.lower.low > self.upper.high
        return self.lower.contradicted or self.upper.contradicted or both or crossed

    def for_rule(self) -> ConfidenceSequence:
        """This interval in the shape :meth:`StopRule.reason` reads (winner, width, complete).

        A view for reading only: updating it would continue the lower sequence alone.
        """
        if self.lower is self.upper:
            return self.lower
        ci = self.interval
        return replace(self.lower, low=ci.low, high=ci.high, winner=self.winner)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "estimate": None if math.isnan(self.estimate) else self.estimate,
            "ci": self.interval.to_dict(),
            "winner": self.winner,
            "contradicted": self.contradicted,
            "questions": {"judged": self.n, "total": self.population},
            "unresolved": {
                "items": self.unresolved_items,
                "questions_without_result": self.unresolved_questions,
                "questions_partly_unresolved": self.partly_unresolved_questions,
                "counted_as": "0 in the lower bound and 1 in the upper bound; never a tie",
            },
            "population": self.about,
            "describes": DESCRIBES[self.about],
            "method": METHOD[self.about],
        }

    def summary(self) -> str:
        """One line: estimate, interval, questions judged and the decision (and what about)."""
        decision = f"model {self.winner} is better" if self.winner else "0.5 not excluded"
        if self.about == "file":
            decision += ", on this file only"
        estimate = "n/a" if math.isnan(self.estimate) else f"{self.estimate:.3f}"
        unresolved = (
            f"; {self.unresolved_items} unresolved items bounded, not counted as ties"
            if self.unresolved_items
            else ""
        )
        return (
            f"win rate {estimate}, {self.level:.0%} anytime-valid CI {self.interval} after "
            f"{self.n} of {self.population} questions; {decision}{unresolved}"
        )
