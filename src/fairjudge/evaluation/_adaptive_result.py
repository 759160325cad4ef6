"""What an adaptively stopped comparison produces: the usual result, and how it stopped.

:class:`AdaptiveResult` holds the full :class:`~fairjudge.evaluation.PairwiseResult`
of every item judged, the anytime-valid interval the run stopped on
(:class:`AnytimeInterval`, unresolved items bounded, never ties), why it stopped,
and what it used and saved. Design notes: ``docs/internals.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, Literal, Protocol, TypeVar

from fairjudge._types import Reply, never_made
from fairjudge.evaluation._results import PairwiseResult, WinRate
from fairjudge.runner import RunSummary, progress_label
from fairjudge.stats import ConfidenceInterval, ConfidenceSequence, Population, StopRule

__all__ = [
    "DESCRIBES", "AdaptiveReason", "AdaptiveResult", "AdaptiveSummary", "AnytimeInterval",
    "MadeCall", "Scored", "TalliedJudge", "sum_runs", "tallied_run",
]  # fmt: skip
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


AdaptiveReason = Literal["decided", "width", "not decided", "complete", "budget"]
"""Why an adaptive run stopped.

- ``"decided"``: the interval excludes 0.5 (``stop_when`` has ``decided``);
- ``"width"``: its half-width reached the ``width:W`` of ``stop_when``;
- ``"not decided"``: every question was judged and no condition was met;
- ``"complete"``: every question was judged and no ``stop_when`` was given;
- ``"budget"``: ``max_calls`` or ``max_cost`` ran out first; the result is partial and
  :attr:`PairwiseResult.stopped` holds the budget's message. The rule is not asked
  after the stopped batch; the interval is as it stood (it may already meet the rule,
  and a rerun with a larger budget then stops at once, from the store).
"""

BOOTSTRAP_NOTE = (
    "the run stopped before the end of the file, after checking its interval batch by "
    "batch; the win rate's bootstrap CI is a fixed-sample interval on the judged items, "
    "which is not valid after such a stop: use adaptive.ci"
)
FULL_NOTE = (
    "every question was judged: the bootstrap CI is the fixed-sample interval of the whole "
    "file; the run looked at adaptive.ci after every batch, so its conclusion is read from "
    "adaptive.ci, which needs the same evidence at the end of the file as anywhere else"
)
FILE_NOTE = (
    "adaptive.ci and the conclusion describe this file only (population 'file'); the "
    "bootstrap CI describes questions like these"
)


def _unique(calls: Sequence[MadeCall]) -> list[MadeCall]:
    """``calls`` with each store key once: members that make the same call make it once.

    A reply with no key (a Python judge that declares no name and version, a replay)
    is its own call.
    """
    seen: set[str] = set()
    out = []
    for call in calls:
        key = call.reply.key
        if key in seen:
            continue
        if key is not None:
            seen.add(key)
        out.append(call)
    return out


class MadeCall(Protocol):
    """A planned call as the counts read it: its reply (cached, or failed as not run)."""

    @property
    def reply(self) -> Reply[Any]:
        """The call's reply."""


class AdaptiveSummary(Protocol):
    """What an adaptive run summarises its judged items into (a comparison, a jury's result)."""

    @property
    def win_rate(self) -> WinRate | None: ...

    @property
    def stopped(self) -> str | None: ...

    @property
    def partial(self) -> bool: ...

    @property
    def seed(self) -> int: ...

    def to_dict(self, *, include_judgments: bool = False) -> dict[str, Any]: ...


R = TypeVar("R", bound=AdaptiveSummary)


