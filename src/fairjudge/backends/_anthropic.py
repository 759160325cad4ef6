"""The Anthropic backend: Claude models through the official ``anthropic`` SDK.

Labels only: the Messages API reports no logprobs, so every :class:`Completion` has
``top_logprobs=None`` and ``soft`` resolution counts each label as probability 1.
The SDK is an optional extra, imported when a backend is built. Configuration and
error translation are shared with the OpenAI backend in
:class:`~fairjudge.backends._http_base.HTTPBackend`.
"""

from __future__ import annotations

import importlib
import time
from types import ModuleType
from typing import Unpack

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import ConfigError, MissingExtraError, ServerError
from fairjudge.backends._http_base import HTTPBackend, HTTPOptions

__all__ = ["AnthropicBackend"]


def _import_sdk() -> ModuleType:
    try:
        return importlib.import_module("anthropic")
    except ImportError as exc:
        raise MissingExtraError("the anthropic backend", "anthropic", "anthropic") from exc


class AnthropicBackend(HTTPBackend):
    """A Claude judge through the Messages API.

    Args:
        model: The model name, e.g. ``"claude-3-5-haiku-latest"``.
        **options: The :class:`~fairjudge.backends._http_base.HTTPOptions`:
            ``base_url`` (another Messages-compatible server; default
            ``$ANTHROPIC_BASE_URL``, else Anthropic's API), ``api_key_env`` (default
            ``ANTHROPIC_API_KEY``, read once, here), ``timeout`` (60 s),
            ``temperature`` (0; ``None`` sends none, for models that reject sampling
            parameters), ``max_tokens`` (8 for label-only calls, else 1024: the API
            requires one), ``extra_params``, ``max_connections`` (512).

    Raises:
        MissingExtraError: The ``anthropic`` package is not installed.
        ConfigError: The key's environment variable is not set.
    """

    name = "anthropic"
    default_host = "api.anthropic.com"
    base_url_env = "ANTHROPIC_BASE_URL"
    default_key_env = "ANTHROPIC_API_KEY"

    def __init__(self, model: str, **options: Unpack[HTTPOptions]) -> None:
        super().__init__(model, sdk=_import_sdk(), **options)
        key = self._read_key()
        if key is None:
            raise ConfigError(f"the anthropic backend needs an API key: set ${self._api_key_env}")
        self._client = self._sdk_client(self._loaded_sdk.AsyncAnthropic, key)

    async def complete(self, spec: CallSpec) -> Completion:
        """Send one message and return the reply's text.

        System messages are joined into the ``system`` parameter; the rest keep their
        order. Raises the same errors as :meth:`OpenAIBackend.complete`.
        """
        system = "\n\n".join(content for role, content in spec.messages if role == "system")
        messages = [{"role": r, "content": c} for r, c in spec.messages if r != "system"]
        # Everything but the required max_tokens travels in the body as given: SDK
        # releases differ in which sampling arguments `create` names (recent ones name
        # no temperature at all), and the body is what the API reads either way.
        extra = {k: v for k, v in spec.params.items() if k != "max_tokens"}
        if system:
            extra["system"] = system
        start = time.perf_counter()
        try:
            reply = await self._client.messages.create(
                model=spec.model,
                messages=messages,
                max_tokens=spec.params.get("max_tokens", 1024),
                extra_body=extra,
            )
        except self._loaded_sdk.AnthropicError as exc:
            raise self._translate(exc) from exc
        except ValueError as exc:  # the SDK lets json.JSONDecodeError through on a bad body
            raise self._not_json() from exc
        latency = time.perf_counter() - start
        try:
            texts = [b.text for b in reply.content if getattr(b, "type", None) == "text"]
        except (AttributeError, TypeError) as exc:
            raise ServerError(f"anthropic backend: {self._where}: reply has no content") from exc
        if not texts:
            raise ServerError(f"anthropic backend: {self._where}: reply has no text block")
        usage = getattr(reply, "usage", None)
        return Completion(
            text="".join(texts),
            top_logprobs=None,
            input_tokens=getattr(usage, "input_tokens", None),
            output_tokens=getattr(usage, "output_tokens", None),
            latency_s=latency,
            model=getattr(reply, "model", None),
        )
