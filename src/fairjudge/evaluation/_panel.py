"""One panel, whatever its members read: the aggregators, the result's frame, the diagnostics.

A jury is a judge whose reading is aggregated from its members' readings. What that
means is written here once, for verdicts and scores alike; each kind brings only
its readings and its measure of agreement (Fleiss' kappa of verdicts,
Krippendorff's alpha of scores, which stay with each kind).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

import numpy as np

from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge._types import OUTCOME_SCORE, Outcome
from fairjudge.evaluation._settings import Failure, ResultFrame, members_failures
from fairjudge.judges import weighted_majority
from fairjudge.stats import EffectiveJudges, effective_judges

if TYPE_CHECKING:
    from fairjudge.judges import MemberUsage

__all__ = [
    "AGGREGATIONS",
    "SCORE_AGGREGATIONS",
    "Aggregation",
    "PanelResult",
    "ScoreAggregation",
    "aggregate",
    "aggregate_scores",
    "check_rule",
    "effective",
    "lean",
    "leave_one_out",
    "leave_one_out_means",
    "skipped_or_dict",
    "weighted_median",
    "without",
]

Aggregation = Literal["majority", "mean"]
AGGREGATIONS: tuple[str, ...] = get_args(Aggregation)
ScoreAggregation = Literal["mean", "median"]
SCORE_AGGREGATIONS: tuple[str, ...] = get_args(ScoreAggregation)

T = TypeVar("T")
V = TypeVar("V")
A = TypeVar("A")


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
        return members_failures(self.names, self.members)

    @property
    def member_usage(self) -> tuple[MemberUsage | None, ...]:
        """Each member's usage in this run; ``None`` each when the panel recorded none."""
        if len(self.usage) == len(self.names):
            return self.usage
        return (None,) * len(self.names)

    def roster(self) -> list[dict[str, Any]]:
        """The members with their weights, JSON-ready."""
        return [{"name": n, "weight": w} for n, w in zip(self.names, self.weights, strict=True)]


def leave_one_out(
    k: int,
    rows: Sequence[Sequence[V | None]],
    weights: Sequence[float],
    aggregate: Callable[[list[V | None], list[float]], A | None],
) -> list[tuple[int, V, A]]:
    """Per row where both exist: its index, member ``k``'s reading and the others' aggregate."""
    out = []
    for i, row in enumerate(rows):
        own = row[k]
        rest = aggregate(*without(k, row, weights))
        if own is not None and rest is not None:
            out.append((i, own, rest))
    return out


def leave_one_out_means(
    k: int, rows: Sequence[Sequence[float | None]], weights: Sequence[float]
) -> list[tuple[int, float, float]]:
    """:func:`leave_one_out` under the ``"mean"`` rule of :func:`aggregate_scores`, in numpy.

    The same triples, to the last bit: each sum is taken member by member in the
    members' order (a missing score adds an exact 0.0), as Python's ``sum`` does,
    so the rank statistics that read them see the same ties.
    """
    others = [j for j in range(len(weights)) if j != k]
    score_sum = np.zeros(len(rows))
    held = np.zeros(len(rows))
    for j in others:
        column = [row[j] for row in rows]
        given = np.array([v is not None for v in column], dtype=bool)
        values = np.array([0.0 if v is None else float(v) for v in column])
        score_sum = score_sum + np.where(given, values * weights[j], 0.0)
        held = held + np.where(given, weights[j], 0.0)
    half = sum(weights[j] for j in others) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = score_sum / held
    out = []
    for i in np.flatnonzero(held > half).tolist():
        own = rows[i][k]
        if own is not None:
            out.append((i, own, float(rest[i])))
    return out


def effective(
    rows: Sequence[Sequence[float]], clusters: Sequence[str], boot: dict[str, Any], too_few: str
) -> EffectiveJudges | str:
    """The effective number of judges over complete rows, or why not (``too_few``: < 2 rows)."""
    if len(rows) < 2:
        return too_few
    try:
        return effective_judges(rows, questions=clusters, **boot)
    except (FairJudgeError, ValueError) as exc:
        return str(exc)


def skipped_or_dict(value: Any) -> Any:
    """A figure's JSON: ``None``, ``{"skipped": why}`` for a reason, else its ``to_dict()``."""
    if value is None:
        return None
    return {"skipped": value} if isinstance(value, str) else value.to_dict()