@dataclass(frozen=True, slots=True)
class AdaptiveResult(Generic[R]):
    """A comparison judged question by question in a seeded order, stopped when known.

    Attributes:
        pairwise: The result over every item judged, in input order: for a comparison
            the :class:`~fairjudge.evaluation.PairwiseResult` with every field
            :func:`~fairjudge.evaluation.evaluate` gives; for a panel the
            :class:`~fairjudge.evaluation.JuryResult` :func:`evaluate_jury` gives.
            After an early stop its bootstrap CI is *not* valid (it was looked at
            after every batch, in effect); :attr:`interval` is. ``pairwise.stopped``
            is set when a budget stopped the run (:attr:`reason` ``"budget"``).
        interval: The anytime-valid interval for model 1's win rate over the file's
            questions, at the settings' level, as it stood when the run stopped.
        reason: Why the run stopped (:data:`AdaptiveReason`).
        stop_when: The stop rule, or ``None`` when none was given.
        batch: Questions judged per batch.
        n_items_total: Items in the file.
        rounds: Calls planned per item and member (the settings' ``rounds``).
        item_calls: Per judged item, in input order, every call planned for it (for a
            panel, every member's); ``None`` for a comparison, whose calls are its
            judgments'.
        members: Judges that answer each planned call (a panel's members; 1 otherwise).
    """

    pairwise: R
    interval: AnytimeInterval
    reason: AdaptiveReason
    stop_when: StopRule | None
    batch: int
    n_items_total: int
    rounds: int
    item_calls: tuple[tuple[MadeCall, ...], ...] | None = None
    members: int = 1

    def _items(self) -> Iterator[Sequence[MadeCall]]:
        if self.item_calls is not None:
            yield from self.item_calls
        elif isinstance(self.pairwise, PairwiseResult):
            for j in self.pairwise.judgments:
                yield j.calls

    def _calls(self) -> Iterator[MadeCall]:
        """Every call of the judged items, a call two members share counted once."""
        return (c for calls in self._items() for c in _unique(calls))

    def _per_item(self) -> int:
        """Calls one item needs: ``rounds`` per member, less those identical members share.

        Members on one session that make the same call make it once (as the run and
        the budget count it), so the file needs as many calls per item as the judged
        items have, at most ``rounds`` per member.
        """
        counts = [len(_unique(calls)) for calls in self._items()]
        return max(counts, default=0) or self.rounds * self.members

    @property
    def stopped(self) -> str | None:
        """The budget's message when a budget stopped the run (as every result has it)."""
        return self.pairwise.stopped

    @property
    def partial(self) -> bool:
        """Whether a budget stopped the run before the stop rule did."""
        return self.pairwise.partial

    @property
    def stopped_early(self) -> bool:
        """Whether questions were left unjudged (by the stop rule or a budget)."""
        return self.interval.n < self.interval.population

    @property
    def n_questions(self) -> int:
        """Questions in the file: the population the interval is about."""
        return self.interval.population

    @property
    def questions_judged(self) -> int:
        """Questions in the interval, in draw order."""
        return self.interval.n

    @property
    def items_judged(self) -> int:
        """Items whose every call was made (resolved or not)."""
        return sum(not any(never_made(c.reply.failure) for c in calls) for calls in self._items())

    @property
    def calls_used(self) -> int:
        """Calls made for the judged items, from the store or fresh."""
        return sum(not never_made(c.reply.failure) for c in self._calls())

    @property
    def calls_new(self) -> int:
        """Of :attr:`calls_used`, those not served from the store (made by this run)."""
        return sum(not never_made(c.reply.failure) and not c.reply.cached for c in self._calls())

    @property
    def calls_not_run(self) -> int:
        """Calls of the last batch that a budget left unmade."""
        return sum(never_made(c.reply.failure) for c in self._calls())

    @property
    def calls_full(self) -> int:
        """Calls the whole file needs: ``rounds`` per item and member (shared ones once)."""
        return self._per_item() * self.n_items_total

    @property
    def calls_saved(self) -> int:
        """Calls never needed because the stop rule ended the run before their questions.

        0 when the run judged the whole file, and 0 after a budget stop: calls a budget
        left unmade are :attr:`calls_not_made`, not savings.
        """
        if self.reason not in ("decided", "width"):
            return 0
        judged = sum(1 for _ in self._items())
        return self._per_item() * (self.n_items_total - judged)

    @property
    def calls_not_made(self) -> int:
        """Calls the whole file needs that a budget stop left unmade (0 otherwise).

        They include :attr:`calls_not_run` (those of the stopped batch); the answer they
        would have given is unknown, so a rerun with a larger budget makes them.
        """
        return self.calls_full - self.calls_used if self.reason == "budget" else 0

    @property
    def conclusion(self) -> str | None:
        """The run's one conclusion, read from the anytime-valid interval.

        ``None`` without a stop rule (nothing was decided on a look: the bootstrap
        CI's verdict holds) or when no question has a resolved item (the usual
        verdict says why).
        """
        interval = self.interval
        if self.stop_when is None or not interval.resolved_units:
            return None
        return _conclusion(interval, self.reason, self.stopped_early)

    def summary(self) -> str:
        """A few human-readable lines: how the run stopped, the interval, then the comparison.

        The conclusion, when there is one, is the last line: the comparison's own
        verdict is not repeated beside it.
        """
        rule = f"stop_when={self.stop_when}" if self.stop_when is not None else "no stop_when"
        about = " (about this file only)" if self.interval.about == "file" else ""
        lines = [
            f"adaptive stop: {self.reason} ({rule}){about} after {self.questions_judged} of "
            f"{self.n_questions} questions, {self.items_judged} of {self.n_items_total} items; "
            f"calls {self.calls_used} of {self.calls_full} ({self.calls_new} new, "
            f"{self.calls_saved} saved, {self.calls_not_made} not made)",
            self.interval.summary(),
        ]
        if self.stopped is not None:
            lines.append(f"stopped: {self.stopped}")
        w = self.pairwise.win_rate
        if w is not None:
            valid = "not valid after an early stop" if self.stopped_early else "full file"
            lines.append(f"fixed-sample bootstrap CI on the judged items: {w.ci} ({valid})")
        if isinstance(self.pairwise, PairwiseResult) and self.conclusion is None:
            lines.append(self.pairwise.summary())
        if self.conclusion is not None:
            lines.append(self.conclusion)
        return "\n".join(lines)

    def adaptive_dict(self) -> dict[str, Any]:
        """The ``"adaptive"`` block of the JSON: the stop, the interval, the counts."""
        return {
            "adaptive": True,
            "stop_when": None if self.stop_when is None else str(self.stop_when),
            "reason": self.reason,
            "stopped_early": self.stopped_early,
            **self.interval.to_dict(),
            "items": {"judged": self.items_judged, "total": self.n_items_total},
            "calls": {
                "used": self.calls_used,
                "new": self.calls_new,
                "not_run": self.calls_not_run,
                "saved": self.calls_saved,
                "not_made": self.calls_not_made,
                "full": self.calls_full,
            },
            "batch": self.batch,
            "order_seed": self.pairwise.seed,
            "bootstrap_ci_valid": not self.stopped_early,
            "conclusion": self.conclusion,
            "note": self._note(),
        }

    def _note(self) -> str:
        note = BOOTSTRAP_NOTE if self.stopped_early else FULL_NOTE
        return f"{note}; {FILE_NOTE}" if self.interval.about == "file" else note

    def to_dict(self, *, include_judgments: bool = False) -> dict[str, Any]:
        """The comparison's JSON, plus the ``"adaptive"`` block."""
        return {
            **self.pairwise.to_dict(include_judgments=include_judgments),
            "adaptive": self.adaptive_dict(),
        }


