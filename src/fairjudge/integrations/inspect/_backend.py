"""A fairjudge backend whose calls an Inspect AI model answers.

:class:`InspectBackend` implements fairjudge's :class:`~fairjudge._call.Backend`
protocol over an Inspect :class:`~inspect_ai.model.Model`, so any provider Inspect
speaks to (its own API clients, its ``mockllm`` mock, a provider registered with
``@modelapi``) can be fairjudge's judge:

- inside ``inspect eval``, the scorers of :mod:`fairjudge.integrations.inspect` call
  :meth:`InspectBackend.complete` on Inspect's own event loop, so each judge call is
  an Inspect model call: in the sample's transcript, under Inspect's retries,
  concurrency limits and ``cache``;
- outside it, ``LLMJudge(InspectBackend("provider/model"))`` is a fairjudge judge like
  any other (``evaluate_pairs``, ``fairjudge.compare``), with fairjudge's store as its
  cache and audit log. Its calls then run on the judge session's event loop thread.

Inspect retries a failing call itself (its ``max_retries`` and ``timeout``), so what
still fails here has had its retries: it is raised as
:class:`~fairjudge.RequestRejected`, a call that fails for good while the run goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from pydantic import ValidationError

from fairjudge._call import CallSpec, Completion, Message
from fairjudge._errors import ConfigError, RequestRejected
from fairjudge._redact import redact

__all__ = ["InspectBackend", "completion_of", "generate_config", "judge_model"]

BACKEND_NAME = "inspect"
"""The backend kind in every :class:`~fairjudge._call.CallSpec` this backend answers."""


def judge_model(model: str | Model | None, role: str | None) -> Model:
    """The Inspect model that judges, by Inspect's precedence for graders.

    An explicit ``model`` wins; otherwise the model bound to ``role`` (``eval(...,
    model_roles={"grader": ...})`` or ``inspect eval --model-role grader=...``); otherwise
    the model being evaluated. This is the order Inspect's own model-graded scorers
    follow, so a fairjudge scorer drops into a task where they were.
    """
    if isinstance(model, Model):
        return model
    if model is not None:
        return get_model(model)
    return get_model(role=role) if role is not None else get_model()


def generate_config(params: Mapping[str, Any]) -> GenerateConfig:
    """Generation settings as Inspect takes them.

    Raises:
        ConfigError: A field ``GenerateConfig`` does not have, or a value it refuses.
    """
    try:
        return GenerateConfig(**params)
    except (ValidationError, TypeError) as exc:
        raise ConfigError(
            f"params: Inspect's GenerateConfig refused {sorted(params)}: {exc}",
            params="params",
        ) from exc


def _message(message: Message) -> ChatMessage:
    role, content = message
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content)
    return ChatMessageUser(content=content)


def _top_logprobs(output: ModelOutput) -> dict[str, float] | None:
    """The first generated token's alternatives, as fairjudge's verdict reader takes them."""
    if not output.choices or output.choices[0].logprobs is None:
        return None
    content = output.choices[0].logprobs.content
    if not content or not content[0].top_logprobs:
        return None
    return {top.token: top.logprob for top in content[0].top_logprobs}


def completion_of(output: ModelOutput) -> Completion:
    """An Inspect model output as a fairjudge :class:`~fairjudge._call.Completion`.

    Inspect counts cached and cache-written prompt tokens apart from ``input_tokens``;
    fairjudge's ``input_tokens`` is the whole prompt, so they are added back in.
    """
    usage = output.usage
    if usage is None:
        return Completion(
            text=output.completion, top_logprobs=_top_logprobs(output),
            latency_s=output.time or 0.0, model=output.model or None,
        )  # fmt: skip
    read = usage.input_tokens_cache_read or 0
    written = usage.input_tokens_cache_write or 0
    return Completion(
        text=output.completion,
        top_logprobs=_top_logprobs(output),
        input_tokens=usage.input_tokens + read + written,
        output_tokens=usage.output_tokens,
        latency_s=output.time or 0.0,
        model=output.model or None,
        reasoning_tokens=usage.reasoning_tokens,
        cached_input_tokens=usage.input_tokens_cache_read,
        cache_write_tokens=usage.input_tokens_cache_write,
    )


class InspectBackend:
    """A fairjudge :class:`~fairjudge._call.Backend` that asks an Inspect model.

    Args:
        model: An Inspect model, or its name (``"openai/gpt-4o-mini"``,
            ``"mockllm/model"``); ``None`` takes the model bound to ``role``, or the
            model being evaluated (see :func:`judge_model`).
        role: The Inspect model role to look up when ``model`` is ``None``.
        params: Generation settings for every call, as Inspect's ``GenerateConfig``
            fields (``temperature``, ``max_tokens``, ``logprobs``, ...); part of
            each call's cache key. Left empty, the model's own configuration decides.

    Raises:
        ConfigError: ``params`` holds a field ``GenerateConfig`` does not have, or a
            value it refuses.

    Example:
        >>> from fairjudge.judges import LLMJudge  # doctest: +SKIP
        >>> judge = LLMJudge(InspectBackend("anthropic/claude-sonnet-4-5"))  # doctest: +SKIP
    """

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        role: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self._params = dict(params or {})
        generate_config(self._params)  # refuse a bad setting before the first call
        self.inspect_model = judge_model(model, role)

    @property
    def name(self) -> str:
        """Backend kind, as in :attr:`CallSpec.backend`: ``"inspect"``."""
        return BACKEND_NAME

    @property
    def model(self) -> str:
        """The Inspect model's full name, ``provider/model``."""
        return str(self.inspect_model)

    @property
    def base_url(self) -> None:
        """``None``: the Inspect model's provider decides where calls go."""
        return None

    @property
    def max_concurrency(self) -> None:
        """``None``: Inspect's own connection limits bound the calls in flight."""
        return None

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """The generation settings given at construction (the same for every call)."""
        return dict(self._params)

    async def complete(self, spec: CallSpec) -> Completion:
        """Ask the Inspect model for one call's reply.

        Raises:
            RequestRejected: The model failed after Inspect's own retries, or refused
                the prompt (a content filter); the message names the model.
        """
        messages = [_message(m) for m in spec.messages]
        try:
            output = await self.inspect_model.generate(
                messages, config=generate_config(spec.params)
            )
        except ConfigError:
            raise
        except Exception as exc:  # a provider's error, after Inspect's retries
            detail = redact(f"{type(exc).__name__}: {exc}")
            raise RequestRejected(f"inspect model {self.model} failed: {detail}") from exc
        if output.error is not None and not output.completion:
            raise RequestRejected(f"inspect model {self.model} refused: {redact(output.error)}")
        return completion_of(output)

    async def aclose(self) -> None:
        """Nothing to release: Inspect owns its models' clients."""
