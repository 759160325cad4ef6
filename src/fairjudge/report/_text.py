"""Small text pieces every report shares: intervals, failure summaries, escaping.

Everything a report prints that came from a user or an exception (paths, column
names, model names, labels, server messages) may contain ``[...]``, which rich
would read as markup and silently eat. Reports print such text with
``markup=False`` or pass it through :func:`rich.markup.escape`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from rich.console import Console

from fairjudge.runner import RunSummary
from fairjudge.stats import ConfidenceInterval

__all__ = ["calls_text", "ci_text", "failure_lines", "print_failures"]

_SHOWN_REASONS = 5
_REASON_CHARS = 300


def ci_text(ci: ConfidenceInterval, spec: str = ".3f") -> str:
    """``[low, high]``, or ``cannot be estimated: <why>`` for an interval the data cannot give."""
    return format(ci, spec)


def failure_lines(reasons: Counter[str]) -> Iterator[str]:
    """Why calls failed, most common first, with counts: plain text, never markup."""
    if not reasons:
        return
    total = sum(reasons.values())
    yield f"{total} call(s) gave no verdict; the reasons, most common first:"
    for reason, count in reasons.most_common(_SHOWN_REASONS):
        text = reason if len(reason) <= _REASON_CHARS else reason[:_REASON_CHARS] + "…"
        yield f"  {count} x {text}"
    rest = len(reasons) - _SHOWN_REASONS
    if rest > 0:
        yield f"  ... and {rest} other reason(s); --out FILE keeps every call's failure"


def print_failures(reasons: Counter[str], console: Console) -> None:
    """Print :func:`failure_lines` as plain text (never markup)."""
    for line in failure_lines(reasons):
        console.print(line, highlight=False, markup=False)


def calls_text(run: RunSummary) -> str:
    """``N made, N cached, N failed``: what became of a run's calls."""
    return f"{run.made} made, {run.cached} cached, {run.failed} failed"
