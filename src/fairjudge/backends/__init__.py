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

from fairjudge._lazy import lazy_attributes, module_dir, publish

if TYPE_CHECKING:
    from fairjudge.backends._anthropic import AnthropicBackend
    from fairjudge.backends._base_url import check_base_url as check_base_url
    from fairjudge.backends._base_url import is_loopback_host as is_loopback_host
    from fairjudge.backends._batch_api import BatchAPI
    from fairjudge.backends._batch_api import BatchState as BatchState
    from fairjudge.backends._batch_api import UploadingBatchAPI as UploadingBatchAPI
    from fairjudge.backends._batch_clients import batch_client as batch_client
    from fairjudge.backends._batch_clients import check_batchable as check_batchable
    from fairjudge.backends._capabilities import capabilities_for as capabilities_for
    from fairjudge.backends._local import DEFAULT_N_CTX as DEFAULT_N_CTX
    from fairjudge.backends._local import LocalBackend
    from fairjudge.backends._openai import OpenAIBackend

__all__ = [
    "AnthropicBackend",
    "BatchAPI",
    "LocalBackend",
    "OpenAIBackend",
]

# Where each lazy name lives, for __getattr__; the TYPE_CHECKING imports above name the
# same for the type checker (tests/test_lazy.py keeps the two lists equal).
_LAZY = {
    "AnthropicBackend": "fairjudge.backends._anthropic",
    "check_base_url": "fairjudge.backends._base_url",
    "is_loopback_host": "fairjudge.backends._base_url",
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
__getattr__ = lazy_attributes(__name__, _LAZY)


__dir__ = module_dir(globals(), __all__)

publish(globals())  # each public name reports this namespace (see fairjudge._lazy.publish)
