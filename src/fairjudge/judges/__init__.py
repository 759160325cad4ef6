"""Judge backends: Python callables, OpenAI-compatible HTTP, Anthropic, local GGUF.

The HTTP and local backends are exported lazily (PEP 562 ``__getattr__``), so that
``import fairjudge`` does not pay for importing the openai SDK or llama.cpp.
"""

from typing import TYPE_CHECKING, Any

from fairjudge.judges._base import Backend, CallSpec, Completion, Message
from fairjudge.judges._callable import CallableJudge, load_python_judge, reply_from_value
from fairjudge.judges._llm import LLMJudge
from fairjudge.judges._pairwise import BatchJudge, PairwiseRequest, ProgressCallback
from fairjudge.judges._registry import DEFAULT_JUDGE, JUDGE_FORMS, resolve_judge

if TYPE_CHECKING:
    from fairjudge.judges._anthropic import AnthropicBackend
    from fairjudge.judges._local import LocalBackend
    from fairjudge.judges._openai import OpenAIBackend
    from fairjudge.judges._redact import redact

_LAZY = {
    "AnthropicBackend": "fairjudge.judges._anthropic",
    "LocalBackend": "fairjudge.judges._local",
    "OpenAIBackend": "fairjudge.judges._openai",
    "redact": "fairjudge.judges._redact",
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
    "AnthropicBackend",
    "Backend",
    "BatchJudge",
    "CallSpec",
    "CallableJudge",
    "Completion",
    "LLMJudge",
    "LocalBackend",
    "Message",
    "OpenAIBackend",
    "PairwiseRequest",
    "ProgressCallback",
    "load_python_judge",
    "redact",
    "reply_from_value",
    "resolve_judge",
]
