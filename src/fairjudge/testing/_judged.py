"""A judged run that a test asserts on, in the words of statistics, and the evidence it shows.

An assertion is an interval's bound, not a point estimate (the anytime-valid interval
when the run stopped adaptively); a failure shows the interval, the items that lost
and the run's HTML page. Design notes: ``docs/internals.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairjudge._errors import ConfigError

if TYPE_CHECKING:
    from fairjudge._api import Result

__all__ = ["Interval", "Judged", "clip", "lost_pairs", "lowest_scores", "unresolved_line"]


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


class Judged:
    """What ``fairjudge_judge.compare(...)`` and ``.score(...)`` return.

    Args:
        result: The library's result (:class:`fairjudge.Result`).
        page: Where :meth:`write_page` writes the HTML page by default.
        max_unresolved: The share of unresolved items above which every assertion fails.

    Attributes:
        result: The :class:`fairjudge.Result`: ``summary()``, ``to_dict()``, ``to_pandas()``.
        page: The HTML page's path (written when an assertion fails, or on request).
    """

    def __init__(self, result: Result, *, page: Path, max_unresolved: float = 0.2) -> None:
        self.result = result
        self.page = page
        self.max_unresolved = max_unresolved

    @cached_property
    def report(self) -> dict[str, Any]:
        """The run's report: what the command's ``--json`` prints."""
        return self.result.to_dict()

    @property
    def calls(self) -> Mapping[str, Any]:
        """The run's call counts (``total``, ``cached``, ``made``, ``not_run``, cost...)."""
        calls = self.report.get("calls")
        return calls if isinstance(calls, Mapping) else {}

    @property
    def calls_made(self) -> int:
        """Calls sent to a judge by this run; 0 when the store served every one."""
        return int(self.calls.get("made", 0))

    @property
    def calls_cached(self) -> int:
        """Calls served from the store (or the recording) by this run, at no cost."""
        return int(self.calls.get("cached", 0))

    @property
    def adaptive(self) -> bool:
        """Whether the run stopped adaptively (``stop_when``): its interval is anytime-valid."""
        return isinstance(self.report.get("adaptive"), Mapping)

    def write_page(self, path: str | Path | None = None) -> Path:
        """Write the run's self-contained HTML page (the command's ``--html``); return its path."""
        target = Path(path) if path is not None else self.page
        target.parent.mkdir(parents=True, exist_ok=True)
        return self.result.to_html(target)

    def win_rate(self, model: int = 2) -> Interval:
        """Model ``model``'s win rate (ties count half) with its interval.

        The anytime-valid interval when the run was adaptive, else the bootstrap one.

        Raises:
            ConfigError: The run is not a pairwise comparison, or ``model`` is not 1 or 2.
        """
        if model not in (1, 2):
            raise ConfigError(f"model must be 1 or 2; got {model!r}", params="model")
        adaptive = self.report.get("adaptive")
        if isinstance(adaptive, Mapping):
            rate = Interval.read(adaptive.get("estimate"), adaptive["ci"], "anytime-valid CI")
        else:
            win_rate = self.report.get("win_rate")
            if not isinstance(win_rate, Mapping):
                raise ConfigError(
                    f"a {self.result.kind} run has no win rate: judge pairs with compare()",
                    params="model",
                )
            rate = Interval.read(win_rate.get("estimate"), win_rate["ci"], "bootstrap CI")
        return rate if model == 1 else rate.flipped()

    def mean(self, dimension: str) -> Interval:
        """The mean score on a rubric dimension, with its bootstrap interval.

        Raises:
            ConfigError: The run is not a rubric score, or has no such dimension.
        """
        dimensions = self.report.get("dimensions")
        if not isinstance(dimensions, list):
            raise ConfigError(
                f"a {self.result.kind} run has no rubric dimensions: score answers with score()",
                params="dimension",
            )
        for entry in dimensions:
            if entry.get("name") == dimension:
                mean = entry.get("mean") or {}
                return Interval.read(mean.get("estimate"), mean.get("ci") or {}, "bootstrap CI")
        names = [entry.get("name") for entry in dimensions]
        raise ConfigError(
            f"dimension {dimension!r} is not in rubric {self.report.get('rubric')!r}; "
            f"its dimensions: {names}",
            params="dimension",
        )

    def assert_not_worse(self, margin: float = 0.0, *, model: int = 2, show: int = 5) -> None:
        """Assert that model ``model`` is not worse than the other by more than ``margin``.

        Passes when the lower bound of its win rate is above ``0.5 - margin``: with
        ``margin=0.05``, the data rule out that it loses more than 55% of the time.

        Raises:
            AssertionError: The bound is not above it, the interval cannot be
                estimated, or too many items are unresolved; the message shows the
                interval, ``show`` of the items it lost, and the HTML page's path.
        """
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        self._assert_win_rate(0.5 - margin, "worse", margin, model, show)

    def assert_better(self, margin: float = 0.0, *, model: int = 2, show: int = 5) -> None:
        """Assert that model ``model`` is better: its win rate's lower bound is above 0.5 + margin.

        Raises:
            AssertionError: The bound is not above ``0.5 + margin``, or cannot be
                estimated; the message is as :meth:`assert_not_worse`'s.
        """
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        self._assert_win_rate(0.5 + margin, "better", margin, model, show)

    def assert_mean_above(self, dimension: str, threshold: float, *, show: int = 5) -> None:
        """Assert that the lower bound of ``dimension``'s mean score is above ``threshold``.

        Raises:
            AssertionError: The bound is not above it, the interval cannot be
                estimated, or too many answers are unscored; the message shows the
                mean with its interval, the ``show`` lowest-scored answers and the
                HTML page's path.
        """
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        mean = self.mean(dimension)
        self._check_unresolved("n_unscored")
        if mean.low is not None and mean.low > threshold:
            return
        n = next(d.get("n") for d in self.report["dimensions"] if d.get("name") == dimension)
        head = (
            f"the mean {dimension} score may not be above {threshold:g}: "
            f"{mean.text(2)}, n={n}; its lower bound is not above {threshold:g}"
        )
        records = self.result.to_records()
        self._fail([head, unresolved_line(self.report, "n_items", "n_unscored"),
                    *lowest_scores(records, dimension, show)])  # fmt: skip

    def _assert_win_rate(
        self, bound: float, relation: str, margin: float, model: int, show: int
    ) -> None:
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        rate = self.win_rate(model)
        self._check_unresolved("n_unresolved")
        if rate.low is not None and rate.low > bound:
            return
        other = 1 if model == 2 else 2
        names = self._names()
        win_rate = self.report.get("win_rate") or {}
        wins, ties, losses = (win_rate.get(k, 0) for k in ("wins", "ties", "losses"))
        if model == 2:
            wins, losses = losses, wins
        this, that = f"model {model}{names[model]}", f"model {other}{names[other]}"
        claim = (
            f"may be worse than {that} by more than the margin {margin:g}"
            if relation == "worse"
            else f"may not be better than {that} by the margin {margin:g}"
        )
        head = f"{this} {claim}: the lower bound of its win rate is not above {bound:g}"
        if rate.low is None:  # nothing to bound: more questions, not a pass
            goal = "not worse than" if relation == "worse" else "better than"
            head = (
                f"{this}: its win rate has no interval, so the data cannot show that it is "
                f"{goal} {that} (margin {margin:g})"
            )
        counts = f"n={win_rate.get('n', 0)} resolved items, W/T/L {wins}/{ties}/{losses}"
        lines = [head, f"model {model}'s win rate: {rate.text()}, {counts}"]
        adaptive = self.report.get("adaptive")
        if isinstance(adaptive, Mapping):
            questions = adaptive.get("questions") or {}
            lines.append(
                f"adaptive run (stop_when={adaptive.get('stop_when')}): "
                f"{adaptive.get('reason')} after {questions.get('judged')} of "
                f"{questions.get('total')} questions; {adaptive.get('conclusion')}"
            )
        lines.append(unresolved_line(self.report, "n_items", "n_unresolved"))
        self._fail(lines + lost_pairs(self.result.to_records(), str(model), show))

    def _names(self) -> dict[int, str]:
        """`` (name)`` of each model, when every record names it the same."""
        records = self.result.to_records()
        names = {}
        for model in (1, 2):
            seen = {r.get(f"model_{model}") for r in records} - {None, ""}
            names[model] = f" ({seen.pop()})" if len(seen) == 1 else ""
        return names

    def _check_unresolved(self, unresolved_key: str) -> None:
        """Fail when more items are unresolved than ``max_unresolved`` allows."""
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        items = int(self.report.get("n_items") or 0)
        unresolved = int(self.report.get(unresolved_key) or 0)
        if items and unresolved / items > self.max_unresolved:
            self._fail([
                f"too many unresolved items: {unresolved} of {items} "
                f"({unresolved / items:.0%}), above max_unresolved {self.max_unresolved:.0%}",
                unresolved_line(self.report, "n_items", unresolved_key),
                *self._failure_lines(),
            ])  # fmt: skip

    def _failure_lines(self, show: int = 3) -> list[str]:
        failures = self.report.get("failures")
        if not isinstance(failures, list):
            return []
        return [f"  {failure}" for failure in failures[:show]]

    def _fail(self, lines: list[str]) -> None:
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        page = self.write_page()
        raise AssertionError("\n".join([*lines, f"report: {page}"]))

    def __repr__(self) -> str:
        return f"Judged({self.result.kind!r}, calls made {self.calls_made}, page={self.page})"
