"""An adaptively stopped comparison in words: the lines its table and its page add.

A comparison judged with ``stop_when``
(:func:`fairjudge.evaluation.evaluate_adaptive`) is shown as any comparison of the
items it judged, plus what only the adaptive run knows: why it stopped, the
anytime-valid interval (the one that stays valid after stopping on a look at the
data), the questions, items and calls it used of the whole file's, and what it saved.
Its conclusion, when it stopped before the end of the file, is read from that
interval: the bootstrap CI on the judged items is a fixed-sample interval, not valid
after such a stop, and is shown marked as such.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from fairjudge._words import worded
from fairjudge.report._text import ci_text

if TYPE_CHECKING:
    from fairjudge.evaluation import AdaptiveResult

__all__ = [
    "FIXED_SAMPLE_MARK",
    "early_side",
    "fixed_sample_note",
    "items_cell",
    "stop_facts",
    "stop_lines",
    "stop_verdict",
    "stop_warnings",
    "win_cell",
]

FIXED_SAMPLE_MARK = "fixed-sample CI, not valid after the adaptive stop"
"""What marks a bootstrap CI shown beside an early adaptive stop."""


def _reason(adaptive: AdaptiveResult[Any]) -> str:
    """Why the run stopped, in a phrase."""
    interval = adaptive.interval
    rule = adaptive.stop_when
    if adaptive.reason == "decided":
        return "decided: the anytime-valid interval excludes 0.5"
    if adaptive.reason == "width":
        width = rule.half_width if rule is not None else None
        target = f" <= {width:g}" if width is not None else ""
        return f"width: the interval's half-width is {interval.half_width:.3f}{target}"
    if adaptive.reason == "not decided":
        return "not decided: every question was judged and no condition was met"
    if adaptive.reason == "budget":
        return worded("budget: max_calls or max_cost ran out first", "max_calls", "max_cost")
    return "complete: every question was judged"


def stop_lines(adaptive: AdaptiveResult[Any]) -> list[str]:
    """The stop, the anytime-valid interval, the calls used and saved, and the CI note.

    Plain text (never markup), one sentence a line, for the terminal and the page.
    """
    interval = adaptive.interval
    rule = f"stop_when={adaptive.stop_when}" if adaptive.stop_when is not None else "no stop_when"
    pct = round(interval.level * 100)
    estimate = "n/a" if math.isnan(interval.estimate) else f"{interval.estimate:.3f}"
    decision = f"model {interval.winner} is better" if interval.winner else "0.5 is not excluded"
    unresolved = (
        f"; {interval.unresolved_items} unresolved item(s) bounded (0 in the lower bound, "
        "1 in the upper), never counted as ties"
        if interval.unresolved_items
        else ""
    )
    from_store = adaptive.calls_used - adaptive.calls_new
    not_run = f", {adaptive.calls_not_run} not run" if adaptive.calls_not_run else ""
    return [
        worded(
            f"adaptive stop: {_reason(adaptive)} ({rule}); {interval.n} of "
            f"{interval.population} questions and {adaptive.items_judged} of "
            f"{adaptive.n_items_total} items judged, in a seeded order, {adaptive.batch} "
            "questions per batch",
            "stop_when",
        ),
        f"anytime-valid win rate of model 1: {estimate}  {ci_text(interval.interval)} "
        f"({pct}% confidence sequence, valid at any stop); {decision}{unresolved}",
        f"calls: {adaptive.calls_used} used of {adaptive.calls_full} for the whole file "
        f"({adaptive.calls_new} new, {from_store} from the store{not_run}); "
        f"{adaptive.calls_saved} saved",
        fixed_sample_note(adaptive),
    ]


def fixed_sample_note(adaptive: AdaptiveResult[Any]) -> str:
    """What the bootstrap CIs beside the run are worth."""
    if adaptive.stopped_early:
        return (
            "The bootstrap CIs are fixed-sample intervals on the judged items: not valid "
            "after an adaptive stop. The anytime-valid interval is the one to report."
        )
    return (
        "Every question was judged: the bootstrap CIs are the fixed-sample run's, and the "
        "anytime-valid interval is the file's own win rate."
    )


def early_side(adaptive: AdaptiveResult[Any] | None) -> int | None:
    """After an early stop, the side the anytime-valid interval shows: +1, -1 or 0.

    ``None`` for a run that judged the whole file (or no adaptive run): its
    bootstrap CI stands.
    """
    if adaptive is None or not adaptive.stopped_early:
        return None
    winner = adaptive.interval.winner
    return 1 if winner == "1" else -1 if winner == "2" else 0


def items_cell(text: str, adaptive: AdaptiveResult[Any] | None) -> str:
    """The table's "items judged" cell, with the file's size after an adaptive run."""
    return text if adaptive is None else f"{text} drawn ({adaptive.n_items_total} in the file)"


def win_cell(text: str, adaptive: AdaptiveResult[Any] | None) -> str:
    """A bootstrap win rate's cell, marked as not valid after an early stop."""
    early = adaptive is not None and adaptive.stopped_early and text != "n/a"
    return f"{text}  ({FIXED_SAMPLE_MARK})" if early else text


def stop_warnings(adaptive: AdaptiveResult[Any]) -> tuple[str, ...]:
    """The page's notes under the headline: the stop, one sentence a paragraph."""
    said = (
        "Adaptively stopped before the end of the file."
        if adaptive.stopped_early
        else "Adaptive run, judged to the end of the file."
    )
    return (said, *(line[:1].upper() + line[1:] for line in stop_lines(adaptive)))


def stop_facts(adaptive: AdaptiveResult[Any]) -> tuple[tuple[str, str], ...]:
    """The stop, the anytime-valid interval and the calls, as the page's run facts."""
    return tuple(
        (label, text)
        for label, _, text in (line.partition(": ") for line in stop_lines(adaptive)[:3])
    )


def stop_verdict(adaptive: AdaptiveResult[Any] | None) -> str | None:
    """The plain conclusion after an early stop, from the anytime-valid interval.

    ``None`` when the run judged the whole file (the usual verdict holds), resolved
    no item (the usual verdict says why), or was not adaptive.
    """
    if adaptive is None:
        return None
    interval = adaptive.interval
    if not adaptive.stopped_early or math.isnan(interval.estimate):
        return None
    if interval.winner == "1":
        return "Model 1 is better: the whole anytime-valid interval lies above 0.5."
    if interval.winner == "2":
        return "Model 2 is better: the whole anytime-valid interval lies below 0.5."
    if adaptive.reason == "budget":
        return (
            "No conclusion yet: the budget stopped the run, and the anytime-valid interval "
            "contains 0.5."
        )
    return "No clear winner yet: the anytime-valid interval contains 0.5."
