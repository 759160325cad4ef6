"""Small text pieces every report shares: intervals, failure summaries, escaping.

Everything a report prints that came from a user or an exception (paths, column
names, model names, labels, server messages) may contain ``[...]``, which rich
would read as markup and silently eat. Reports print such text with
``markup=False`` or pass it through :func:`rich.markup.escape`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from fairjudge.stats import ConfidenceInterval

__all__ = ["ci_text", "failure_lines"]

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
