"""An adaptively stopped comparison in words: the lines its table and its page add.

Its one conclusion is the anytime-valid interval's, wherever the run stopped, so the
screen, the page and ``--json`` never say two things.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from fairjudge._errors import worded
from fairjudge.report._text import ci_text

if TYPE_CHECKING:
    from fairjudge.evaluation import AdaptiveResult

__all__ = [
    "FIXED_SAMPLE_MARK",
    "FULL_FILE_MARK",
    "ci_mark",
    "early_side",
    "fixed_sample_note",
    "items_cell",
    "recorded_stop",
    "stop_facts",
    "stop_lines",
    "stop_verdict",
    "stop_warnings",
    "win_cell",
]

FIXED_SAMPLE_MARK = "fixed-sample CI, not valid after the adaptive stop"
"""What marks a bootstrap CI shown beside an early adaptive stop."""

FULL_FILE_MARK = "fixed-sample CI; the conclusion is the anytime-valid interval's"
"""What marks a bootstrap CI beside a run with a stop rule that judged the whole file."""

_FILE_ONLY = "this file only"


def _reason(adaptive: AdaptiveResult[Any]) -> str:
    """Why the run stopped, in a phrase."""
    interval = adaptive.interval
    rule = adaptive.stop_when
    if adaptive.reason == "decided" and interval.about == "file":
        return "decided about this file only: the interval for its own win rate excludes 0.5"
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

    Plain text (never markup), one sentence a line, for the terminal and the page. The
    conclusion is not among them: it is :func:`stop_verdict`'s one line.
    """
    interval = adaptive.interval
    file_only = interval.about == "file"
    rule = f"stop_when={adaptive.stop_when}" if adaptive.stop_when is not None else "no stop_when"
    if file_only:
        rule += ", population=file"
    pct = round(interval.level * 100)
    estimate = "n/a" if math.isnan(interval.estimate) else f"{interval.estimate:.3f}"
    unresolved = (
        f"; {interval.unresolved_items} unresolved item(s) bounded (0 in the lower bound, "
        "1 in the upper), never counted as ties"
        if interval.unresolved_items
        else ""
    )
    about, method = (
        (f"on {_FILE_ONLY}, not questions like these", " without replacement")
        if file_only
        else ("on questions like these", "")
    )
    return [
        worded(
            f"adaptive stop: {_reason(adaptive)} ({rule}); {interval.n} of "
            f"{interval.population} questions and {adaptive.items_judged} of "
            f"{adaptive.n_items_total} items judged, in a seeded order, {adaptive.batch} "
            f"questions per batch{'; about ' + _FILE_ONLY if file_only else ''}",
            "stop_when",
            "population",
        ),
        f"anytime-valid win rate of model 1: {estimate}  {ci_text(interval.interval)} {about} "
        f"({pct}% confidence sequence{method}, valid at any stop){unresolved}",
        _calls_line(adaptive) + (f"; the run was about {_FILE_ONLY}" if file_only else ""),
        fixed_sample_note(adaptive),
    ]


def _calls_line(adaptive: AdaptiveResult[Any]) -> str:
    """The calls used of the whole file's, and those saved by the rule or left by a budget."""
    from_store = adaptive.calls_used - adaptive.calls_new
    not_run = f", {adaptive.calls_not_run} not run" if adaptive.calls_not_run else ""
    line = (
        f"calls: {adaptive.calls_used} used of {adaptive.calls_full} for the whole file "
        f"({adaptive.calls_new} new, {from_store} from the store{not_run})"
    )
    if adaptive.calls_not_made:
        return (
            f"{line}; {adaptive.calls_not_made} not made: the budget ran out first (not "
            "saved; a rerun with a larger budget makes them)"
        )
    return f"{line}; {adaptive.calls_saved} saved" if adaptive.calls_saved else line


