"""What a judgment is: the judge session, and the judges that run on it.

- :class:`JudgeSession` owns backends, store, event loop, run options and budget,
  and runs batches of :class:`Job` objects for any kind of judgment.
- :class:`LLMJudge` is the pairwise judge on a session: a template and a verdict
  parser. :class:`CallableJudge` adapts a plain Python function.
- :class:`ReplayJudge` answers from recorded verdicts (``replay:FILE``), calling no one.
- :func:`resolve_judge` turns a ``--judge`` spec into any of them.
- :class:`PointwiseJudge` scores one answer against a rubric on a session;
  :class:`CallablePointwiseJudge` adapts a function; :func:`resolve_pointwise_judge`
  turns a ``--judge`` spec into either. :class:`PointwiseJury` puts several of them
  on one panel that scores every answer against one rubric.

The session, the model judges and the resolver load lazily (PEP 562), so that
``import fairjudge`` and Python-callable judges never pay for the runner, the store
or an HTTP client. The backends themselves live in :mod:`fairjudge.backends`.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes
from fairjudge._types import Replies
from fairjudge.judges._callable import CallableJudge, load_python_judge, reply_from_value
from fairjudge.judges._pairwise import BatchJudge, PairwiseRequest, ProgressCallback

if TYPE_CHECKING:
    from fairjudge.judges._jury import Jury, JuryMember, MemberSpec
    from fairjudge.judges._jury_file import JuryFile, load_jury_file, recorded_jury
    from fairjudge.judges._jury_usage import MemberUsage
    from fairjudge.judges._llm import LLMJudge, read_verdict
    from fairjudge.judges._pointwise import (
        SCORE_MODES,
        AnswerScores,
        BatchPointwiseJudge,
        CallablePointwiseJudge,
        PointwiseJudge,
        ScoreCall,
        ScoreContext,
        ScoreMode,
        ScoreRequest,
        read_scores,
        resolve_pointwise_judge,
    )
    from fairjudge.judges._pointwise_jury import PointwiseJury, PointwiseMember
    from fairjudge.judges._registry import (
        DEFAULT_JUDGE,
        JUDGE_FORMS,
        BackendOptions,
        calls_no_model,
        resolve_judge,
    )
    from fairjudge.judges._replay import ReplayJudge
    from fairjudge.judges._session import Job, JudgeSession, ReplyParser

__getattr__ = lazy_attributes(
    __name__,
    {
        "fairjudge.judges._registry": (
            "DEFAULT_JUDGE JUDGE_FORMS BackendOptions calls_no_model resolve_judge"
        ),
        "fairjudge.judges._replay": "ReplayJudge",
        "fairjudge.judges._jury": "Jury JuryMember MemberSpec",
        "fairjudge.judges._jury_file": "JuryFile load_jury_file recorded_jury",
        "fairjudge.judges._jury_usage": "MemberUsage",
        "fairjudge.judges._llm": "LLMJudge read_verdict",
        "fairjudge.judges._session": "Job JudgeSession ReplyParser",
        "fairjudge.judges._pointwise_jury": "PointwiseJury PointwiseMember",
        "fairjudge.judges._pointwise": (
            "SCORE_MODES AnswerScores BatchPointwiseJudge "
            "CallablePointwiseJudge PointwiseJudge ScoreCall ScoreContext "
            "ScoreMode ScoreRequest read_scores resolve_pointwise_judge"
        ),
    },
)

__all__ = [
    "DEFAULT_JUDGE",
    "JUDGE_FORMS",
    "SCORE_MODES",
    "AnswerScores",
    "BackendOptions",
    "BatchJudge",
    "BatchPointwiseJudge",
    "CallableJudge",
    "CallablePointwiseJudge",
    "Job",
    "JudgeSession",
    "Jury",
    "JuryFile",
    "JuryMember",
    "LLMJudge",
    "MemberSpec",
    "MemberUsage",
    "PairwiseRequest",
    "PointwiseJudge",
    "PointwiseJury",
    "PointwiseMember",
    "ProgressCallback",
    "ReplayJudge",
    "Replies",
    "ReplyParser",
    "ScoreCall",
    "ScoreContext",
    "ScoreMode",
    "ScoreRequest",
    "calls_no_model",
    "load_jury_file",
    "load_python_judge",
    "read_scores",
    "read_verdict",
    "recorded_jury",
    "reply_from_value",
    "resolve_judge",
    "resolve_pointwise_judge",
]
