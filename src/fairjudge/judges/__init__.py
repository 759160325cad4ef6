"""What a judgment is: the judge session, and the judges that run on it.

- :class:`JudgeSession` owns backends, store, event loop, run options and budget,
  and runs batches of :class:`Job` objects for any kind of judgment.
- :class:`LLMJudge` is the pairwise judge on a session: a template and a verdict
  parser. :class:`CallableJudge` runs your own Python judge (sync, ``async def``, or
  an object with a ``judge``/``ajudge`` method) on the same engine, cached when it
  declares a name and version (:func:`fairjudge.judge_function`).
- :class:`ReplayJudge` answers from recorded verdicts (``replay:FILE``), calling no one.
- :func:`resolve_judge` turns a ``--judge`` spec into any of them.
- :func:`judge_name` names any judge for results and reports: the one rule the
  notebook functions and the command line share.
- :class:`PointwiseJudge` scores one answer against a rubric on a session;
  :class:`CallablePointwiseJudge` adapts a function; :func:`resolve_pointwise_judge`
  turns a ``--judge`` spec into either. :class:`PointwiseJury` puts several of them
  on one panel that scores every answer against one rubric.

The juries, the pointwise judges and the resolver load lazily (PEP 562); the runner,
the store and an HTTP client load only when a session opens, so ``import fairjudge``
and Python-callable judges never pay for them. The backends themselves live in
:mod:`fairjudge.backends`.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface
from fairjudge.judges._callable import CallableJudge
from fairjudge.judges._own_judge import (
    TransientJudgeError,
    interrupt_note,
    judge_function,
    judge_name,
)
from fairjudge.judges._pairwise import BatchJudge, PairwiseRequest, ProgressCallback

if TYPE_CHECKING:
    from fairjudge.judges._jury import (
        Jury,
        JuryMember,
        MemberSpec,
        panel_reply,
        weighted_majority,
    )
    from fairjudge.judges._jury_file import JuryFile, judges_beside, load_jury_file, recorded_jury
    from fairjudge.judges._member import MemberUsage
    from fairjudge.judges._pairwise import LLMJudge, read_verdict
    from fairjudge.judges._pointwise import (
        BatchPointwiseJudge,
        CallablePointwiseJudge,
        PointwiseJudge,
        PointwiseJury,
        ScoreMode,
        ScoreRequest,
        as_rubric,
        resolve_pointwise_judge,
    )
    from fairjudge.judges._registry import (
        DEFAULT_JUDGE,
        BackendOptions,
        calls_no_model,
        fixes_temperature,
        judge_spec,
        refuse_one_at_a_time,
        resolve_judge,
    )
    from fairjudge.judges._replay import ReplayJudge
    from fairjudge.judges._session import Job, JudgeSession, ReplyParser

__all__ = [
    "DEFAULT_JUDGE",
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
    "ProgressCallback",
    "ReplayJudge",
    "ReplyParser",
    "ScoreMode",
    "ScoreRequest",
    "TransientJudgeError",
    "as_rubric",
    "calls_no_model",
    "fixes_temperature",
    "interrupt_note",
    "judge_function",
    "judge_name",
    "judge_spec",
    "judges_beside",
    "load_jury_file",
    "panel_reply",
    "read_verdict",
    "recorded_jury",
    "refuse_one_at_a_time",
    "resolve_judge",
    "resolve_pointwise_judge",
    "weighted_majority",
]

_LAZY = {
    "Jury": "fairjudge.judges._jury",
    "JuryMember": "fairjudge.judges._jury",
    "MemberSpec": "fairjudge.judges._jury",
    "panel_reply": "fairjudge.judges._jury",
    "weighted_majority": "fairjudge.judges._jury",
    "JuryFile": "fairjudge.judges._jury_file",
    "judges_beside": "fairjudge.judges._jury_file",
    "load_jury_file": "fairjudge.judges._jury_file",
    "recorded_jury": "fairjudge.judges._jury_file",
    "MemberUsage": "fairjudge.judges._member",
    "LLMJudge": "fairjudge.judges._pairwise",
    "read_verdict": "fairjudge.judges._pairwise",
    "BatchPointwiseJudge": "fairjudge.judges._pointwise",
    "CallablePointwiseJudge": "fairjudge.judges._pointwise",
    "PointwiseJudge": "fairjudge.judges._pointwise",
    "PointwiseJury": "fairjudge.judges._pointwise",
    "ScoreMode": "fairjudge.judges._pointwise",
    "ScoreRequest": "fairjudge.judges._pointwise",
    "as_rubric": "fairjudge.judges._pointwise",
    "resolve_pointwise_judge": "fairjudge.judges._pointwise",
    "BackendOptions": "fairjudge.judges._registry",
    "DEFAULT_JUDGE": "fairjudge.judges._registry",
    "calls_no_model": "fairjudge.judges._registry",
    "fixes_temperature": "fairjudge.judges._registry",
    "judge_spec": "fairjudge.judges._registry",
    "refuse_one_at_a_time": "fairjudge.judges._registry",
    "resolve_judge": "fairjudge.judges._registry",
    "ReplayJudge": "fairjudge.judges._replay",
    "Job": "fairjudge.judges._session",
    "JudgeSession": "fairjudge.judges._session",
    "ReplyParser": "fairjudge.judges._session",
}

package_surface(globals(), _LAZY)
