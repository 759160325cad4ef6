"""Judge backends: Python callables, OpenAI-compatible HTTP, Anthropic, local GGUF."""

from fairjudge.judges._base import Backend, CallSpec, Completion, Message
from fairjudge.judges._callable import CallableJudge, load_python_judge, reply_from_value
from fairjudge.judges._llm import LLMJudge
from fairjudge.judges._pairwise import BatchJudge, PairwiseRequest, ProgressCallback
from fairjudge.judges._registry import DEFAULT_JUDGE, JUDGE_FORMS, resolve_judge

__all__ = [
    "DEFAULT_JUDGE",
    "JUDGE_FORMS",
    "Backend",
    "BatchJudge",
    "CallSpec",
    "CallableJudge",
    "Completion",
    "LLMJudge",
    "Message",
    "PairwiseRequest",
    "ProgressCallback",
    "load_python_judge",
    "reply_from_value",
    "resolve_judge",
]
