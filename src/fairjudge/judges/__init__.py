"""What a judgment is: the judge session, and the judges that run on it.

- :class:`JudgeSession` owns backends, store, event loop, run options and budget,
  and runs batches of :class:`Job` objects for any kind of judgment.
- :class:`LLMJudge` is the pairwise judge on a session: a template and a verdict
  parser. :class:`CallableJudge` adapts a plain Python function.
- :func:`resolve_judge` turns a ``--judge`` spec into either.
- :class:`PointwiseJudge` scores one answer against a rubric on a session;
  :class:`CallablePointwiseJudge` adapts a function; :func:`resolve_pointwise_judge`
  turns a ``--judge`` spec into either.

The session, the model judges and the resolver load lazily (PEP 562), so that
``import fairjudge`` and Python-callable judges never pay for the runner, the store
or an HTTP client. The backends themselves live in :mod:`fairjudge.backends`.
"""

from typing import TYPE_CHECKING, Any

from fairjudge.judges._callable import CallableJudge, load_python_judge, reply_from_value
from fairjudge.judges._pairwise import BatchJudge, PairwiseRequest, ProgressCallback

if TYPE_CHECKING:
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
    from fairjudge.judges._registry import (
        DEFAULT_JUDGE,
        JUDGE_FORMS,
        BackendOptions,
        resolve_judge,
    )
    from fairjudge.judges._session import Job, JudgeSession, ReplyParser

_LAZY = {
    "DEFAULT_JUDGE": "fairjudge.judges._registry",
    "JUDGE_FORMS": "fairjudge.judges._registry",
    "BackendOptions": "fairjudge.judges._registry",
    "resolve_judge": "fairjudge.judges._registry",
    "LLMJudge": "fairjudge.judges._llm",
    "read_verdict": "fairjudge.judges._llm",
    "Job": "fairjudge.judges._session",
    "JudgeSession": "fairjudge.judges._session",
    "ReplyParser": "fairjudge.judges._session",
    "SCORE_MODES": "fairjudge.judges._pointwise",
    "AnswerScores": "fairjudge.judges._pointwise",
    "BatchPointwiseJudge": "fairjudge.judges._pointwise",
    "CallablePointwiseJudge": "fairjudge.judges._pointwise",
    "PointwiseJudge": "fairjudge.judges._pointwise",
    "ScoreCall": "fairjudge.judges._pointwise",
    "ScoreContext": "fairjudge.judges._pointwise",
    "ScoreMode": "fairjudge.judges._pointwise",
    "ScoreRequest": "fairjudge.judges._pointwise",
    "read_scores": "fairjudge.judges._pointwise",
    "resolve_pointwise_judge": "fairjudge.judges._pointwise",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairjudge.judges' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


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
    "LLMJudge",
    "PairwiseRequest",
    "PointwiseJudge",
    "ProgressCallback",
    "ReplyParser",
    "ScoreCall",
    "ScoreContext",
    "ScoreMode",
    "ScoreRequest",
    "load_python_judge",
    "read_scores",
    "read_verdict",
    "reply_from_value",
    "resolve_judge",
    "resolve_pointwise_judge",
]
