"""What every panel's result has, whatever its members read: written once for both.

A jury's result (:class:`~fairjudge.evaluation.JuryResult`, verdicts) and a scoring
panel's (:class:`~fairjudge.evaluation.JuryScoreResult`, scores) both keep the
members' names and weights, the rule, each member's own one-judge result (on the
:class:`~fairjudge.evaluation._frame.ResultFrame`), why the run stopped and each
member's usage. :class:`PanelResult` puts a panel on the same frame and gives the
figures both report the same way: the failures by member, each member's usage (or
``None`` when the panel recorded none), the roster and the bootstrap options.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from fairjudge.evaluation._frame import Failure, ResultFrame

if TYPE_CHECKING:
    from fairjudge.judges import MemberUsage

__all__ = ["PanelResult"]


class PanelResult(ResultFrame):
    """The shared part of a panel's result (a base of its frozen dataclass)."""

    __slots__ = ()

    # Given by each result as dataclass fields: declared for the type checker only.
    if TYPE_CHECKING:
        names: tuple[str, ...]
        weights: tuple[float, ...]
        aggregation: str
        members: tuple[Any, ...]
        usage: tuple[MemberUsage, ...]

    @property
    def boot(self) -> dict[str, Any]:
        """The bootstrap options every interval of the result uses (seed, level, resamples)."""
        return {"seed": self.seed, "level": self.level, "n_resamples": self.n_resamples}

    def item_failures(self) -> Iterator[Iterable[Failure]]:
        """Per item, every member's calls' failures."""
        for own in zip(*(m.item_failures() for m in self.members), strict=True):
            yield [f for calls in own for f in calls]

    @property
    def failures(self) -> Counter[str]:
        """Why members' calls failed, each reason prefixed by the member."""
        reasons: Counter[str] = Counter()
        for name, member in zip(self.names, self.members, strict=True):
            for reason, count in member.failures.items():
                reasons[f"{name}: {reason}"] += count
        return reasons

    @property
    def member_usage(self) -> tuple[MemberUsage | None, ...]:
        """Each member's usage in this run; ``None`` each when the panel recorded none."""
        if len(self.usage) == len(self.names):
            return self.usage
        return (None,) * len(self.names)

    def roster(self) -> list[dict[str, Any]]:
        """The members with their weights, JSON-ready."""
        return [{"name": n, "weight": w} for n, w in zip(self.names, self.weights, strict=True)]
