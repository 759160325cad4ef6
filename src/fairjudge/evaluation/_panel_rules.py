"""The aggregators: how a panel's readings of one item become the panel's reading.

Each reading kind has its rules, and every rule weighs the members:

- **verdicts** (``"majority"``, ``"mean"``): the members' debiased outcomes vote, and
  an outcome wins when its voters hold *more than half* of the panel's weight (no
  majority is a tie, scored ½); or the weighted mean of the members' soft scores
  (model 1's expected score), which leans to model 1 above ½ and to model 2 below.
  Every member must have resolved the item: a missing vote is never guessed.
- **scores** (``"mean"``, ``"median"``), per dimension: ``Σ w_k s_k / Σ w_k``, or
  the weighted median: sort the scores and take the first at which the members'
  cumulative weight passes half of the total; when it reaches *exactly* half there,
  the midpoint of that score and the next (so equal weights give the ordinary
  median, and ``[1, 2, 3, 4]`` gives 2.5). A member that gave no score has no say;
  the answer gets a panel score only when the members that scored it hold more
  than half of the weight.

:func:`without` is the leave-one-out view every per-member diagnostic reads: the
others' readings and weights, to aggregate under the same rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeVar, get_args

from fairjudge._errors import ConfigError
from fairjudge._types import OUTCOME_SCORE, Outcome
from fairjudge.judges._jury_votes import weighted_majority

__all__ = [
    "AGGREGATIONS",
    "SCORE_AGGREGATIONS",
    "Aggregation",
    "ScoreAggregation",
    "aggregate",
    "aggregate_scores",
    "check_rule",
    "lean",
    "weighted_median",
    "without",
]

Aggregation = Literal["majority", "mean"]
AGGREGATIONS: tuple[str, ...] = get_args(Aggregation)
ScoreAggregation = Literal["mean", "median"]
SCORE_AGGREGATIONS: tuple[str, ...] = get_args(ScoreAggregation)

T = TypeVar("T")


def check_rule(
    name: str, rules: Sequence[str], *, param: str = "aggregation", what: str = ""
) -> str:
    """The rule, checked against a kind's ``rules``.

    Raises:
        ConfigError: Not one of ``rules``; the message names ``param`` and lists them.
    """
    if name not in rules:
        raise ConfigError(
            f"{param} must be one of {', '.join(rules)}{what}; got {name!r}", params=param
        )
    return name


def lean(score: float) -> Outcome:
    """The outcome a score of model 1 leans to: above ½ model 1, below model 2, else a tie."""
    if abs(score - 0.5) < 1e-12:
        return Outcome.TIE
    return Outcome.ONE if score > 0.5 else Outcome.TWO


def aggregate(
    votes: Sequence[Outcome], soft: Sequence[float], weights: Sequence[float], rule: str
) -> tuple[Outcome, float]:
    """One item's panel outcome and model 1's score from its members' verdicts.

    Args:
        votes: Each member's debiased outcome.
        soft: Each member's soft score (model 1's expected score).
        weights: Each member's weight.
        rule: ``"majority"`` or ``"mean"`` (see the module docstring).

    Example:
        >>> aggregate([Outcome.ONE, Outcome.ONE, Outcome.TWO], [1, 1, 0], [1, 1, 1], "majority")
        (<Outcome.ONE: '1'>, 1.0)
    """
    total = float(sum(weights))
    if rule == "mean":
        score = sum(w * s for w, s in zip(weights, soft, strict=True)) / total
        return lean(score), score
    outcome = weighted_majority(votes, weights, total, list(Outcome), Outcome.TIE)
    return outcome, OUTCOME_SCORE[outcome]


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
    scores: Sequence[float | None], weights: Sequence[float], rule: str
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


def without(k: int, values: Sequence[T], weights: Sequence[float]) -> tuple[list[T], list[float]]:
    """The other members' values and weights: member ``k`` left out."""
    return [v for i, v in enumerate(values) if i != k], [w for i, w in enumerate(weights) if i != k]
