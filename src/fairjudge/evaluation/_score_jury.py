"""A panel's scores: every member scores every answer, aggregated per dimension.

:func:`score_with_jury` hands a :class:`~fairjudge.judges.PointwiseJury` every answer
at once (one batch, one store, one budget for the panel), keeps every member's
scores and calls, and aggregates them answer by answer and dimension by dimension:

- ``"mean"``: the weighted mean of the members' scores, ``Σ w_k s_k / Σ w_k``.
- ``"median"``: the weighted median: sort the scores, and take the first score at
  which the members' cumulative weight reaches half of the total; when it reaches
  *exactly* half there, the median is the midpoint of that score and the next one
  (so equal weights give the ordinary median, and ``[1, 2, 3, 4]`` gives 2.5).

A member that could not score an answer on a dimension (a parse failure, a failed
call, a call a budget stopped) has no say in it. The answer is then aggregated from
the members that did score it *only if they hold more than half of the panel's
weight*; otherwise the answer is unscored on that dimension, and counted as such,
never imputed. The rule and the weights are recorded in the :class:`JuryScoreResult`,
and :meth:`JuryScoreResult.with_aggregation` re-aggregates the same scores under the
other rule without calling anyone again.

Each member's own scores are summarised as a one-judge run would be
(:func:`~fairjudge.evaluation.summarise_scores`); the panel's aggregates get the same
per-dimension summary (:mod:`._score_jury_result`). What each member adds is
:func:`~fairjudge.evaluation._score_jury_stats.score_jury_diagnostics`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from fairjudge._errors import ConfigError
from fairjudge._items import ScoreItem
from fairjudge._types import stopped_by
from fairjudge.evaluation._panel_rules import SCORE_AGGREGATIONS, check_rule
from fairjudge.evaluation._score_jury_result import JuryScoreResult, aggregate_item, panel_result
from fairjudge.evaluation._scores import _check
from fairjudge.evaluation._scores_stats import CollapseRule
from fairjudge.judges._jury import MemberSpec
from fairjudge.judges._pointwise import ScoreRequest, _as_rubric
from fairjudge.judges._pointwise_jury import PointwiseJury
from fairjudge.prompts import Rubric, get_rubric

__all__ = ["score_with_jury"]


def score_with_jury(
    jury: PointwiseJury | Sequence[MemberSpec],
    items: Sequence[ScoreItem],
    *,
    rubric: str | Rubric | None = None,
    aggregation: str = "mean",
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    collapse: CollapseRule | None = None,
    progress: Callable[[int], None] | None = None,
) -> JuryScoreResult:
    """Every member scores every answer; aggregate per dimension and summarise.

    A spent budget does not raise: the result is returned with ``stopped`` set.

    Args:
        jury: The panel, or member specs to build one from (with ``rubric``; closed
            again when done).
        items: The answers, with their questions (and references, human scores, ...).
        rubric: The rubric; a jury given as itself may be given only its own.
        aggregation: ``"mean"`` or ``"median"`` (see the module docstring).
        seed: Bootstrap seed; the same seed gives the same intervals.
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples.
        collapse: Thresholds of the collapse alarm (default :class:`CollapseRule`).
        progress: Called with the number of calls just finished (members × calls).

    Raises:
        ConfigError: A bad option or rule, no items, a rubric that needs references
            the items lack, or a rubric other than the jury's.
        FatalBackendError: A model member cannot go on; finished calls are kept.

    Example:
        >>> from fairjudge.judges import CallablePointwiseJudge as F
        >>> from fairjudge.judges._pointwise_jury import PointwiseMember as M
        >>> dims = ("accuracy", "relevance", "usefulness")
        >>> jury = PointwiseJury([M("a", F(lambda q, a: dict.fromkeys(dims, 2))),
        ...                       M("b", F(lambda q, a: dict.fromkeys(dims, 5)), 2.0)])
        >>> score_with_jury(jury, [ScoreItem("q", "a")]).items[0].scores["accuracy"]
        4.0
    """
    rule = check_rule(aggregation, SCORE_AGGREGATIONS, what=" for scores")
    if not isinstance(jury, PointwiseJury):
        the_rubric = _as_rubric(rubric or "production")
        _check(items, the_rubric, level, n_resamples)  # before any session opens
        with PointwiseJury.from_specs(jury, rubric=the_rubric) as panel:
            return score_with_jury(panel, items, aggregation=rule, seed=seed, level=level,
                                   n_resamples=n_resamples, collapse=collapse,
                                   progress=progress)  # fmt: skip
    wanted = get_rubric(rubric) if isinstance(rubric, str) else rubric
    if wanted is not None and wanted != jury.rubric:
        raise ConfigError(
            f"rubric {wanted.name!r} differs from the jury's own, {jury.rubric.name!r}; "
            "give the rubric to the jury"
        )
    _check(items, jury.rubric, level, n_resamples)
    requests = [ScoreRequest(it.question, it.answer, it.reference) for it in items]
    per_member = jury.member_readings(requests, progress)
    weights = jury.weights
    scored = [
        aggregate_item(item, row, weights, rule, jury.rubric)
        for item, row in zip(items, zip(*per_member, strict=True), strict=True)
    ]
    result = panel_result(
        jury.rubric, jury.names, weights, rule, scored, seed=seed, level=level,
        n_resamples=n_resamples, collapse=collapse or CollapseRule(),
        stopped=stopped_by(*per_member),
    )  # fmt: skip
    return replace(result, usage=jury.last_usage)
