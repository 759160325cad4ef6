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

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface

if TYPE_CHECKING:
    from fairjudge.backends._anthropic import AnthropicBackend
    from fairjudge.backends._batch_api import BatchAPI, BatchState, UploadingBatchAPI
    from fairjudge.backends._batch_clients import batch_client, check_batchable
    from fairjudge.backends._capabilities import capabilities_for
    from fairjudge.backends._http_base import check_base_url, is_loopback_host
    from fairjudge.backends._local import DEFAULT_N_CTX, LocalBackend
    from fairjudge.backends._openai import OpenAIBackend

__all__ = [
    "DEFAULT_N_CTX",
    "AnthropicBackend",
    "BatchAPI",
    "BatchState",
    "LocalBackend",
    "OpenAIBackend",
    "UploadingBatchAPI",
    "batch_client",
    "capabilities_for",
    "check_base_url",
    "check_batchable",
    "is_loopback_host",
]

_LAZY = {
    "AnthropicBackend": "fairjudge.backends._anthropic",
    "check_base_url": "fairjudge.backends._http_base",
    "is_loopback_host": "fairjudge.backends._http_base",
    "BatchAPI": "fairjudge.backends._batch_api",
    "BatchState": "fairjudge.backends._batch_api",
    "UploadingBatchAPI": "fairjudge.backends._batch_api",
    "batch_client": "fairjudge.backends._batch_clients",
    "check_batchable": "fairjudge.backends._batch_clients",
    "capabilities_for": "fairjudge.backends._capabilities",
    "DEFAULT_N_CTX": "fairjudge.backends._local",
    "LocalBackend": "fairjudge.backends._local",
    "OpenAIBackend": "fairjudge.backends._openai",
}

package_surface(globals(), _LAZY)
