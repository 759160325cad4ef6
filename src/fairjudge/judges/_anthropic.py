"""The Anthropic backend: Claude models through the official ``anthropic`` SDK.

Labels only: the Messages API reports no logprobs, so every :class:`Completion` has
``top_logprobs=None`` and ``soft`` resolution counts each label as probability 1.
The SDK is an optional extra, imported when a backend is built.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from fairjudge._errors import BackendError, ConfigError, MissingExtraError, ServerError
from fairjudge.judges._base import CallSpec, Completion
from fairjudge.judges._openai import pooled_http_client, translate_sdk_error

__all__ = ["AnthropicBackend"]


def _import_sdk() -> ModuleType:
    try:
        return importlib.import_module("anthropic")
    except ImportError as exc:
        raise MissingExtraError("the anthropic backend", "anthropic", "anthropic") from exc


class AnthropicBackend:
    """A Claude judge through the Messages API.

    Args:
        model: The model name, e.g. ``"claude-3-5-haiku-latest"``.
        base_url: Another Messages-compatible server; ``None`` means Anthropic's API
            (or ``$ANTHROPIC_BASE_URL``). Part of the cache key.
        api_key_env: The environment variable holding the key, read once, here.
        timeout: Seconds to wait for a reply (and for a free connection).
        temperature: Sampling temperature; ``None`` sends none, for models that
            reject sampling parameters.
        max_tokens: Reply length cap; defaults to 8 tokens for verdict-only templates
            and 1024 otherwise (the API requires one).
        extra_params: More request fields, sent as given and part of the cache key.
        max_connections: Size of the HTTP connection pool; also :attr:`max_concurrency`.

    Raises:
        MissingExtraError: The ``anthropic`` package is not installed.
        ConfigError: The key's environment variable is not set.
    """

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "ANTHROPIC_API_KEY",
        timeout: float = 60.0,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        extra_params: Mapping[str, Any] | None = None,
        max_connections: int = 512,
    ) -> None:
        self._sdk = _import_sdk()
        base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        self._model = model
        self._base_url = base_url.rstrip("/") if base_url else None
        self._api_key_env = api_key_env
        self._timeout = timeout
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._extra_params = dict(extra_params or {})
        self._max_connections = max_connections
        key = os.environ.get(api_key_env) or None
        if key is None:
            raise ConfigError(f"the anthropic backend needs an API key: set ${api_key_env}")
        self._client: Any = self._sdk.AsyncAnthropic(
            api_key=key,
            base_url=self._base_url,
            timeout=timeout,
            max_retries=0,
            http_client=pooled_http_client(self._sdk, max_connections, timeout),
        )

    def __repr__(self) -> str:
        return f"AnthropicBackend(model={self._model!r}, base_url={self._base_url!r})"

    @property
    def model(self) -> str:
        """The model name sent to the API."""
        return self._model

    @property
    def base_url(self) -> str | None:
        """The server's base URL, or ``None`` for Anthropic's API."""
        return self._base_url

    @property
    def max_concurrency(self) -> int | None:
        """The connection pool size."""
        return self._max_connections

    def default_params(self, *, verdict_only: bool) -> dict[str, Any]:
        """Sampling parameters for a call; part of the cache key. No logprobs: the API has none."""
        params: dict[str, Any] = {"max_tokens": self._max_tokens or (8 if verdict_only else 1024)}
        if self._temperature is not None:
            params["temperature"] = self._temperature
        params.update(self._extra_params)
        return params

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
        except self._sdk.AnthropicError as exc:
            raise self._translate(exc) from exc
        except ValueError as exc:  # the SDK lets json.JSONDecodeError through on a bad body
            raise ServerError(f"anthropic backend: {self._where}: reply is not valid JSON") from exc
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

    @property
    def _where(self) -> str:
        return f"model {self._model!r} at {self._base_url or 'api.anthropic.com'}"

    def _translate(self, exc: Exception) -> BackendError:
        return translate_sdk_error(
            exc,
            self._sdk,
            backend="anthropic",
            where=self._where,
            timeout=self._timeout,
            secrets=[self._client.api_key],
            key_env=self._api_key_env,
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._client.close()