def fixed_sample_note(adaptive: AdaptiveResult[Any]) -> str:
    """What the bootstrap CIs beside the run are worth."""
    if adaptive.interval.about == "file":
        early = ", not valid after an adaptive stop" if adaptive.stopped_early else ""
        return (
            f"The bootstrap CIs are fixed-sample intervals about questions like these{early}; "
            "the anytime-valid interval and the conclusion describe this file only."
        )
    if adaptive.stopped_early:
        return (
            "The bootstrap CIs are fixed-sample intervals on the judged items: not valid "
            "after an adaptive stop. The anytime-valid interval is the one to report."
        )
    if adaptive.stop_when is None:
        return (
            "Every question was judged and nothing was decided on a look: the bootstrap CIs stand."
        )
    return (
        "Every question was judged: the bootstrap CIs are the fixed-sample run's; the run "
        "looked at its anytime-valid interval after every batch, so the conclusion is read "
        "from it, on the same evidence at the end of the file as anywhere else."
    )


def early_side(adaptive: AdaptiveResult[Any] | None) -> int | None:
    """The side the anytime-valid interval concludes, when it concludes: +1, -1 or 0.

    ``None`` when there is no adaptive conclusion (no adaptive run, no stop rule, or
    no resolved question): the bootstrap CI's verdict stands.
    """
    if adaptive is None or adaptive.conclusion is None:
        return None
    winner = adaptive.interval.winner
    return 1 if winner == "1" else -1 if winner == "2" else 0


def items_cell(text: str, adaptive: AdaptiveResult[Any] | None) -> str:
    """The table's "items judged" cell, with the file's size after an adaptive run."""
    return text if adaptive is None else f"{text} drawn ({adaptive.n_items_total} in the file)"


def ci_mark(adaptive: AdaptiveResult[Any] | None) -> str | None:
    """What marks a bootstrap CI beside the run, when the adaptive interval concludes."""
    if adaptive is None:
        return None
    if adaptive.stopped_early:
        return FIXED_SAMPLE_MARK
    return FULL_FILE_MARK if adaptive.conclusion is not None else None


def win_cell(text: str, adaptive: AdaptiveResult[Any] | None) -> str:
    """A bootstrap win rate's cell, marked when the adaptive interval concludes instead."""
    mark = ci_mark(adaptive)
    return text if mark is None or text == "n/a" else f"{text}  ({mark})"


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


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def recorded_stop(block: dict[str, Any]) -> tuple[str | None, tuple[str, ...]]:
    """A page rebuilt from an ``--out`` file: the run's recorded conclusion, and a note.

    The file holds the judged items, not the run's sequence, so the page cannot read
    the anytime-valid interval again: it shows the conclusion the run printed (``None``
    for a file written before runs recorded one) and says where it comes from.
    """
    conclusion = block.get("conclusion")
    ci = _mapping(block.get("ci"))
    low, high = ci.get("low"), ci.get("high")
    interval = (
        f" [{low:.3f}, {high:.3f}]"
        if isinstance(low, int | float) and isinstance(high, int | float)
        else ""
    )
    questions = _mapping(block.get("questions"))
    about = "; it describes this file only" if block.get("population") == "file" else ""
    note = worded(
        f"Adaptive run (stop_when={block.get('stop_when')}), {questions.get('judged', '?')} of "
        f"{questions.get('total', '?')} questions judged: the conclusion is the run's own, "
        f"read from its anytime-valid interval{interval} as the file's header records it"
        f"{about}. The CIs on this page are fixed-sample intervals on the judged items.",
        "stop_when",
    )
    return (conclusion if isinstance(conclusion, str) else None), (note,)


def stop_verdict(adaptive: AdaptiveResult[Any] | None) -> str | None:
    """The run's one conclusion line, from the anytime-valid interval, wherever it stopped.

    The same sentence as ``adaptive.conclusion`` in ``--json`` and ``--out``. ``None``
    when there is no stop rule (the usual verdict holds), no item was resolved (the
    usual verdict says why), or the run was not adaptive.
    """
    return None if adaptive is None else adaptive.conclusion
