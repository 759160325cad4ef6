"""When an adaptive run stops: the user's ``stop_when`` setting, read once.

``stop_when`` is ``"decided"`` (stop once the anytime-valid interval for model 1's
win rate excludes 0.5), ``"width:W"`` (stop once its half-width is at most ``W``), or
both, comma-separated or as a list; the first condition met stops the run. The
interval is a :class:`~fairjudge.stats._confseq.ConfidenceSequence`, so stopping on
either condition, after any batch, keeps its coverage.

The rule also says what the decision is about (``population``): ``"source"`` (the
default), the population the file's questions are drawn from, which is what a
bootstrap CI of the full run is about too; or ``"file"``, this file's questions only.
The first is the sequence with replacement over the seeded random order, which never
collapses: deciding at the end of the file takes the same evidence as anywhere else.
The second is the sequence without replacement, which shrinks to the file's own win
rate at its end, so that a file at 0.498 ends "model 2 is better" about that file.

The caller's loop::

    rule = StopRule.parse(stop_when)
    cs = ConfidenceSequence.start(population=n_questions, level=level)
    for batch in batches:  # unit scores, in the seeded sampling order
        cs = cs.update(batch)
        if (why := rule.reason(cs)) is not None:
            break  # why: "decided", "width", or "not decided" after the last unit
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from fairjudge._errors import ConfigError
from fairjudge.stats._confseq import ConfidenceSequence

__all__ = ["POPULATIONS", "Population", "StopReason", "StopRule"]

Population = Literal["source", "file"]
"""What an adaptive run's interval and decision are about: ``"source"``, the population
the file's questions are drawn from (questions like these); ``"file"``, this file only."""

POPULATIONS: tuple[Population, ...] = ("source", "file")

StopReason = Literal["decided", "width", "not decided"]
"""Why an adaptive run stopped: the interval excludes 0.5, it is narrow enough, or the
whole population was judged without excluding 0.5."""

_STOP_HELP = (
    "use 'decided', 'width:W' (W a half-width in (0, 0.5)) or both, e.g. 'decided,width:0.05'"
)


@dataclass(frozen=True, slots=True)
class StopRule:
    """When an adaptive run stops: ``decided``, ``width:W``, or both (first met wins).

    Attributes:
        decided: Stop once the interval excludes 0.5.
        half_width: Stop once the interval's half-width is at most this; ``None`` for none.
        population: What the interval and the decision are about (:data:`Population`).
    """

    decided: bool = False
    half_width: float | None = None
    population: Population = "source"

    def __post_init__(self) -> None:
        if self.population not in POPULATIONS:
            raise ConfigError(
                f"population must be 'source' (the population the questions are drawn "
                f"from) or 'file' (this file only); got {self.population!r}",
                params="population",
            )
        if not self.decided and self.half_width is None:
            raise ConfigError(f"stop_when gives no condition; {_STOP_HELP}", params="stop_when")
        w = self.half_width
        if w is not None and not (isinstance(w, int | float) and 0 < w < 0.5):
            raise ConfigError(
                f"stop_when width must be a half-width in (0, 0.5); got {w!r}", params="stop_when"
            )

    @classmethod
    def parse(
        cls, stop_when: str | Sequence[str] | StopRule, population: Population | None = None
    ) -> StopRule:
        """Read the user's setting: ``"decided"``, ``"width:0.05"``, ``"decided,width:0.05"``.

        A list of such strings is read as one setting (a repeated option).

        Args:
            stop_when: The setting, or a rule already read.
            population: What the decision is about; ``None`` keeps a rule's own (or
                ``"source"``). A rule that says otherwise is refused, not overridden.

        Raises:
            ConfigError: An unknown, malformed or repeated condition (names
                ``stop_when``), or a ``population`` that is not one of
                :data:`POPULATIONS` or contradicts the rule's (names ``population``).
        """
        if isinstance(stop_when, StopRule):
            if population is not None and population != stop_when.population:
                raise ConfigError(
                    f"population={population!r} contradicts the stop rule's "
                    f"population={stop_when.population!r}; give it once",
                    params="population",
                )
            return stop_when
        texts = [stop_when] if isinstance(stop_when, str) else stop_when
        if not isinstance(texts, Sequence) or not all(isinstance(t, str) for t in texts):
            raise ConfigError(
                f"stop_when must be a string or a list of strings; got {stop_when!r:.60}; "
                f"{_STOP_HELP}",
                params="stop_when",
            )
        parts = [p.strip() for text in texts for p in text.split(",") if p.strip()]
        if not parts:
            raise ConfigError(f"stop_when is empty; {_STOP_HELP}", params="stop_when")
        decided, width = False, None
        for part in (p.lower() for p in parts):
            name, _, value = part.partition(":")
            if part == "decided":
                if decided:
                    raise ConfigError("stop_when gives 'decided' twice", params="stop_when")
                decided = True
            elif name.strip() == "width":
                if width is not None:
                    raise ConfigError(
                        f"stop_when gives a width twice ({part!r})", params="stop_when"
                    )
                width = _width(part, value.strip())
            else:
                raise ConfigError(
                    f"stop_when has an unknown condition {part!r}; {_STOP_HELP}", params="stop_when"
                )
        return cls(decided, width, "source" if population is None else population)

    def reason(self, sequence: ConfidenceSequence) -> StopReason | None:
        """Why to stop now, or ``None`` to judge the next batch.

        ``"decided"`` wins over ``"width"`` when both are met by the same batch. At
        the end of the file, a run about the population the questions are drawn from
        (``"source"``) is decided only if its interval excludes 0.5 there, on the same
        evidence as anywhere else, and ends ``"not decided"`` otherwise. A run about
        this file only (``"file"``) ends on the file's exact win rate: ``"decided"``
        (about this file) unless it is exactly 0.5.
        """
        if self.decided and sequence.winner is not None:
            return "decided"
        if self.half_width is not None and sequence.half_width <= self.half_width:
            return "width"
        return "not decided" if sequence.complete else None

    def __str__(self) -> str:
        parts = ["decided"] if self.decided else []
        if self.half_width is not None:
            parts.append(f"width:{self.half_width:g}")
        return ",".join(parts)


def _width(part: str, value: str) -> float:
    try:
        w = float(value)
    except ValueError:
        raise ConfigError(
            f"stop_when {part!r}: the width must be a number, e.g. 'width:0.05'; got {value!r}",
            params="stop_when",
        ) from None
    if not 0 < w < 0.5:  # NaN fails too
        raise ConfigError(
            f"stop_when {part!r}: the width is a half-width and must be in (0, 0.5); got {w!r}",
            params="stop_when",
        )
    return w