def _conclusion(interval: AnytimeInterval, reason: AdaptiveReason, early: bool) -> str:
    """The one sentence a run with a stop rule concludes, from its anytime-valid interval.

    About the population (``"source"``) it is the same sentence wherever the run
    stopped; about this file only (``"file"``) every sentence says so.
    """
    yet = " yet" if early else ""
    if interval.about == "file":
        if interval.winner is not None:
            side = "above" if interval.winner == "1" else "below"
            return (
                f"On this file only, model {interval.winner} is better: the anytime-valid "
                f"interval for this file's own win rate lies {side} 0.5 (it says nothing "
                "about questions like these)."
            )
        if reason == "budget":
            return (
                "No conclusion yet about this file only: the budget stopped the run, and the "
                "interval for this file's own win rate contains 0.5."
            )
        return (
            f"No clear winner{yet} on this file only: the anytime-valid interval for this "
            "file's own win rate contains 0.5."
        )
    if interval.winner is not None:
        side = "above" if interval.winner == "1" else "below"
        return (
            f"Model {interval.winner} is better: the whole anytime-valid interval lies {side} 0.5."
        )
    if reason == "budget":
        return (
            "No conclusion yet: the budget stopped the run, and the anytime-valid interval "
            "contains 0.5."
        )
    if early:
        return "No clear winner yet: the anytime-valid interval contains 0.5."
    return (
        "No clear winner: the anytime-valid interval contains 0.5 after every question of the file."
    )


T = TypeVar("T")


def sum_runs(runs: Sequence[RunSummary]) -> RunSummary | None:
    """The batches' summaries added up (``None`` for a judge that keeps none)."""
    return RunSummary.total_of(runs)


class TalliedJudge:
    """A judge or a panel that keeps every batch's run summary: an adaptive run is many batches.

    The judge's ``last_run`` is its latest batch's alone; the report's calls are the
    whole run's. Each batch's progress display is labelled with its number, so that a
    run of many batches does not show as many unnamed bars. Everything else is the
    judge's own (its session, backend, name; a panel's members and usage).
    """

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        self.runs: list[RunSummary] = []
        self.batches = 0

    def _tally(self, batch: Callable[[], T]) -> T:
        self.batches += 1
        with progress_label(f"batch {self.batches}"):
            out = batch()
        run = getattr(self.judge, "last_run", None)
        if isinstance(run, RunSummary) and (not self.runs or run is not self.runs[-1]):
            self.runs.append(run)
        return out

    def judge_batch(self, requests: Sequence[Any], progress: Any = None) -> Any:
        """One judge's batch (:meth:`fairjudge.judges.BatchJudge.judge_batch`), tallied."""
        return self._tally(lambda: self.judge.judge_batch(requests, progress))

    def score_batch(self, requests: Sequence[Any], progress: Any = None) -> Any:
        """A pointwise judge's batch (``compare --via-scores``), tallied."""
        return self._tally(lambda: self.judge.score_batch(requests, progress))

    def member_readings(self, requests: Sequence[Any], progress: Any = None) -> Any:
        """A panel's batch (:meth:`fairjudge.judges.Jury.member_readings`), tallied."""
        return self._tally(lambda: self.judge.member_readings(requests, progress))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.judge, name)

    def total(self) -> RunSummary | None:
        """The batches' summaries added up (``None`` for a judge that keeps none)."""
        return sum_runs(self.runs)


def tallied_run(judge: Any, run: Callable[[Any], T]) -> tuple[T, RunSummary | None]:
    """``run(judge)`` on the judge wrapped in a :class:`TalliedJudge`; its result and calls."""
    tallied = TalliedJudge(judge)
    return run(tallied), tallied.total()
