"""The frame every result shares: its bootstrap, its stop, and its calls' failures.

Each kind of result (a comparison, a scoring run, a jury) holds different numbers,
but every one of them was produced by calls under a seed, a confidence level and a
number of resamples, may have been stopped by a spent budget, and lost some calls
to failures. :class:`ResultFrame` is the base that holds the behaviour of those
shared facts, written once: :attr:`~ResultFrame.partial`,
:attr:`~ResultFrame.failures`, :attr:`~ResultFrame.n_not_run` and the frame's part
of the JSON (:meth:`~ResultFrame.frame_dict`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from fairjudge._types import CallError, ParseFailure, never_made
from fairjudge.evaluation._settings import EvalSettings

__all__ = ["Failure", "ResultFrame", "SettingsFrame", "failure_reasons", "members_failures"]

Failure = ParseFailure | CallError | None
"""What one call's reply failed with, or ``None`` when it produced a reading."""


def failure_reasons(failures: Iterable[Failure]) -> Counter[str]:
    """Failures grouped by reason: ``"parse failure: <reason>"`` or ``"<kind>: <message>"``.

    A call a budget never started (``NotRun``) is not a failure: it is counted by
    :attr:`ResultFrame.n_not_run` instead.
    """
    reasons: Counter[str] = Counter()
    for f in failures:
        if isinstance(f, ParseFailure):
            reasons[f"parse failure: {f.reason}"] += 1
        elif isinstance(f, CallError) and not never_made(f):
            reasons[f"{f.kind}: {f.message}"] += 1
    return reasons


def members_failures(names: Sequence[str], members: Sequence[ResultFrame]) -> Counter[str]:
    """A panel's failures: each member's, each reason prefixed by the member's name."""
    reasons: Counter[str] = Counter()
    for name, member in zip(names, members, strict=True):
        for reason, count in member.failures.items():
            reasons[f"{name}: {reason}"] += count
    return reasons


class ResultFrame:
    """The facts every result shares, and their JSON, written once.

    Attributes:
        seed: The bootstrap seed (a field or a property of the result).
        level: The intervals' confidence level.
        n_resamples: Bootstrap resamples.
        stopped: Why the run stopped before every call was made (a spent budget), or
            ``None`` when it ran to the end. A stopped result is partial.
    """

    __slots__ = ()

    # Given by each result as dataclass fields or properties: declared for the type
    # checker only, as a class attribute here would become a field's default.
    if TYPE_CHECKING:

        @property
        def seed(self) -> int:
            raise NotImplementedError

        @property
        def level(self) -> float:
            raise NotImplementedError

        @property
        def n_resamples(self) -> int:
            raise NotImplementedError

        @property
        def stopped(self) -> str | None:
            raise NotImplementedError

    def item_failures(self) -> Iterator[Iterable[Failure]]:
        """Per item, its calls' failures (``None`` for a call that gave a reading)."""
        raise NotImplementedError  # pragma: no cover - each result gives it

    @property
    def partial(self) -> bool:
        """Whether a budget stopped the run before every call was made."""
        return self.stopped is not None

    @property
    def n_not_run(self) -> int:
        """Items with a call never made (a budget stopped the run first)."""
        return sum(any(never_made(f) for f in item) for item in self.item_failures())

    @property
    def failures(self) -> Counter[str]:
        """Why calls failed, grouped: ``"parse failure: <reason>"`` or ``"<kind>: <message>"``."""
        return failure_reasons(f for item in self.item_failures() for f in item)

    def settings_dict(self) -> dict[str, Any]:
        """The settings' part of the JSON: the bootstrap's seed, level and resamples.

        A result whose settings hold more (the pairwise rule and rounds) renders them
        whole instead, under ``"settings"``.
        """
        return {"seed": self.seed, "level": self.level, "n_resamples": self.n_resamples}

    def frame_dict(self, *, partial: bool = True) -> dict[str, Any]:
        """The frame's part of the JSON: the settings, ``partial`` and ``stopped``.

        Args:
            partial: Whether to include ``partial`` (``score``'s JSON never had it,
                and its JSON does not change).
        """
        stop: dict[str, Any] = {"partial": self.partial} if partial else {}
        return {**self.settings_dict(), **stop, "stopped": self.stopped}


class SettingsFrame(ResultFrame):
    """A :class:`ResultFrame` whose bootstrap is its ``settings``' (pairwise results).

    The result gives ``settings`` (an :class:`EvalSettings`) as a dataclass field; the
    JSON carries them whole, under ``"settings"``.
    """

    __slots__ = ()

    if TYPE_CHECKING:  # a dataclass field of each result (see ResultFrame)
        settings: EvalSettings

    @property
    def seed(self) -> int:
        """The run's seed (from :attr:`settings`)."""
        return self.settings.seed

    @property
    def level(self) -> float:
        """The intervals' confidence level (from :attr:`settings`)."""
        return self.settings.level

    @property
    def n_resamples(self) -> int:
        """Bootstrap resamples (from :attr:`settings`)."""
        return self.settings.n_resamples

    def settings_dict(self) -> dict[str, Any]:
        """The settings whole (rule, rounds and the bootstrap), under ``"settings"``."""
        return {"settings": self.settings.to_dict()}
