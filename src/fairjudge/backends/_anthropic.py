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
from typing import Any, Unpack

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import ConfigError, MissingExtraError
from fairjudge.backends._anthropic_reply import completion_from_reply
from fairjudge.backends._http_base import REPLY_MAX_TOKENS, HTTPBackend, HTTPOptions

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

    def request_body(self, spec: CallSpec) -> dict[str, Any]:
        """The JSON body of the Messages request this backend sends for ``spec``.

        System messages are joined into the ``system`` parameter; the rest keep their
        order. Every parameter travels in the body as given (SDK releases differ in
        which sampling arguments ``create`` names, and the body is what the API reads
        either way); ``max_tokens`` is required by the API, so it is always there.
        The same body is a Message Batches request's ``params``.
        """
        system = "\n\n".join(content for role, content in spec.messages if role == "system")
        body: dict[str, Any] = {
            "model": spec.model,
            "max_tokens": spec.params.get("max_tokens", REPLY_MAX_TOKENS),
            "messages": [{"role": r, "content": c} for r, c in spec.messages if r != "system"],
        }
        if system:
            body["system"] = system
        body.update((k, v) for k, v in spec.params.items() if k != "max_tokens")
        return body

    async def complete(self, spec: CallSpec) -> Completion:
        """Send one message and return the reply's text.

        Raises the same errors as :meth:`OpenAIBackend.complete`.
        """
        sdk = self._loaded_sdk
        start = time.perf_counter()
        try:
            # client.post (the SDK's way to call any endpoint) keeps its auth, the
            # anthropic-version header, timeouts and error classes, and sends exactly
            # request_body: one body for online calls and batch files.
            reply = await self._client.post(
                "/v1/messages", body=self.request_body(spec), cast_to=sdk.types.Message
            )
        except sdk.AnthropicError as exc:
            raise self._translate(exc) from exc
        except ValueError as exc:  # the SDK lets json.JSONDecodeError through on a bad body
            raise self._not_json() from exc
        latency = time.perf_counter() - start
        data = reply.to_dict() if hasattr(reply, "to_dict") else reply
        return completion_from_reply(data, latency, self._where)
