"""An audit's unit of report: one measured effect, its interval and a plain verdict.

Every verdict is read against documented thresholds (:data:`THRESHOLDS`) on the
distance from no bias as a share of the scale, so effects on different scales compare.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from fairjudge.stats import ConfidenceInterval, bootstrap_mean

__all__ = [
    "THRESHOLDS",
    "Effect",
    "EffectVerdict",
    "paired_effect",
    "verdict_of",
]

EffectVerdict = Literal["negligible", "notable", "severe", "uncertain", "not estimable"]

THRESHOLDS = {"notable": 0.05, "severe": 0.15}
"""Distance from no bias, as a share of the scale, where a verdict starts."""


def verdict_of(
    estimate: float | None, ci: ConfidenceInterval, null: float, scale: float
) -> EffectVerdict:
    """The verdict for an estimate (see the module table)."""
    if estimate is None or not math.isfinite(estimate) or not ci.estimable:
        return "not estimable"
    distance = abs(estimate - null) / scale
    if distance < THRESHOLDS["notable"]:
        # Negligible only when the data rule out a notable effect: the whole interval
        # lies within the negligible band. A wide interval around zero is no finding.
        band = THRESHOLDS["notable"] * scale
        within = null - band < ci.low and ci.high < null + band
        return "negligible" if within else "uncertain"
    if null in ci:
        return "uncertain"
    return "notable" if distance < THRESHOLDS["severe"] else "severe"


@dataclass(frozen=True, slots=True)
class Effect:
    """One measured effect of a bias.

    Attributes:
        name: What was measured, e.g. ``"padded - concise, accuracy"``.
        estimate: The effect (``None`` when nothing could be measured).
        ci: Its bootstrap interval, clustered by question, or why there is none.
        null: The value that means no bias.
        unit: How to read the estimate (``"points on 1-10"``, ``"win rate"``, ...).
        scale: The scale the verdict's thresholds are shares of.
        n: Items (or answers) behind the estimate.
        verdict: See :func:`verdict_of`.
        note: Why the estimate cannot show the bias even though it could be computed
            (a judge whose scores sit at the top of the scale cannot score a padded
            answer higher); the verdict is then "not estimable".
    """

    name: str
    estimate: float | None
    ci: ConfidenceInterval
    null: float
    unit: str
    scale: float
    n: int
    verdict: EffectVerdict
    note: str | None = None

    def censored(self, why: str) -> Effect:
        """This effect, kept, but with the verdict "not estimable" and the reason."""
        return replace(self, verdict="not estimable", note=why)

    @classmethod
    def of(
        cls,
        name: str,
        estimate: float | None,
        ci: ConfidenceInterval,
        *,
        null: float,
        unit: str,
        scale: float = 1.0,
        n: int,
    ) -> Effect:
        """An effect with its verdict computed."""
        return cls(name, estimate, ci, null, unit, scale, n, verdict_of(estimate, ci, null, scale))

    @classmethod
    def missing(
        cls, name: str, reason: str, *, null: float, unit: str, scale: float = 1.0
    ) -> Effect:
        """An effect that could not be measured, with the reason."""
        return cls(name, None, ConfidenceInterval.not_estimable(reason), null, unit, scale, 0,
                   "not estimable")  # fmt: skip

    @property
    def covers_null(self) -> bool:
        """Whether the interval contains the no-bias value."""
        return self.null in self.ci

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "estimate": self.estimate,
            "ci": self.ci.to_dict(),
            "null": self.null,
            "unit": self.unit,
            "scale": self.scale,
            "n": self.n,
            "verdict": self.verdict,
            "note": self.note,
        }


def paired_effect(
    name: str,
    differences: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    unit: str,
    scale: float,
    seed: int,
    level: float,
    n_resamples: int,
) -> Effect:
    """The mean of paired differences (no bias: 0), with a clustered bootstrap interval."""
    if not differences:
        return Effect.missing(
            name, "no item was scored both ways", null=0.0, unit=unit, scale=scale
        )
    ci = bootstrap_mean(
        list(differences), list(clusters), n_resamples=n_resamples, seed=seed, level=level
    )
    estimate = math.fsum(differences) / len(differences)
    return Effect.of(name, estimate, ci, null=0.0, unit=unit, scale=scale, n=len(differences))
