"""Evaluations built on the judges: plan calls for items, resolve them, summarise.

- :func:`evaluate_pairs` / :func:`evaluate`: a position-debiased comparison of two
  systems, as a :class:`PairwiseResult` with every number's CI.
- :func:`length_controlled`: the AlpacaEval-2-style length-controlled win rate of
  a result, or why it cannot be estimated.
- :mod:`fairjudge.evaluation._ranking`: pairings and battles for rankings;
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

from fairjudge._lazy import package_surface
from fairjudge.evaluation._settings import EvalSettings, check_repeats

if TYPE_CHECKING:
    from fairjudge.evaluation._adaptive import (
        check_batch,
        compare_via_scores_adaptive,
        evaluate_adaptive,
        evaluate_jury_adaptive,
    )
    from fairjudge.evaluation._adaptive_result import AdaptiveResult, tallied_run
    from fairjudge.evaluation._jury import (
        JuryDiagnostics,
        JuryResult,
        evaluate_jury,
        jury_diagnostics,
        jury_records,
    )
    from fairjudge.evaluation._panel import AGGREGATIONS, SCORE_AGGREGATIONS, check_rule
    from fairjudge.evaluation._ranking import (
        FALLBACK_L2,
        Battles,
        LongAnswers,
        battles_from,
        fit_battles,
        load_ranking_input,
        make_pairs,
    )
    from fairjudge.evaluation._results import (
        PairwiseResult,
        Rate,
        WinRate,
        as_batch_judge,
        evaluate,
        evaluate_pairs,
        judgment,
        length_controlled,
        summarise,
    )
    from fairjudge.evaluation._score_jury import (
        JuryScoreDiagnostics,
        JuryScoreResult,
        PanelScoredItem,
        score_jury_diagnostics,
        score_with_jury,
    )
    from fairjudge.evaluation._scores import (
        ScoredItem,
        ScoreResult,
        SystemDifference,
        check_score_items,
        score_answers,
        summarise_scores,
    )
    from fairjudge.evaluation._scores_stats import (
        CollapseRule,
        DimensionSummary,
        ScoreMean,
        human_agreement,
    )
    from fairjudge.evaluation._trend import (
        DimensionShift,
        ScoreRun,
        ScoreTrend,
        check_comparable,
        load_score_run,
        score_trend,
    )
    from fairjudge.evaluation._via_scores import (
        ViaScoresResult,
        check_via_items,
        compare_via_scores,
        via_result,
    )

__all__ = [
    "AGGREGATIONS",
    "FALLBACK_L2",
    "SCORE_AGGREGATIONS",
    "AdaptiveResult",
    "Battles",
    "CollapseRule",
    "DimensionShift",
    "DimensionSummary",
    "EvalSettings",
    "JuryDiagnostics",
    "JuryResult",
    "JuryScoreDiagnostics",
    "JuryScoreResult",
    "LongAnswers",
    "PairwiseResult",
    "PanelScoredItem",
    "Rate",
    "ScoreMean",
    "ScoreResult",
    "ScoreRun",
    "ScoreTrend",
    "ScoredItem",
    "SystemDifference",
    "ViaScoresResult",
    "WinRate",
    "as_batch_judge",
    "battles_from",
    "check_batch",
    "check_comparable",
    "check_repeats",
    "check_rule",
    "check_score_items",
    "check_via_items",
    "compare_via_scores",
    "compare_via_scores_adaptive",
    "evaluate",
    "evaluate_adaptive",
    "evaluate_jury",
    "evaluate_jury_adaptive",
    "evaluate_pairs",
    "fit_battles",
    "human_agreement",
    "judgment",
    "jury_diagnostics",
    "jury_records",
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
    "tallied_run",
    "via_result",
]

_LAZY = {
    "evaluate_adaptive": "fairjudge.evaluation._adaptive",
    "evaluate_jury_adaptive": "fairjudge.evaluation._adaptive",
    "AdaptiveResult": "fairjudge.evaluation._adaptive_result",
    "tallied_run": "fairjudge.evaluation._adaptive_result",
    "compare_via_scores_adaptive": "fairjudge.evaluation._adaptive",
    "check_batch": "fairjudge.evaluation._adaptive",
    "Battles": "fairjudge.evaluation._ranking",
    "LongAnswers": "fairjudge.evaluation._ranking",
    "battles_from": "fairjudge.evaluation._ranking",
    "load_ranking_input": "fairjudge.evaluation._ranking",
    "make_pairs": "fairjudge.evaluation._ranking",
    "JuryResult": "fairjudge.evaluation._jury",
    "evaluate_jury": "fairjudge.evaluation._jury",
    "jury_records": "fairjudge.evaluation._jury",
    "JuryDiagnostics": "fairjudge.evaluation._jury",
    "jury_diagnostics": "fairjudge.evaluation._jury",
    "length_controlled": "fairjudge.evaluation._results",
    "as_batch_judge": "fairjudge.evaluation._results",
    "evaluate": "fairjudge.evaluation._results",
    "evaluate_pairs": "fairjudge.evaluation._results",
    "AGGREGATIONS": "fairjudge.evaluation._panel",
    "SCORE_AGGREGATIONS": "fairjudge.evaluation._panel",
    "check_rule": "fairjudge.evaluation._panel",
    "FALLBACK_L2": "fairjudge.evaluation._ranking",
    "fit_battles": "fairjudge.evaluation._ranking",
    "PairwiseResult": "fairjudge.evaluation._results",
    "Rate": "fairjudge.evaluation._results",
    "WinRate": "fairjudge.evaluation._results",
    "judgment": "fairjudge.evaluation._results",
    "summarise": "fairjudge.evaluation._results",
    "JuryScoreResult": "fairjudge.evaluation._score_jury",
    "PanelScoredItem": "fairjudge.evaluation._score_jury",
    "score_with_jury": "fairjudge.evaluation._score_jury",
    "JuryScoreDiagnostics": "fairjudge.evaluation._score_jury",
    "score_jury_diagnostics": "fairjudge.evaluation._score_jury",
    "check_score_items": "fairjudge.evaluation._scores",
    "score_answers": "fairjudge.evaluation._scores",
    "summarise_scores": "fairjudge.evaluation._scores",
    "ScoreRun": "fairjudge.evaluation._trend",
    "load_score_run": "fairjudge.evaluation._trend",
    "ScoreResult": "fairjudge.evaluation._scores",
    "ScoredItem": "fairjudge.evaluation._scores",
    "SystemDifference": "fairjudge.evaluation._scores",
    "CollapseRule": "fairjudge.evaluation._scores_stats",
    "DimensionSummary": "fairjudge.evaluation._scores_stats",
    "ScoreMean": "fairjudge.evaluation._scores_stats",
    "human_agreement": "fairjudge.evaluation._scores_stats",
    "DimensionShift": "fairjudge.evaluation._trend",
    "ScoreTrend": "fairjudge.evaluation._trend",
    "check_comparable": "fairjudge.evaluation._trend",
    "score_trend": "fairjudge.evaluation._trend",
    "ViaScoresResult": "fairjudge.evaluation._via_scores",
    "check_via_items": "fairjudge.evaluation._via_scores",
    "compare_via_scores": "fairjudge.evaluation._via_scores",
    "via_result": "fairjudge.evaluation._via_scores",
}

package_surface(globals(), _LAZY)
