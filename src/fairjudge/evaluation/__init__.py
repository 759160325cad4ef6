"""Evaluations built on the judges: plan calls for items, resolve them, summarise.

- :func:`evaluate_pairs` / :func:`evaluate`: a position-debiased comparison of two
  systems, as a :class:`PairwiseResult` with every number's CI.
- :func:`length_controlled`: the AlpacaEval-2-style length-controlled win rate of
  a result, or why it cannot be estimated.
- :mod:`fairjudge.evaluation._battles`: pairings and battles for rankings.
- :func:`score_answers`: pointwise rubric scores per dimension, with CIs, the collapse
  alarm and paired system differences, as a :class:`ScoreResult`. It and its types
  load on first use (PEP 562): ``import fairjudge`` does not pay for the judge session.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes
from fairjudge.evaluation._battles import (
    Battles,
    LongAnswers,
    battles_from,
    load_ranking_input,
    make_pairs,
)
from fairjudge.evaluation._length import length_controlled
from fairjudge.evaluation._pairs import JudgeLike, evaluate, evaluate_pairs
from fairjudge.evaluation._results import PairwiseResult, Rate, WinRate, summarise
from fairjudge.evaluation._settings import EvalSettings, RuleLike, as_rule, check_repeats

if TYPE_CHECKING:
    from fairjudge._io_scores import LoadedScoreItems, ScoreItem, load_score_items
    from fairjudge.evaluation._scores import check_score_items, score_answers, summarise_scores
    from fairjudge.evaluation._scores_result import (
        ScoredItem,
        ScoreResult,
        SystemDifference,
        SystemScores,
    )
    from fairjudge.evaluation._scores_stats import (
        Collapse,
        CollapseRule,
        DimensionSummary,
        ScoreMean,
    )

__getattr__ = lazy_attributes(
    __name__,
    {
        "fairjudge.evaluation._scores_stats": "Collapse CollapseRule DimensionSummary ScoreMean",
        "fairjudge._io_scores": "LoadedScoreItems ScoreItem load_score_items",
        "fairjudge.evaluation._scores_result": (
            "ScoreResult ScoredItem SystemDifference SystemScores"
        ),
        "fairjudge.evaluation._scores": "check_score_items score_answers summarise_scores",
    },
)

__all__ = [
    "Battles",
    "Collapse",
    "CollapseRule",
    "DimensionSummary",
    "EvalSettings",
    "JudgeLike",
    "LoadedScoreItems",
    "LongAnswers",
    "PairwiseResult",
    "Rate",
    "RuleLike",
    "ScoreItem",
    "ScoreMean",
    "ScoreResult",
    "ScoredItem",
    "SystemDifference",
    "SystemScores",
    "WinRate",
    "as_rule",
    "battles_from",
    "check_repeats",
    "check_score_items",
    "evaluate",
    "evaluate_pairs",
    "length_controlled",
    "load_ranking_input",
    "load_score_items",
    "make_pairs",
    "score_answers",
    "summarise",
    "summarise_scores",
]
