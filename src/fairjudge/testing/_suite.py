"""The ``fairjudge_judge`` fixture's value, and the settings it judges with.

:class:`SuiteSettings` (judge, store, concurrency, seed, mode) is frozen and checked
when made. :class:`SuiteJudge` calls the public functions (:func:`fairjudge.compare`,
:func:`fairjudge.score`) as the command line does; in ``replay`` mode no call can
reach a judge. Design notes: ``docs/internals.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import pytest

from fairjudge._errors import ConfigError
from fairjudge.testing._judged import Judged

if TYPE_CHECKING:
    from fairjudge._api import Result

__all__ = ["CHANGEABLE", "Mode", "SuiteJudge", "SuiteSettings"]


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

        In ``record`` and ``replay`` modes the store is the recording's, whatever a
        test asks for: a replayed suite reads one file.

        Raises:
            ConfigError: An unknown setting, or a bad value (named).
        """
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
        return replace(self, **changes)


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
        return SuiteJudge(self.settings.changed(**changes), name=self.name, on_run=self._on_run)

    def compare(self, items: Any, **kwargs: Any) -> Judged:
        """Compare two systems' answers (``fairjudge.compare``) with the suite's judge and store.

        Args:
            items: A file, a list of dicts or a pandas DataFrame with ``question``,
                ``answer_1`` and ``answer_2`` columns (``columns=`` renames yours).
            **kwargs: Any other argument of :func:`fairjudge.compare`: ``stop_when``
                for an adaptive run, ``template``, ``columns``, ``settings``...; a
                ``judge``, ``seed`` or ``concurrency`` here overrides the suite's.

        Returns:
            The run, for ``assert_not_worse`` and the other assertions.
        """
        from fairjudge._api import compare
        from fairjudge.evaluation import EvalSettings

        settings, kwargs = self._split(kwargs)
        if "settings" not in kwargs:
            kwargs["settings"] = EvalSettings(seed=settings.seed)
        return self._run(compare, items, settings, kwargs)

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
        """
        from fairjudge._api import score

        settings, kwargs = self._split(kwargs)
        kwargs.setdefault("seed", settings.seed)
        kwargs["rubric"] = rubric
        return self._run(score, items, settings, kwargs)

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
    ) -> Judged:
        from fairjudge.runner import RunOptions

        if "judges" not in kwargs:  # a panel (judges=) replaces the suite's judge
            kwargs.setdefault("judge", settings.judge)
        if settings.store is not None:
            kwargs.setdefault("store", str(settings.store))
        options = kwargs.get("options") or RunOptions()
        if settings.concurrency is not None:
            options = replace(options, concurrency=settings.concurrency)
        if settings.mode == "replay":
            options = replace(options, max_calls=0)  # the recording answers, or nothing does
        kwargs["options"] = options
        try:
            result = function(items, **kwargs)
        except ConfigError as exc:
            raise _uncacheable(exc, settings) from None
        self._runs += 1
        suffix = "" if self._runs == 1 else f"-{self._runs}"
        page = settings.report_dir / f"{_slug(self.name)}{suffix}.html"
        judged = Judged(result, page=page, max_unresolved=settings.max_unresolved)
        if self._on_run is not None:
            self._on_run(judged, settings)
        if settings.mode == "replay":
            _check_replayed(judged, settings)
        return judged


def _uncacheable(exc: ConfigError, settings: SuiteSettings) -> ConfigError:
    """``exc``, said in the suite's words when it refuses the store the suite always passes.

    The user gave no ``store``: the suite caches (and records) every call, so a judge
    that declares no name and version cannot be used until it does.
    """
    if "store" not in exc.params or "declares no name and version" not in str(exc):
        return exc
    return ConfigError(
        f"the suite caches, records and replays every judge call in its store "
        f"({settings.store}; fairjudge_store), and the judge {settings.judge!r} declares "
        "no name and version, so its calls cannot be cached (a cache keyed by a function's "
        "name would serve stale replies once its body changes); declare them with "
        "@fairjudge.judge_function(name=..., version=...) on the function",
        params="store",
    )


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
