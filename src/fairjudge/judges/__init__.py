"""Judge backends: Python callables, OpenAI-compatible HTTP, Anthropic, local GGUF."""

from fairjudge.judges._base import Backend, CallSpec, Completion, Message
from fairjudge.judges._callable import CallableJudge, load_python_judge, reply_from_value
from fairjudge.judges._pairwise import BatchJudge, PairwiseRequest, ProgressCallback

__all__ = [
    "Backend",
    "BatchJudge",
    "CallSpec",
    "CallableJudge",
    "Completion",
    "Message",
    "PairwiseRequest",
    "ProgressCallback",
    "load_python_judge",
    "reply_from_value",
]
