"""The top-level functions a notebook or script calls (``fairjudge.compare``, ...).

They sit above the report layer and beside the command line: each loads items,
resolves a judge, calls the library function its command calls, and returns a
:class:`Result` with the command's report model. :func:`judge_pairs` and
:func:`judge_panel` (and :func:`judge_via_scores`) are the runs themselves,
orchestrated once: the commands that read their own files (``compare``, ``calibrate``,
``jury``, ``compare --via-scores``) call them too. Every name
loads on first use (PEP 562), so a command loads only the run it makes.

The commands import the evaluation's result types, settings and argument checks from
here too (``PairwiseResult``, ``EvalSettings``, ``check_repeats``, ...), so the command
line reaches the library through this one door; each loads from
:mod:`fairjudge.evaluation` on first use, as it would imported there.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface

if TYPE_CHECKING:
    from fairjudge._api._audit import audit_judge
    from fairjudge._api._functions import calibrate, compare
    from fairjudge._api._rank import NothingResolved, rank
    from fairjudge._api._result import Result, page_header
    from fairjudge._api._runs import (
        ViaScoresRun,
        judge_pairs,
        judge_panel,
        judge_via_scores,
        via_scores,
    )
    from fairjudge._api._score import score
    from fairjudge._api._setup import SAMPLING_TEMPERATURE, JudgeSetup, setup_of
    from fairjudge.evaluation import (
        AGGREGATIONS,
        FALLBACK_L2,
        SCORE_AGGREGATIONS,
        AdaptiveResult,
        Battles,
        EvalSettings,
        JuryScoreResult,
        LongAnswers,
        PairwiseResult,
        ScoreResult,
        ScoreRun,
        ViaScoresResult,
        battles_from,
        check_comparable,
        check_repeats,
        check_rule,
        check_score_items,
        check_via_items,
        fit_battles,
        jury_records,
        load_ranking_input,
        load_score_run,
        make_pairs,
        score_answers,
        score_trend,
        score_with_jury,
    )

__all__ = [
    "AGGREGATIONS",
    "FALLBACK_L2",
    "SAMPLING_TEMPERATURE",
    "SCORE_AGGREGATIONS",
    "AdaptiveResult",
    "Battles",
    "EvalSettings",
    "JudgeSetup",
    "JuryScoreResult",
    "LongAnswers",
    "NothingResolved",
    "PairwiseResult",
    "Result",
    "ScoreResult",
    "ScoreRun",
    "ViaScoresResult",
    "ViaScoresRun",
    "audit_judge",
    "battles_from",
    "calibrate",
    "check_comparable",
    "check_repeats",
    "check_rule",
    "check_score_items",
    "check_via_items",
    "compare",
    "fit_battles",
    "judge_pairs",
    "judge_panel",
    "judge_via_scores",
    "jury_records",
    "load_ranking_input",
    "load_score_run",
    "make_pairs",
    "page_header",
    "rank",
    "score",
    "score_answers",
    "score_trend",
    "score_with_jury",
    "setup_of",
    "via_scores",
]

# Where each name lives; the notebook's names report the flat namespace when loaded
# (``fairjudge.compare.__module__ == "fairjudge"``, httpx's convention).
_LAZY = {
    "audit_judge": "fairjudge._api._audit",
    "calibrate": "fairjudge._api._functions",
    "compare": "fairjudge._api._functions",
    "score": "fairjudge._api._score",
    "rank": "fairjudge._api._rank",
    "NothingResolved": "fairjudge._api._rank",
    "Result": "fairjudge._api._result",
    "page_header": "fairjudge._api._result",
    "JudgeSetup": "fairjudge._api._setup",
    "SAMPLING_TEMPERATURE": "fairjudge._api._setup",
    "setup_of": "fairjudge._api._setup",
    "judge_pairs": "fairjudge._api._runs",
    "judge_panel": "fairjudge._api._runs",
    "judge_via_scores": "fairjudge._api._runs",
    "via_scores": "fairjudge._api._runs",
    "ViaScoresRun": "fairjudge._api._runs",
    "AGGREGATIONS": "fairjudge.evaluation",
    "FALLBACK_L2": "fairjudge.evaluation",
    "SCORE_AGGREGATIONS": "fairjudge.evaluation",
    "AdaptiveResult": "fairjudge.evaluation",
    "Battles": "fairjudge.evaluation",
    "EvalSettings": "fairjudge.evaluation",
    "JuryScoreResult": "fairjudge.evaluation",
    "LongAnswers": "fairjudge.evaluation",
    "PairwiseResult": "fairjudge.evaluation",
    "ScoreResult": "fairjudge.evaluation",
    "ScoreRun": "fairjudge.evaluation",
    "ViaScoresResult": "fairjudge.evaluation",
    "battles_from": "fairjudge.evaluation",
    "check_comparable": "fairjudge.evaluation",
    "check_repeats": "fairjudge.evaluation",
    "check_rule": "fairjudge.evaluation",
    "check_score_items": "fairjudge.evaluation",
    "check_via_items": "fairjudge.evaluation",
    "fit_battles": "fairjudge.evaluation",
    "jury_records": "fairjudge.evaluation",
    "load_ranking_input": "fairjudge.evaluation",
    "load_score_run": "fairjudge.evaluation",
    "make_pairs": "fairjudge.evaluation",
    "score_answers": "fairjudge.evaluation",
    "score_trend": "fairjudge.evaluation",
    "score_with_jury": "fairjudge.evaluation",
}

package_surface(globals(), _LAZY)
