"""Which batch API serves a backend: OpenAI's, Anthropic's, or none.

``openai/`` uses the Files and Batch endpoints at the base URL, ``anthropic/``
Message Batches; anything else has none, a :class:`~fairjudge.ConfigError` naming
``batch_api`` before any call.
"""

from __future__ import annotations

from fairjudge._call import Backend
from fairjudge._errors import ConfigError
from fairjudge.backends._batch_api import BatchAPI

__all__ = ["batch_client", "check_batchable"]


def check_batchable(backend: Backend) -> None:
    """Refuse a backend no batch API serves.

    Raises:
        ConfigError: ``backend`` is neither an OpenAI nor an Anthropic backend.
    """
    from fairjudge.backends._anthropic import AnthropicBackend
    from fairjudge.backends._openai import OpenAIBackend

    if not isinstance(backend, OpenAIBackend | AnthropicBackend):
        raise ConfigError(
            f"batch_api needs a judge with a batch API (openai/<model> or "
            f"anthropic/<model>); {backend.name}/{backend.model} has none: drop batch_api "
            "for it",
            params="batch_api",
        )


def batch_client(backend: Backend) -> BatchAPI:
    """The batch API client for ``backend``'s route.

    Raises:
        ConfigError: As :func:`check_batchable`.
    """
    from fairjudge.backends._anthropic import AnthropicBackend
    from fairjudge.backends._anthropic_batch import AnthropicBatch
    from fairjudge.backends._openai import OpenAIBackend
    from fairjudge.backends._openai_batch import OpenAIBatch

    check_batchable(backend)
    if isinstance(backend, OpenAIBackend):
        return OpenAIBatch(backend)
    assert isinstance(backend, AnthropicBackend)
    return AnthropicBatch(backend)
