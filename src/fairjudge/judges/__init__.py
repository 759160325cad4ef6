"""What a judgment is: the judge session, and the judges that run on it.

- :class:`JudgeSession` owns backends, store, event loop, run options and budget,
  and runs batches of :class:`Job` objects for any kind of judgment.
- :class:`LLMJudge` is the pairwise judge on a session: a template and a verdict
  parser. :class:`CallableJudge` adapts a plain Python function.
- :func:`resolve_judge` turns a ``--judge`` spec into either.

The backends themselves live in :mod:`fairjudge.backends`.
"""

from fairjudge.judges._callable import CallableJudge, load_python_judge, reply_from_value
from fairjudge.judges._llm import LLMJudge, read_verdict
from fairjudge.judges._pairwise import BatchJudge, PairwiseRequest
from fairjudge.judges._registry import DEFAULT_JUDGE, JUDGE_FORMS, BackendOptions, resolve_judge
from fairjudge.judges._session import Job, JudgeSession, ProgressCallback, ReplyParser

__all__ = [
    "DEFAULT_JUDGE",
    "JUDGE_FORMS",
    "BackendOptions",
    "BatchJudge",
    "CallableJudge",
    "Job",
    "JudgeSession",
    "LLMJudge",
    "PairwiseRequest",
    "ProgressCallback",
    "ReplyParser",
    "load_python_judge",
    "read_verdict",
    "reply_from_value",
    "resolve_judge",
]
