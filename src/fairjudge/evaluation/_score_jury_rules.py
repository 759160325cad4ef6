"""The rules that turn a panel's scores on one answer into one score per dimension.

``"mean"`` is the weighted mean of the members' scores, ``Σ w_k s_k / Σ w_k``.
``"median"`` is the weighted median: sort the scores and take the first at which the
members' cumulative weight passes half of the total; when it reaches *exactly* half
there, the median is the midpoint of that score and the next (so equal weights give
the ordinary median). A member that gave no score has no say; the answer gets a
panel score only when the members that scored it hold more than half of the weight.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from fairjudge._errors import ConfigError

__all__ = [
    "SCORE_AGGREGATIONS",
    "ScoreAggregation",
    "aggregate_scores",
    "as_score_aggregation",
    "weighted_median",
]

ScoreAggregation = Literal["mean", "median"]
SCORE_AGGREGATIONS: tuple[str, ...] = get_args(ScoreAggregation)


def as_score_aggregation(name: str) -> ScoreAggregation:
    """The rule, checked.

    Raises:
        ConfigError: Not ``"mean"`` or ``"median"``.
    """
    if name not in SCORE_AGGREGATIONS:
        raise ConfigError(
            f"--aggregate must be one of {', '.join(SCORE_AGGREGATIONS)} for scores; got {name!r}"
        )
    return "mean" if name == "mean" else "median"


def weighted_median(values: Sequence[float], weights: Sequence[float]) -> float:
    """The weighted median (see the module docstring); equal weights give the median.

    Raises:
        ConfigError: No values, or lengths that differ.

    Example:
        >>> weighted_median([1, 2, 5], [1, 1, 3])
        5.0
        >>> weighted_median([1, 2, 3, 4], [1, 1, 1, 1])
        2.5
    """
    if not values or len(values) != len(weights):
        raise ConfigError("weighted_median needs one weight per value, and a value")
    pairs = sorted(zip(values, weights, strict=True))
    half = sum(weights) / 2
    held = 0.0
    for k, (value, weight) in enumerate(pairs):
        held += weight
        if abs(held - half) <= 1e-9 * max(1.0, half) and k + 1 < len(pairs):
            return (float(value) + float(pairs[k + 1][0])) / 2
        if held > half:
            return float(value)
    return float(pairs[-1][0])


def aggregate_scores(
    scores: Sequence[float | None],
    weights: Sequence[float],
    rule: ScoreAggregation,
) -> float | None:
    """One answer's panel score on one dimension, or ``None`` when it stays unscored.

    Args:
        scores: Each member's score (``None`` where it gave none).
        weights: Each member's weight.
        rule: ``"mean"`` or ``"median"``.

    Returns:
        The weighted mean or median of the scores given, when the members that gave
        them hold more than half of the total weight; else ``None``.

    Example:
        >>> aggregate_scores([1, 2, 5], [1, 1, 3], "mean")
        3.6
        >>> aggregate_scores([4, None], [1, 1], "mean") is None
        True
    """
    given = [(float(s), w) for s, w in zip(scores, weights, strict=True) if s is not None]
    held = sum(w for _, w in given)
    if not given or held <= sum(weights) / 2:
        return None
    if rule == "median":
        return weighted_median([s for s, _ in given], [w for _, w in given])
    return sum(s * w for s, w in given) / held
