"""The ``fairjudge_judge`` fixture's value, the settings it judges with, and the judged run.

:class:`SuiteSettings` is frozen and checked when made; :class:`SuiteJudge` calls the
public functions (:func:`fairjudge.compare`, :func:`fairjudge.score`) as the command
line does. A test asserts on an interval's bound, and a failure shows the interval,
the items that lost and the run's HTML page. Design notes: ``docs/internals.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import pytest

from fairjudge._errors import ConfigError

if TYPE_CHECKING:
    from fairjudge._api import Result

__all__ = [
    "CHANGEABLE",
    "Interval",
    "Judged",
    "Mode",
    "SuiteJudge",
    "SuiteSettings",
    "clip",
    "lost_pairs",
    "lowest_scores",
    "unresolved_line",
]


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


def unresolved_line(report: Mapping[str, Any], unresolved_key: str) -> str:
    """How many items the judge left unresolved, and why: parse failures and call errors."""
    return (
        f"unresolved: {report.get(unresolved_key, 0)} of {report.get('n_items', 0)} items"
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
        """The run's call counts (``total``, ``cached``, ``made``, ``not_run``, cost...).

        The report's, else the result's own: a Python scorer's report has no calls
        (``score --json`` never had them), but a replay must still see what it missed.
        """
        calls = self.report.get("calls")
        if isinstance(calls, Mapping):
            return calls
        summary = getattr(self.result, "calls", None)
        to_dict = getattr(summary, "to_dict", None)
        return to_dict() if callable(to_dict) else {}

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
        self._assert_win_rate(0.5 - _margin(margin), "worse", margin, model, show)

    def assert_better(self, margin: float = 0.0, *, model: int = 2, show: int = 5) -> None:
        """Assert that model ``model`` is better: its win rate's lower bound is above 0.5 + margin.

        Raises:
            AssertionError: The bound is not above ``0.5 + margin``, or cannot be
                estimated; the message is as :meth:`assert_not_worse`'s.
        """
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        self._assert_win_rate(0.5 + _margin(margin, better=True), "better", margin, model, show)

    def assert_mean_above(self, dimension: str, threshold: float, *, show: int = 5) -> None:
        """Assert that the lower bound of ``dimension``'s mean score is above ``threshold``.

        Raises:
            AssertionError: The bound is not above it, the interval cannot be
                estimated, or too many answers are unscored; the message shows the
                mean with its interval, the ``show`` lowest-scored answers and the
                HTML page's path.
        """
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise ConfigError(f"threshold must be a number; got {threshold!r}", params="threshold")
        mean = self.mean(dimension)
        _shown(show)
        self._check_unresolved("n_unscored")
        if mean.low is not None and mean.low > threshold:
            return
        n = next(d.get("n") for d in self.report["dimensions"] if d.get("name") == dimension)
        head = (
            f"the mean {dimension} score may not be above {threshold:g}: "
            f"{mean.text(2)}, n={n}; its lower bound is not above {threshold:g}"
        )
        records = self.result.to_records()
        self._fail([head, unresolved_line(self.report, "n_unscored"),
                    *lowest_scores(records, dimension, show)])  # fmt: skip

    def _assert_win_rate(
        self, bound: float, relation: str, margin: float, model: int, show: int
    ) -> None:
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        rate = self.win_rate(model)
        _shown(show)
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
        lines.append(unresolved_line(self.report, "n_unresolved"))
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
                unresolved_line(self.report, unresolved_key),
                *self._failure_lines(),
            ])  # fmt: skip

    def _failure_lines(self) -> list[str]:
        failures = self.report.get("failures")
        if not isinstance(failures, list):
            return []
        return [f"  {failure}" for failure in failures[:3]]

    def _fail(self, lines: list[str]) -> None:
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        page = self.write_page()
        raise AssertionError("\n".join([*lines, f"report: {page}"]))

    def __repr__(self) -> str:
        return f"Judged({self.result.kind!r}, calls made {self.calls_made}, page={self.page})"


def _margin(margin: object, better: bool = False) -> float:
    """``margin``, checked: a number in [0, 0.5] (below 0.5 for ``assert_better``).

    Past 0.5, ``assert_not_worse`` would pass a candidate that loses every item; from
    0.5 on, ``assert_better`` could never pass (no lower bound is above 1).
    """
    __tracebackhide__ = True  # a test's bad value: pytest shows the test's line
    ok = isinstance(margin, int | float) and not isinstance(margin, bool) and 0 <= margin <= 0.5
    if ok and (margin != 0.5 or not better):
        return float(margin)  # type: ignore[arg-type]  # a number: checked in ok
    where = "[0, 0.5) for assert_better" if better else "[0, 0.5]"
    raise ConfigError(f"margin must be a number in {where}; got {margin!r}", params="margin")


def _shown(show: object) -> None:
    """Refuse a ``show`` that is not a count of items (a negative one would drop the last)."""
    __tracebackhide__ = True  # a test's bad value: pytest shows the test's line
    if isinstance(show, bool) or not isinstance(show, int) or show < 0:
        raise ConfigError(f"show must be an integer >= 0; got {show!r}", params="show")


Mode = Literal["live", "record", "replay"]
"""``live``: judge, making the calls the store lacks; ``record``: the same, into the
recording file; ``replay``: answer every call from a copy of the recording, make none."""

CHANGEABLE = ("judge", "store", "concurrency", "seed")
"""The settings a test may change for itself (the marker's and ``configure``'s arguments)."""


@dataclass(frozen=True, slots=True)
class SuiteSettings:
    """How the ``fairjudge_judge`` fixture judges.

    Attributes:
        judge: The judge spec (``"openai/gpt-4o-mini"``, ``"python:module:function"``,
            ...); ``None`` is the library's default, the embedded model.
        store: The store the calls are served from and written to. In ``record`` mode
            the plugin sets it to the recording; in ``replay`` mode to a private copy
            of the recording, so the committed file is never written.
        concurrency: Calls in flight at most; ``None`` is the library's default.
        seed: The seed of every run (the bootstrap, and the order of an adaptive run).
        mode: ``live``, ``record`` or ``replay`` (:data:`Mode`).
        recording: The recording file of ``record`` and ``replay`` modes.
        report_dir: Where a failed assertion writes the run's HTML page.
        max_unresolved: The share of unresolved items above which every assertion
            on the run fails: an item the judge could not resolve is never a tie.
    """

    judge: str | None = None
    store: Path | None = None
    concurrency: int | None = None
    seed: int = 0
    mode: Mode = "live"
    recording: Path | None = None
    report_dir: Path = Path(".fairjudge") / "pytest"
    max_unresolved: float = 0.2

    def __post_init__(self) -> None:
        if self.judge is not None and (not isinstance(self.judge, str) or not self.judge):
            raise ConfigError(f"judge must be a judge spec; got {self.judge!r}", params="judge")
        if self.concurrency is not None and (
            isinstance(self.concurrency, bool)
            or not isinstance(self.concurrency, int)
            or self.concurrency < 1
        ):
            raise ConfigError(
                f"concurrency must be an integer >= 1; got {self.concurrency!r}",
                params="concurrency",
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be an integer >= 0; got {self.seed!r}", params="seed")
        if self.mode not in get_args(Mode):
            raise ConfigError(f"mode must be one of {get_args(Mode)}; got {self.mode!r}")
        if self.mode != "live" and self.recording is None:
            raise ConfigError(f"{self.mode} mode needs a recording file", params="recording")
        if not 0 <= self.max_unresolved <= 1:
            raise ConfigError(
                f"max_unresolved must be in [0, 1]; got {self.max_unresolved!r}",
                params="max_unresolved",
            )

    def changed(self, **changes: Any) -> SuiteSettings:
        """These settings with a test's own ``judge``, ``store``, ``concurrency`` or ``seed``.

        In ``record`` and ``replay`` modes every call is kept in (answered from) the
        recording, so a test's ``store`` has no effect there: one naming the recording
        is accepted, any other is refused rather than silently dropped (a test that
        asks for its own cache must learn it does not get one).

        Raises:
            ConfigError: An unknown setting, a bad value (named), or in ``record`` or
                ``replay`` mode a ``store`` other than the recording.
        """
        __tracebackhide__ = True  # a test's bad setting: pytest shows the test's line
        unknown = sorted(set(changes) - set(CHANGEABLE))
        if unknown:
            raise ConfigError(
                f"unknown fairjudge setting(s) {unknown}; a test may change {list(CHANGEABLE)}",
                params=tuple(unknown),
            )
        if "store" in changes:
            store = changes.pop("store")
            if self.mode == "live":
                changes["store"] = None if store is None else Path(store)
            else:
                self._check_recorded(store)
        return replace(self, **changes)

    def _check_recorded(self, store: Any) -> None:
        """Refuse a test's ``store`` in ``record``/``replay`` mode unless it is the recording.

        The recording (or, under replay, its private copy) is where every call goes
        anyway; any other file, or ``None`` (no store), would be ignored.
        """
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        named = None if store is None else Path(store)
        recorded = {path.resolve() for path in (self.store, self.recording) if path is not None}
        if named is not None and named.resolve() in recorded:
            return
        doing = "kept in" if self.mode == "record" else "answered from"
        asked = "store=None" if named is None else f"store={str(named)!r}"
        raise ConfigError(
            f"{asked} cannot apply in {self.mode} mode: every call is {doing} the recording "
            f"{self.recording} (fairjudge_recording); leave store= out, so the test records "
            "and replays with the rest of the suite, or set it to the recording",
            params="store",
        )


class SuiteJudge:
    """Judges items with the suite's judge and store; one per test.

    Args:
        settings: The suite's settings, with the test's own changes.
        name: The test's name, for the HTML page's file name.
        on_run: Called with every judged run (the plugin counts calls for its summary).

    Example:
        >>> def test_candidate_is_not_worse(fairjudge_judge):  # doctest: +SKIP
        ...     run = fairjudge_judge.compare("answers/candidate.jsonl")
        ...     run.assert_not_worse(margin=0.05)
    """

    def __init__(
        self,
        settings: SuiteSettings,
        *,
        name: str = "judged",
        on_run: Callable[[Judged, SuiteSettings], None] | None = None,
    ) -> None:
        self.settings = settings
        self.name = name
        self._on_run = on_run
        self._runs = 0

    def configure(self, **changes: Any) -> SuiteJudge:
        """A judge for this test with its own ``judge``, ``store``, ``concurrency`` or ``seed``.

        Raises:
            ConfigError: An unknown setting, or a bad value (named).
        """
        __tracebackhide__ = True  # a test's bad setting: pytest shows the test's line
        return SuiteJudge(self.settings.changed(**changes), name=self.name, on_run=self._on_run)

    def compare(self, items: Any, **kwargs: Any) -> Judged:
        """Compare two systems' answers (``fairjudge.compare``) with the suite's judge and store.

        Args:
            items: A file, a list of dicts or a pandas DataFrame with ``question``,
                ``answer_1`` and ``answer_2`` columns (``columns=`` renames yours).
            **kwargs: Any other argument of :func:`fairjudge.compare`: ``stop_when``
                for an adaptive run, ``template``, ``columns``, ``settings``...; a
                ``judge``, ``seed`` or ``concurrency`` here overrides the suite's. The
                suite's seed fills a ``settings`` seed left at its default (0).

        Returns:
            The run, for ``assert_not_worse`` and the other assertions.

        Raises:
            ConfigError: ``concurrency`` beside a judge object (it runs with its own
                run options), ``seed`` beside ``settings`` with another seed, or what
                :func:`fairjudge.compare` refuses.
        """
        from fairjudge._api import compare
        from fairjudge.testing._setup import run_settings

        by_call, seed = "concurrency" in kwargs, "seed" in kwargs
        settings, kwargs = self._split(kwargs)
        given = kwargs.get("settings")
        kwargs["settings"] = run_settings(given, settings.seed, call_seed=seed)
        return self._run(compare, items, settings, kwargs, by_call=by_call)

    def score(self, items: Any, *, rubric: str = "production", **kwargs: Any) -> Judged:
        """Score answers against a rubric (``fairjudge.score``) with the suite's judge and store.

        Args:
            items: A file, a list of dicts or a pandas DataFrame with ``question`` and
                ``answer`` columns.
            rubric: A built-in rubric's name or a ``*.toml`` path.
            **kwargs: Any other argument of :func:`fairjudge.score`; ``judge``,
                ``seed`` or ``concurrency`` here overrides the suite's.

        Returns:
            The run, for ``assert_mean_above`` and the other assertions.

        Raises:
            ConfigError: ``concurrency`` beside a judge object (it runs with its own
                run options), or what :func:`fairjudge.score` refuses.
        """
        from fairjudge._api import score

        by_call = "concurrency" in kwargs
        settings, kwargs = self._split(kwargs)
        kwargs.setdefault("seed", settings.seed)
        kwargs["rubric"] = rubric
        return self._run(score, items, settings, kwargs, by_call=by_call)

    def _split(self, kwargs: dict[str, Any]) -> tuple[SuiteSettings, dict[str, Any]]:
        """The settings this call changes, and the rest of its arguments."""
        changes = {k: kwargs.pop(k) for k in ("judge", "concurrency", "seed") if k in kwargs}
        judge = changes.get("judge")
        if judge is not None and not isinstance(judge, str):  # a function or judge object
            kwargs["judge"] = changes.pop("judge")
        return self.settings.changed(**changes), kwargs

    def _run(
        self,
        function: Callable[..., Result],
        items: Any,
        settings: SuiteSettings,
        kwargs: dict[str, Any],
        *,
        by_call: bool = False,
    ) -> Judged:
        from fairjudge.testing._setup import judge_with_suite, uncacheable

        try:
            judge_with_suite(kwargs, settings, call_concurrency=by_call)
            result = function(items, **kwargs)
        except ConfigError as exc:
            raise uncacheable(exc, settings, kwargs) from None
        self._runs += 1
        suffix = "" if self._runs == 1 else f"-{self._runs}"
        page = settings.report_dir / f"{_slug(self.name)}{suffix}.html"
        judged = Judged(result, page=page, max_unresolved=settings.max_unresolved)
        if self._on_run is not None:
            self._on_run(judged, settings)
        if settings.mode == "replay":
            _check_replayed(judged, settings)
        return judged


def _check_replayed(judged: Judged, settings: SuiteSettings) -> None:
    """A replayed run must be answered entirely by the recording.

    A stale recording fails the test (``pytest.fail``, without a traceback): it is
    something to fix, like a failed check, not an error in the suite.
    """
    missing = int(judged.calls.get("not_run", 0))
    made = judged.calls_made
    if not missing and not made:
        return
    what = (
        f"{missing} of its {judged.calls.get('total', 0)} calls are not in the recording"
        if missing
        else f"it made {made} call(s) in replay mode (a judge object with its own session?)"
    )
    pytest.fail(
        f"fairjudge: replayed run is incomplete: {what} {settings.recording}; the recording "
        "was made with other items, judge, template or seed. Record again with a judge at hand: "
        "pytest --fairjudge-record (then commit the recording)",
        pytrace=False,
    )


def _slug(name: str) -> str:
    """A file name from a test's node id: ``tests/test_x.py::test_y[a]`` -> ``test_x.py-test_y-a``.

    Only the file's name is kept, so the pages of a suite sit side by side.
    """
    tail = name.replace("\\", "/").split("/")[-1]
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", tail).strip("-.") or "judged"
