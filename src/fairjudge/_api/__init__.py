"""The top-level functions a notebook or script calls (``fairjudge.compare``, ...).

They sit above the report layer and beside the command line: each loads items,
resolves a judge, calls the library function its command calls, and returns a
:class:`Result` with the command's report model. The runs themselves (one judge's,
a panel's, via scores) are orchestrated once, in :mod:`fairjudge._api._runs`;
:func:`via_scores` is ``compare --via-scores``'s. Every name loads on first use
(PEP 562), so a command loads only the run it makes.

The commands import the few evaluation types, settings and checks they still use
from here too (``PairwiseResult``, ``EvalSettings``, ``check_rule``, ...), so the
command line reaches the library through this one door; each loads from
:mod:`fairjudge.evaluation` on first use. Only what a command imports is listed.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface

if TYPE_CHECKING:
    from fairjudge._api._audit import audit_judge
    from fairjudge._api._functions import calibrate, compare
    from fairjudge._api._rank import NothingResolved, rank
    from fairjudge._api._result import Result
    from fairjudge._api._runs import ViaScoresRun, via_scores
    from fairjudge._api._score import score
    from fairjudge._api._setup import SAMPLING_TEMPERATURE, JudgeSetup, setup_of
    from fairjudge.evaluation import (
        FALLBACK_L2,
        SCORE_AGGREGATIONS,
        Battles,
        EvalSettings,
        JuryScoreResult,
        PairwiseResult,
        ScoreResult,
        check_rule,
        check_score_items,
        load_ranking_input,
    )

__all__ = [
    "FALLBACK_L2",
    "SAMPLING_TEMPERATURE",
    "SCORE_AGGREGATIONS",
    "Battles",
    "EvalSettings",
    "JudgeSetup",
    "JuryScoreResult",
    "NothingResolved",
    "PairwiseResult",
    "Result",
    "ScoreResult",
    "ViaScoresRun",
    "audit_judge",
    "calibrate",
    "check_rule",
    "check_score_items",
    "compare",
    "load_ranking_input",
    "rank",
    "score",
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
    "JudgeSetup": "fairjudge._api._setup",
    "SAMPLING_TEMPERATURE": "fairjudge._api._setup",
    "setup_of": "fairjudge._api._setup",
    "via_scores": "fairjudge._api._runs",
    "ViaScoresRun": "fairjudge._api._runs",
    "FALLBACK_L2": "fairjudge.evaluation",
    "SCORE_AGGREGATIONS": "fairjudge.evaluation",
    "Battles": "fairjudge.evaluation",
    "EvalSettings": "fairjudge.evaluation",
    "JuryScoreResult": "fairjudge.evaluation",
    "PairwiseResult": "fairjudge.evaluation",
    "ScoreResult": "fairjudge.evaluation",
    "check_rule": "fairjudge.evaluation",
    "check_score_items": "fairjudge.evaluation",
    "load_ranking_input": "fairjudge.evaluation",
}

package_surface(globals(), _LAZY)
