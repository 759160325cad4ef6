"""What a test suite's judging is configured with: judge, store, concurrency, seed, mode.

The plugin builds one :class:`SuiteSettings` from the ini file and the command line,
and each test may change it (``@pytest.mark.fairjudge(...)``, or
:meth:`~fairjudge.testing.SuiteJudge.configure`). The value is frozen and checked
when it is made, so a bad setting stops the suite before any call, naming the
setting.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, get_args

from fairjudge._errors import ConfigError

__all__ = ["CHANGEABLE", "Mode", "SuiteSettings"]

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
