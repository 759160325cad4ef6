"""When an adaptive run stops: the user's ``stop_when`` setting, read once.

``stop_when`` is ``"decided"`` (stop once the anytime-valid interval for model 1's
win rate excludes 0.5), ``"width:W"`` (stop once its half-width is at most ``W``), or
both, comma-separated or as a list; the first condition met stops the run. The
interval is a :class:`~fairjudge.stats._confseq.ConfidenceSequence`, so stopping on
either condition, after any batch, keeps its coverage.

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

__all__ = ["StopReason", "StopRule"]

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
    """

    decided: bool = False
    half_width: float | None = None

    def __post_init__(self) -> None:
        if not self.decided and self.half_width is None:
            raise ConfigError(f"stop_when gives no condition; {_STOP_HELP}", params="stop_when")
        w = self.half_width
        if w is not None and not (isinstance(w, int | float) and 0 < w < 0.5):
            raise ConfigError(
                f"stop_when width must be a half-width in (0, 0.5); got {w!r}", params="stop_when"
            )

    @classmethod
    def parse(cls, stop_when: str | Sequence[str] | StopRule) -> StopRule:
        """Read the user's setting: ``"decided"``, ``"width:0.05"``, ``"decided,width:0.05"``.

        A list of such strings is read as one setting (a repeated option).

        Raises:
            ConfigError: An unknown, malformed or repeated condition; names ``stop_when``.
        """
        if isinstance(stop_when, StopRule):
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
        return cls(decided, width)

    def reason(self, sequence: ConfidenceSequence) -> StopReason | None:
        """Why to stop now, or ``None`` to judge the next batch.

        ``"decided"`` wins over ``"width"`` when both are met by the same batch. With
        the whole population judged, the interval is the file's exact win rate: a file
        whose win rate is not exactly 0.5 ends ``"decided"`` (about this file), and one
        at exactly 0.5 ends ``"not decided"``.
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
