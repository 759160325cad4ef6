"""Backends that answer a :class:`~fairjudge._call.CallSpec` with a judge model.

- :class:`OpenAIBackend`: any OpenAI-compatible chat-completions server (OpenAI,
  vLLM, Ollama, llama.cpp, SGLang, ...).
- :class:`AnthropicBackend`: Claude through the Messages API (the ``anthropic`` extra).
- :class:`LocalBackend`: a GGUF model run in-process by llama.cpp (the ``local``
  extra).

They know the call contract of :mod:`fairjudge._call` and nothing of judges, runs or
templates. Every one is exported lazily (PEP 562 ``__getattr__``), so importing this
package imports neither the vendor SDKs nor llama.cpp: only the backend asked for
pays for its own.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairjudge.backends._anthropic import AnthropicBackend
    from fairjudge.backends._local import LocalBackend
    from fairjudge.backends._openai import OpenAIBackend

__all__ = ["AnthropicBackend", "LocalBackend", "OpenAIBackend"]

_LAZY = {
    "AnthropicBackend": "fairjudge.backends._anthropic",
    "LocalBackend": "fairjudge.backends._local",
    "OpenAIBackend": "fairjudge.backends._openai",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fairjudge.backends' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once imported, later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
