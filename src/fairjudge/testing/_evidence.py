"""The evidence a failed assertion shows: an interval, and the items behind it.

Everything here reads a run's public report (``Result.to_dict()``, the command's
``--json``) and its records (``Result.to_records()``), never the library's private
objects, so a failure message says what the command line would say.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Interval", "clip", "lost_pairs", "lowest_scores", "unresolved_line"]


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate with its interval, as a failure message shows it.

    Attributes:
        estimate: The point estimate (``None`` when there is none).
        low: The lower bound (``None`` when not estimable).
        high: The upper bound (``None`` when not estimable).
        level: The interval's confidence level.
        kind: How it was made: ``bootstrap CI`` or ``anytime-valid CI``.
        reason: Why it is not estimable, when it is not.
    """

    estimate: float | None
    low: float | None
    high: float | None
    level: float
    kind: str
    reason: str | None = None

    @classmethod
    def read(cls, estimate: Any, ci: Mapping[str, Any], kind: str) -> Interval:
        """From a report's ``{"estimate": ..., "ci": {"low", "high", "level", ...}}`` parts."""
        return cls(
            estimate=None if estimate is None else float(estimate),
            low=None if ci.get("low") is None else float(ci["low"]),
            high=None if ci.get("high") is None else float(ci["high"]),
            level=float(ci.get("level", 0.95)),
            kind=kind,
            reason=ci.get("reason"),
        )

    def flipped(self) -> Interval:
        """The other model's win rate: ``1 - p``, its bounds swapped."""
        return Interval(
            estimate=None if self.estimate is None else 1 - self.estimate,
            low=None if self.high is None else 1 - self.high,
            high=None if self.low is None else 1 - self.low,
            level=self.level,
            kind=self.kind,
            reason=self.reason,
        )

    def text(self, digits: int = 3) -> str:
        """``0.354 [0.229, 0.479] (95% bootstrap CI)``, or why there is no interval."""
        level = f"{self.level * 100:g}% {self.kind}"
        point = "n/a" if self.estimate is None else f"{self.estimate:.{digits}f}"
        if self.low is None or self.high is None:
            return f"{point} (no {level}: {self.reason or 'not estimable'})"
        return f"{point} [{self.low:.{digits}f}, {self.high:.{digits}f}] ({level})"


def clip(text: Any, width: int = 60) -> str:
    """One line of at most ``width`` characters, quoted, for a message."""
    flat = " ".join(str(text).split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


def lost_pairs(records: Sequence[Mapping[str, Any]], loser: str, show: int) -> list[str]:
    """Lines naming the first ``show`` items the model ``loser`` (``"1"``/``"2"``) lost."""
    winner = "2" if loser == "1" else "1"
    lost = [r for r in records if r.get("outcome") == winner]
    lines = [f"items model {loser} lost: {len(lost)} of {len(records)}"]
    for record in lost[:show]:
        lines.append(
            f"  {record.get('id') or '(no id)'}: {clip(record.get('question'), 50)}"
            f" model {loser}: {clip(record.get(f'answer_{loser}'), 40)}"
            f" / model {winner}: {clip(record.get(f'answer_{winner}'), 40)}"
        )
    if len(lost) > show:
        lines.append(f"  ... and {len(lost) - show} more (all of them: the report page)")
    return lines


def lowest_scores(records: Sequence[Mapping[str, Any]], dimension: str, show: int) -> list[str]:
    """Lines naming the ``show`` answers scored lowest on ``dimension``, lowest first."""
    column = f"score_{dimension}"
    scored = [r for r in records if isinstance(r.get(column), int | float)]
    scored.sort(key=lambda r: r[column])
    lines = [f"lowest {dimension} scores ({min(show, len(scored))} of {len(scored)} scored):"]
    for record in scored[:show]:
        lines.append(
            f"  {record.get('id') or '(no id)'}: {dimension} {record[column]}"
            f" {clip(record.get('question'), 50)} answer: {clip(record.get('answer'), 50)}"
        )
    return lines


def unresolved_line(report: Mapping[str, Any], items_key: str, unresolved_key: str) -> str:
    """How many items the judge left unresolved, and why: parse failures and call errors."""
    return (
        f"unresolved: {report.get(unresolved_key, 0)} of {report.get(items_key, 0)} items"
        f" (parse failures {report.get('n_parse_failures', 0)},"
        f" call errors {report.get('n_call_errors', 0)}; never counted as ties)"
    )
