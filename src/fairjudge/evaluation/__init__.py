"""Evaluations built on the judges: plan calls for items, resolve them, summarise.

- :func:`evaluate_pairs` / :func:`evaluate`: a position-debiased comparison of two
  systems, as a :class:`PairwiseResult` with every number's CI.
- :func:`length_controlled`: the AlpacaEval-2-style length-controlled win rate of
  a result, or why it cannot be estimated.
- :mod:`fairjudge.evaluation._battles`: pairings and battles for rankings;
  :func:`fit_battles` fits their leaderboard (with the :data:`FALLBACK_L2` ridge).
- :func:`score_answers`: pointwise rubric scores per dimension, with CIs, the collapse
  alarm and paired system differences, as a :class:`ScoreResult`. It and its types
  load on first use (PEP 562): ``import fairjudge`` does not pay for the judge session.
  So does everything but :class:`EvalSettings`: a command's ``--help`` loads none of it.
- :func:`score_trend`: a pointwise run against a baseline run (:func:`load_score_run`),
  dimension by dimension: mean shift with CI, distribution test, a plain reading.
- :func:`compare_via_scores`: two systems compared through each answer's own score.
- :func:`score_with_jury`: a panel of pointwise judges, aggregated per dimension (mean
  or median), as a :class:`JuryScoreResult`; :func:`score_jury_diagnostics` gives
  Krippendorff's alpha, the effective number of judges and what each member adds.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes, module_dir
from fairjudge.evaluation._settings import EvalSettings, RuleLike, as_rule, check_repeats

if TYPE_CHECKING:
    from fairjudge.evaluation._adaptive import evaluate_adaptive as evaluate_adaptive
    from fairjudge.evaluation._adaptive_interval import AnytimeInterval as AnytimeInterval
    from fairjudge.evaluation._adaptive_result import AdaptiveReason as AdaptiveReason
    from fairjudge.evaluation._adaptive_result import AdaptiveResult as AdaptiveResult
    from fairjudge.evaluation._battles import (
        Battles,
        LongAnswers,
        battles_from,
        load_ranking_input,
        make_pairs,
    )
    from fairjudge.evaluation._jury import JuryResult, PanelJudgment, evaluate_jury
    from fairjudge.evaluation._jury_stats import (
        JuryDiagnostics,
        MemberDiagnostics,
        jury_diagnostics,
    )
    from fairjudge.evaluation._length import length_controlled
    from fairjudge.evaluation._pairs import JudgeLike, evaluate, evaluate_pairs
    from fairjudge.evaluation._panel import (
        AGGREGATIONS,
        SCORE_AGGREGATIONS,
        Aggregation,
        ScoreAggregation,
        aggregate_scores,
        weighted_median,
    )
    from fairjudge.evaluation._ranking import FALLBACK_L2, fit_battles
    from fairjudge.evaluation._results import PairwiseResult, Rate, WinRate, summarise
    from fairjudge.evaluation._score_jury import JuryScoreResult, PanelScoredItem, score_with_jury
    from fairjudge.evaluation._score_jury_stats import (
        DimensionPanelDiagnostics,
        JuryScoreDiagnostics,
        MemberScoreDiagnostics,
        score_jury_diagnostics,
    )
    from fairjudge.evaluation._scores import check_score_items, score_answers, summarise_scores
    from fairjudge.evaluation._scores_records import ScoreRun, load_score_run
    from fairjudge.evaluation._scores_result import (
        ScoredItem,
        ScoreResult,
        SystemDifference,
        SystemScores,
    )
    from fairjudge.evaluation._scores_shift import ShiftTest
    from fairjudge.evaluation._scores_stats import (
        Collapse,
        CollapseRule,
        DimensionSummary,
        ScoreMean,
    )
    from fairjudge.evaluation._trend import (
        DimensionShift,
        ScoreTrend,
        check_comparable,
        score_trend,
    )
    from fairjudge.evaluation._via_scores import (
        ScoredPair,
        ViaScoresResult,
        check_via_items,
        compare_via_scores,
    )

__getattr__ = lazy_attributes(
    __name__,
    {
        "fairjudge.evaluation._adaptive": "evaluate_adaptive",
        "fairjudge.evaluation._adaptive_interval": "AnytimeInterval",
        "fairjudge.evaluation._adaptive_result": "AdaptiveReason AdaptiveResult",
        "fairjudge.evaluation._battles": (
            "Battles LongAnswers battles_from load_ranking_input make_pairs"
        ),
        "fairjudge.evaluation._length": "length_controlled",
        "fairjudge.evaluation._ranking": "FALLBACK_L2 fit_battles",
        "fairjudge.evaluation._pairs": "JudgeLike evaluate evaluate_pairs",
        "fairjudge.evaluation._results": "PairwiseResult Rate WinRate summarise",
        "fairjudge.evaluation._scores_stats": "Collapse CollapseRule DimensionSummary ScoreMean",
        "fairjudge.evaluation._scores_result": (
            "ScoreResult ScoredItem SystemDifference SystemScores"
        ),
        "fairjudge.evaluation._scores": "check_score_items score_answers summarise_scores",
        "fairjudge.evaluation._scores_records": "ScoreRun load_score_run",
        "fairjudge.evaluation._score_jury": "JuryScoreResult PanelScoredItem score_with_jury",
        "fairjudge.evaluation._panel": (
            "AGGREGATIONS SCORE_AGGREGATIONS Aggregation ScoreAggregation aggregate_scores "
            "weighted_median"
        ),
        "fairjudge.evaluation._score_jury_stats": (
            "DimensionPanelDiagnostics JuryScoreDiagnostics MemberScoreDiagnostics "
            "score_jury_diagnostics"
        ),
        "fairjudge.evaluation._scores_shift": "ShiftTest",
        "fairjudge.evaluation._jury": "JuryResult PanelJudgment evaluate_jury",
        "fairjudge.evaluation._jury_stats": "JuryDiagnostics MemberDiagnostics jury_diagnostics",
        "fairjudge.evaluation._trend": "DimensionShift ScoreTrend check_comparable score_trend",
        "fairjudge.evaluation._via_scores": (
            "ScoredPair ViaScoresResult check_via_items compare_via_scores"
        ),
    },
)

__all__ = [
    "AGGREGATIONS",
    "FALLBACK_L2",
    "SCORE_AGGREGATIONS",
    "Aggregation",
    "Battles",
    "Collapse",
    "CollapseRule",
    "DimensionPanelDiagnostics",
    "DimensionShift",
    "DimensionSummary",
    "EvalSettings",
    "JudgeLike",
    "JuryDiagnostics",
    "JuryResult",
    "JuryScoreDiagnostics",
    "JuryScoreResult",
    "LongAnswers",
    "MemberDiagnostics",
    "MemberScoreDiagnostics",
    "PairwiseResult",
    "PanelJudgment",
    "PanelScoredItem",
    "Rate",
    "RuleLike",
    "ScoreAggregation",
    "ScoreMean",
    "ScoreResult",
    "ScoreRun",
    "ScoreTrend",
    "ScoredItem",
    "ScoredPair",
    "ShiftTest",
    "SystemDifference",
    "SystemScores",
    "ViaScoresResult",
    "WinRate",
    "aggregate_scores",
    "as_rule",
    "battles_from",
    "check_comparable",
    "check_repeats",
    "check_score_items",
    "check_via_items",
    "compare_via_scores",
    "evaluate",
    "evaluate_jury",
    "evaluate_pairs",
    "fit_battles",
    "jury_diagnostics",
    "length_controlled",
    "load_ranking_input",
    "load_score_run",
    "make_pairs",
    "score_answers",
    "score_jury_diagnostics",
    "score_trend",
    "score_with_jury",
    "summarise",
    "summarise_scores",
    "weighted_median",
]


__dir__ = module_dir(globals(), __all__)
