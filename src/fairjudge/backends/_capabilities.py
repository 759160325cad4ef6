"""What each judge family accepts, and what a refused request teaches about the rest.

Reasoning models and extended thinking refuse parameters older models took, so
requests are built from a table and a judge in it never pays for a refused request; a
model the table does not know is learned from its first refusal (:func:`lesson`).
Pure code: no I/O.

The table is the OpenAI API's, so what it *refuses* before any call (an effort, a
Responses-only model, a cap above the ceiling, Structured Outputs, a temperature) is
refused only at the API itself (:func:`at_api`): a compatible server (LocalAI,
LiteLLM, vLLM) may serve another model under an OpenAI name, and there its own reply
stands. What it *adapts* (``max_completion_tokens``, no temperature 0 or logprobs, the
system text in the user turn) is sent at any server, since every compatible server
takes the adapted request, while a proxy forwarding to the real model (LiteLLM,
OpenRouter) would refuse the unadapted one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from fairjudge._errors import ConfigError

__all__ = [
    "EFFORTS",
    "EMPTY_AT_CAP_LIMIT",
    "MIN_THINKING_BUDGET",
    "Capabilities",
    "Change",
    "Knowledge",
    "apply_changes",
    "at_api",
    "capabilities_for",
    "check_output_ceiling",
    "checked_effort",
    "fold_system",
    "lesson",
    "reasoning_room",
]

Family = Literal["openai-chat", "openai-reasoning", "anthropic", "openai-unknown"]

EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
"""Every ``reasoning_effort`` of Chat Completions; each model takes some (see the table).

OpenAI's reference (https://platform.openai.com/docs/api-reference/chat/create,
quoted in https://learn.microsoft.com/en-us/javascript/api/@azure/ai-projects/reasoningeffort):
gpt-5.1 takes none, low, medium and high and defaults to none; the models before it
default to medium and take no none; xhigh came with gpt-5.2. Each model's list is
:attr:`Capabilities.efforts`."""

MIN_THINKING_BUDGET = 1024
"""Anthropic's smallest ``thinking.budget_tokens``."""

EMPTY_AT_CAP_LIMIT = 3
"""Replies empty at their cap (all reasoning, no answer) after which a run sends no more.

Each such reply is paid for and says nothing; the same cap would end the same way
for the next calls, so after a few the run stops and says what to raise."""

_REASONING_ROOM = {
    "none": 256, "minimal": 1024, "low": 4096, "medium": 8192, "high": 24576, "xhigh": 32768,
}  # fmt: skip
"""Output tokens left for hidden reasoning, per effort (``None``: the model's default).

A judge's prompt is short and its answer one label or a few lines, so these are
generous for the task; ``high`` is OpenAI's advice of about 25,000 tokens for
reasoning and output. ``none`` does no reasoning: its room is a margin. The cap costs
nothing unless used (tokens are billed as spent), but a budget counts it.
"""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What one model family accepts in a request.

    Attributes:
        family: ``openai-chat`` (gpt-4o*, gpt-4.1*, and any OpenAI-compatible server's
            model), ``openai-reasoning`` (gpt-5*, o1*, o3*, o4*), ``anthropic``.
        known: The family is in the table (an ``openai/`` model name the table does
            not know is sent as a chat model and learned from its refusals).
        cap_param: The name of the output cap: ``max_tokens`` or
            ``max_completion_tokens``.
        temperature: Whether a temperature other than 1 is accepted.
        top_p: Whether ``top_p`` other than 1 is accepted.
        logprobs: Whether ``logprobs``/``top_logprobs`` are accepted.
        efforts: The ``reasoning_effort`` values accepted (empty: none).
        default_effort: The effort the server uses when none is sent (``None``: the
            model does not reason, or the table does not know it).
        system: Whether a ``system`` message is accepted (o1-mini and o1-preview
            take none: :func:`fold_system`).
        chat: Whether Chat Completions serves the model (o1-pro, o3-pro, the gpt-5
            pro and codex models are served by the Responses API only).
        thinking: Whether Anthropic extended thinking is available.
        budget: Whether that thinking takes a ``budget_tokens`` (Claude Opus 4.7 and
            later think adaptively only: the API refuses ``thinking.type`` enabled).
        both_samplers: Whether ``temperature`` and ``top_p`` may be sent together
            (Claude Opus 4.1 and later, Sonnet 4.5 and later and Haiku 4.5 take one).
        cache_min_tokens: Anthropic's shortest cacheable prefix for the model.
        max_output: The model's ceiling on ``max_tokens`` (``max_completion_tokens``
            for an OpenAI reasoning model; thinking or reasoning included), when the
            table knows it: a larger cap is refused before any call
            (:func:`check_output_ceiling`).
        structured: Whether ``response_format`` of type ``json_schema`` (OpenAI's
            Structured Outputs) is accepted (:meth:`check_structured`).
    """

    family: Family
    known: bool
    cap_param: str = "max_tokens"
    temperature: bool = True
    top_p: bool = True
    logprobs: bool = True
    efforts: tuple[str, ...] = ()
    default_effort: str | None = None
    system: bool = True
    chat: bool = True
    thinking: bool = False
    budget: bool = True
    both_samplers: bool = True
    cache_min_tokens: int = 1024
    max_output: int | None = None
    structured: bool = True

    @property
    def stochastic(self) -> bool:
        """The provider fixes the temperature at 1: every reply is a sample."""
        return not self.temperature

    def check_structured(self, model: str) -> None:
        """Refuse (:class:`ConfigError`) structured output for a model the API refuses it.

        OpenAI answers 400 "Invalid parameter: 'response_format' of type 'json_schema'
        is not supported with this model." on every call, so it is refused here,
        before any.
        """
        if self.structured:
            return
        raise ConfigError(
            f"openai/{model} has no structured outputs (response_format json_schema): the "
            "API refuses them for o1-mini, o1-preview, gpt-4o-2024-05-13, gpt-4-turbo, "
            "gpt-4 and gpt-3.5-turbo; drop structured (replies are validated all the "
            "same) or pick a model that has them, e.g. gpt-4o-mini, gpt-4.1 or o3-mini",
            params="structured",
        )

    def refuse_temperature(self, spec: str, temperature: float, why: str = "the provider") -> None:
        """Refuse (:class:`ConfigError`) a temperature other than 1 for ``spec``.

        ``spec`` samples at 1 only: the API refuses any other on every call.
        """
        at_none = ", or give reasoning_effort none (the one effort that takes a temperature)"
        raise ConfigError(
            f"{spec} samples at temperature 1 only ({why} fixes it), so it takes no "
            f"temperature; got temperature={temperature:g}: drop it"
            f"{at_none if 'none' in self.efforts else ''}",
            params="temperature",
        )


_OPENAI_REASONING = re.compile(r"^(gpt-5(?!-chat)|o[134](?![0-9]))")
_OPENAI_CHAT = re.compile(r"^(gpt-4o|gpt-4\.1|gpt-4|gpt-3\.5|chatgpt-4o|gpt-5-chat)")
# Served by the Responses API only: Chat Completions answers 404 (o1-pro:
# https://github.com/chatboxai/chatbox/issues/2173; o3-pro:
# https://github.com/HeyPuter/puter/issues/1303; gpt-5-pro:
# https://github.com/egoist/chatwise-releases/issues/1122; gpt-5.2-pro:
# https://github.com/run-llama/llama_index/pull/20361; gpt-5-codex:
# https://github.com/alvinunreal/tmuxai/issues/82).
_RESPONSES_ONLY = re.compile(r"^(o[13]-pro|gpt-5(\.\d+)?-(pro|codex)|codex-)")
# reasoning_effort by model, first match wins: (pattern, efforts, default). The gpt-5.x
# chat models (gpt-5.1-chat-latest, gpt-5.2-chat-latest: reasoning models, unlike
# gpt-5-chat-latest) take medium only: 400 "Unsupported value: 'reasoning_effort' does
# not support 'high' with this model. Supported values are: 'medium'."
# (https://github.com/egoist/chatwise-releases/issues/1257 for gpt-5.2-chat-latest,
# https://github.com/anomalyco/models.dev/pull/2351 for both). gpt-5.1
# takes none..high, default none; gpt-5.2 and later add xhigh (the reference above;
# https://github.com/BerriAI/litellm/pull/17875); gpt-5, -mini, -nano take minimal..high
# at medium; the o-series low..high at medium; o1-mini and o1-preview predate the
# parameter (https://github.com/dzhng/deep-research/pull/89).
_EFFORT_ROWS: tuple[tuple[re.Pattern[str], tuple[str, ...], str | None], ...] = (
    (re.compile(r"^gpt-5\.\d+-chat"), ("medium",), "medium"),
    (re.compile(r"^gpt-5\.1"), ("none", "low", "medium", "high"), "none"),
    (re.compile(r"^gpt-5\.[2-9]"), ("none", "low", "medium", "high", "xhigh"), "none"),
    (re.compile(r"^gpt-5"), ("minimal", "low", "medium", "high"), "medium"),
    (re.compile(r"^o1-(mini|preview)"), (), None),
    (re.compile(r"^o"), ("low", "medium", "high"), "medium"),
)
# Sampling at none: the models that take none (gpt-5.1, gpt-5.2 and later) take
# temperature, top_p and logprobs at none only, their default: "The following
# parameters are only supported when using GPT-5.2 with reasoning effort set to none:
# temperature, top_p, logprobs. Requests to GPT-5.2 or GPT-5.1 with any other reasoning
# effort setting, or to older GPT-5 models (e.g., gpt-5, gpt-5-mini, gpt-5-nano) that
# include these fields will raise an error." (OpenAI's guide,
# https://platform.openai.com/docs/guides/latest-model#gpt-5-2-parameter-compatibility;
# the same words for GPT-5.1 and GPT-5.4; applied so by
# https://github.com/vercel/ai/pull/10940 and https://github.com/BerriAI/litellm/pull/17011).
# At low and above the API answers 400 "Unsupported parameter: 'temperature' is not
# supported with this model.", param temperature, code null (gpt-5.2:
# https://github.com/OpenHands/software-agent-sdk/issues/1837).
# o1-mini and o1-preview refuse a system message: 400 "Unsupported value:
# 'messages[0].role' does not support 'system' with this model." (every other chat
# model takes one: https://github.com/microsoft/agent-framework/issues/1077).
_NO_SYSTEM = re.compile(r"^o1-(mini|preview)")
# Anthropic: the models before extended thinking (Claude 3.7 Sonnet and every later
# model have it), and the cache minimum by model.
_NO_THINKING = re.compile(r"claude-(instant|2|3-(?!7))")
# Claude Opus 4.7 and later take no temperature: 400 "`temperature` is deprecated for
# this model." at any value sent (https://github.com/UKGovernmentBEIS/inspect_ai/issues/3721,
# https://github.com/HKUDS/nanobot/pull/3418 for 4.7;
# https://github.com/The-PR-Agent/pr-agent/issues/2456 for 4.8), and think adaptively
# only: 400 "\"thinking.type.enabled\" is not supported for this model. Use
# \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior."
# (https://github.com/earendil-works/pi/issues/3297). Opus and Sonnet 4.6 still take both.
_ADAPTIVE_ONLY = re.compile(r"claude-opus-4-[7-9]")
# One sampler: 400 "`temperature` and `top_p` cannot both be specified for this model.
# Please use only one." (Opus 4.1: https://github.com/open-webui/pipelines/pull/546;
# Sonnet 4.5: https://github.com/langfuse/langfuse/issues/9882; Haiku 4.5:
# https://github.com/aws-samples/bedrock-access-gateway/issues/191; Opus 4.5:
# https://github.com/SalesforceAIResearch/MCP-Universe/issues/49; Sonnet 4.6:
# https://github.com/Vali-98/ChatterUI/issues/564).
_ONE_SAMPLER = re.compile(r"claude-(opus-4-[1-9]|sonnet-4-[5-9]|haiku-4-[5-9])")
_CACHE_MIN = (
    (re.compile(r"claude-(opus-4-[56]|haiku-4)"), 4096),
    (re.compile(r"claude-(sonnet-4-6|3-5-haiku|3-haiku|haiku-3)"), 2048),
)
# The most output tokens (max_tokens, thinking included) a model takes, first match
# wins; above it the API answers 400 "max_tokens: N > 64000, which is the maximum
# allowed number of output tokens for claude-sonnet-4-5-20250929"
# (https://github.com/BerriAI/litellm/pull/15715). Opus 4 and 4.1: 32000, Sonnet 4 and
# 4.5, Haiku 4.5, Opus 4.5, 3.7 Sonnet: 64000
# (https://docs.claude.com/en/docs/about-claude/models/overview); Opus and Sonnet 4.6
# and later: 128000 (https://platform.claude.com/docs/en/models/opus-4-6/overview).
_MAX_OUTPUT = (
    (re.compile(r"claude-(opus|sonnet)-4-[6-9]"), 128_000),
    (re.compile(r"claude-opus-4-5"), 64_000),
    (re.compile(r"claude-opus-4"), 32_000),
    (re.compile(r"claude-(sonnet-4|haiku-4-5|3-7-sonnet)"), 64_000),
)


# OpenAI's most output tokens (max_tokens, or max_completion_tokens with reasoning
# included) per model, first match wins; above it the API answers 400 "max_tokens is
# too large: 50000. This model supports at most 16384 completion tokens, whereas you
# provided 50000." (https://github.com/ChatGPTNextWeb/NextChat/issues/3195,
# https://github.com/enoch3712/ExtractThinker/issues/346 for gpt-4o). OpenAI's model
# pages (https://platform.openai.com/docs/models), as quoted in
# https://github.com/qgrail/obsidian-ai-assistant/issues/40: gpt-4o and gpt-4o-mini
# 16,384; o1, o3, o3-mini and o4-mini 100,000 (https://findllms.com/llms/o3-mini);
# gpt-4.1, -mini, -nano 32,768 (https://contextwindows.dev/models/gpt-4-1); gpt-5,
# -mini, -nano, 5.1, 5.2 128,000 (https://community.openai.com/t/1344734: 400k context
# = 272k in + 128k out); o1-mini 65,536 and o1-preview 32,768
# (https://www.openai-hk.com/docs/en/openai/o1.html); gpt-4o-2024-05-13, gpt-4-turbo
# and the gpt-4 previews, gpt-3.5-turbo 4,096 ("Returns a maximum of 4,096 output
# tokens", https://robertfilter.net/blog/machine-learning/gpt-4-turbo-128k-token-context.html).
# The gpt-5 chat models (gpt-5-chat-latest, 5.1, 5.2) 16,384, with a 128,000 context
# (https://modelstream.ai/docs/api/createChatCompletion?model=gpt-5-chat-latest,
# https://docs.oxen.ai/inference-api/reference/models/gpt-5-2-chat-latest.md);
# gpt-4.5-preview 16,384 (https://github.com/RooCodeInc/Roo-Code/pull/1250); gpt-4
# 8,192, its whole context: above it the API answers 400 "This model's maximum context
# length is 8192 tokens. However, you requested 8554 tokens (7554 in the messages, 1000
# in the completion). ..." (https://github.com/mckaywrigley/chatbot-ui/issues/820).
# Not here, so not checked: gpt-4-32k, gpt-3.5-turbo-16k.
_OPENAI_MAX_OUTPUT = (
    (re.compile(r"^gpt-5(\.\d+)?-chat"), 16_384),
    (re.compile(r"^gpt-5"), 128_000),
    (re.compile(r"^o1-mini"), 65_536),
    (re.compile(r"^o1-preview"), 32_768),
    (re.compile(r"^o[134](?![0-9])"), 100_000),
    (re.compile(r"^gpt-4\.1"), 32_768),
    (re.compile(r"^gpt-4\.5"), 16_384),
    (re.compile(r"^gpt-4(-0314|-0613)?$"), 8_192),
    (re.compile(r"^gpt-4o-2024-05-13"), 4_096),
    (re.compile(r"^(gpt-4o(?!-64k)|chatgpt-4o)"), 16_384),
    (re.compile(r"^gpt-4-(turbo|\d{4}-preview|vision)"), 4_096),
    (re.compile(r"^gpt-3\.5-turbo(?!-16k|-instruct)"), 4_096),
)
# Structured Outputs (response_format json_schema) came with gpt-4o-mini and
# gpt-4o-2024-08-06; older models take JSON mode at most
# (https://reference.langchain.com/javascript/langchain-openai/ChatOpenAI/withStructuredOutput,
# https://github.com/crewAIInc/crewAI/pull/6357), and o1-mini and o1-preview none
# (https://github.com/dzhng/deep-research/issues/96,
# https://community.openai.com/t/1025430/4).
_NO_STRUCTURED = re.compile(
    r"^(o1-(mini|preview)|gpt-4o-2024-05-13|gpt-4-(turbo|\d{4}|32k|vision)|gpt-4$|gpt-3\.5)"
)


def capabilities_for(backend: str, model: str, effort: str | None = None) -> Capabilities:
    """The table's row for ``model`` on ``backend`` (``"openai"`` or ``"anthropic"``).

    Names match by prefix after any ``org/`` part (``openai/gpt-5-mini`` is
    ``gpt-5-mini``), so dated snapshots (``o3-2025-04-16``) match their family.
    ``effort`` is the ``reasoning_effort`` asked for (``None``: the model's default):
    a model that takes ``none`` (gpt-5.1 and later) takes temperature, top_p and
    logprobs at ``none`` only, its default (the table's "sampling at none").
    """
    name = model.rsplit("/", 1)[-1].lower()
    if backend == "anthropic":
        minimum = next((n for pattern, n in _CACHE_MIN if pattern.search(name)), 1024)
        ceiling = next((n for pattern, n in _MAX_OUTPUT if pattern.search(name)), None)
        thinking = not _NO_THINKING.search(name)
        adaptive = bool(_ADAPTIVE_ONLY.search(name))
        return Capabilities(
            "anthropic",
            True,
            temperature=not adaptive,
            thinking=thinking,
            budget=not adaptive,
            both_samplers=not _ONE_SAMPLER.search(name),
            cache_min_tokens=minimum,
            max_output=ceiling,
        )
    if _RESPONSES_ONLY.match(name):
        return Capabilities("openai-reasoning", True, chat=False)
    ceiling = next((n for pattern, n in _OPENAI_MAX_OUTPUT if pattern.match(name)), None)
    structured = not _NO_STRUCTURED.match(name)
    if _OPENAI_REASONING.match(name):
        efforts, default = next((e, d) for p, e, d in _EFFORT_ROWS if p.match(name))
        samples = "none" in efforts and (effort or default) == "none"  # sampling at none
        return Capabilities(
            "openai-reasoning", True, cap_param="max_completion_tokens",
            temperature=samples, top_p=samples, logprobs=samples, efforts=efforts,
            default_effort=default, system=not _NO_SYSTEM.match(name),
            max_output=ceiling, structured=structured,
        )  # fmt: skip
    if _OPENAI_CHAT.match(name):
        return Capabilities("openai-chat", True, max_output=ceiling, structured=structured)
    return Capabilities("openai-unknown", False)


_TAKEN_BY = {
    "none": "gpt-5.1 or later",
    "minimal": "gpt-5, gpt-5-mini or gpt-5-nano",
    "xhigh": "gpt-5.2 or later",
}


def at_api(base_url: str | None, host: str = "api.openai.com") -> bool:
    """Whether ``base_url`` is the vendor's API itself at ``host`` (``None``: it is).

    The table holds there only (OpenAI's by default; Anthropic's at api.anthropic.com).
    A host under ``host`` is the vendor's too: OpenAI's data-residency hosts are
    ``eu.api.openai.com``, ``us.``, ``au.``, ``jp.`` and so on (its "Data residency"
    guide). The fully qualified spelling with its trailing dot (``api.openai.com.``) is
    the same host. Another domain that only contains ``host`` is not.
    """
    from urllib.parse import urlsplit

    if base_url is None:
        return True
    name = (urlsplit(base_url.strip()).hostname or "").rstrip(".")
    return name == host or name.endswith("." + host)


def checked_effort(
    model: str, caps: Capabilities, effort: str | None, *, vendor: bool = True
) -> str | None:
    """``effort``, refused (:class:`ConfigError`) when the model is known not to take it.

    Also refuses, before any call, a model Chat Completions does not serve. Both are
    the OpenAI API's rules: at another server (``vendor=False``) only a value no
    model takes is refused, and the server answers for the rest.
    """
    if not caps.chat and vendor:
        raise ConfigError(
            f"openai/{model} is served by OpenAI's Responses API only (v1/responses): "
            "its chat-completions endpoint, which fairjudge calls, answers 404; pick a "
            "model that Chat Completions serves (e.g. o3, gpt-5)"
        )
    if effort is None:
        return None
    if effort not in EFFORTS:
        raise ConfigError(
            f"reasoning_effort must be one of {', '.join(EFFORTS)}; got {effort!r}",
            params="reasoning_effort",
        )
    if caps.known and vendor and effort not in caps.efforts:
        if len(caps.efforts) == 1:  # the gpt-5.x chat models: medium only
            takes = f"it takes {caps.efforts[0]} only; give that or drop it"
        elif caps.efforts:  # a reasoning model: the fix is another effort
            takes = f"it takes {', '.join(caps.efforts)}; give one of those"
            if effort in _TAKEN_BY:
                takes += f", or {_TAKEN_BY[effort]} for {effort}"
        elif caps.family == "openai-reasoning":
            takes = "o1-mini and o1-preview take no reasoning_effort at all; drop it"
        else:
            takes = "it is not a reasoning model (gpt-5*, o1*, o3*, o4*); drop it or pick one"
        raise ConfigError(
            f"openai/{model} takes no reasoning_effort {effort!r}: {takes}",
            params="reasoning_effort",
        )
    return effort


def check_output_ceiling(model: str, caps: Capabilities, max_tokens: int | None) -> None:
    """Refuse (:class:`ConfigError`) a ``max_tokens`` above an OpenAI model's ceiling.

    The API refuses such a cap (a 400) on every call; a model the table has no
    ceiling for is not checked (its refusal stands as the call's error).
    """
    ceiling = caps.max_output
    if ceiling is None or max_tokens is None or max_tokens <= ceiling:
        return
    reasoning = ", reasoning included" if caps.family == "openai-reasoning" else ""
    raise ConfigError(
        f"max_tokens {max_tokens} is above what the API takes: openai/{model} writes at "
        f"most {ceiling} output tokens{reasoning}; give at most {ceiling}",
        params="max_tokens",
    )


def fold_system(messages: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``messages`` without system messages: their text opens the first user turn.

    For a model that refuses the ``system`` role (o1-mini, o1-preview), as OpenAI's
    reasoning guide advised for them: the instructions go in the user message.
    """
    system = "\n\n".join(content for role, content in messages if role == "system")
    rest = [(role, content) for role, content in messages if role != "system"]
    if not system:
        return rest
    first = next((i for i, (role, _) in enumerate(rest) if role == "user"), None)
    if first is None:
        return [("user", system), *rest]
    rest[first] = ("user", f"{system}\n\n{rest[first][1]}")
    return rest


def reasoning_room(effort: str | None, default: str | None = "medium") -> int:
    """Output tokens to leave for hidden reasoning at ``effort`` (``None``: ``default``)."""
    return _REASONING_ROOM[effort or default or "medium"]


@dataclass(frozen=True, slots=True)
class Change:
    """One thing a refusal taught: send ``param`` as ``to``, or (``to=None``) drop it.

    Attributes:
        param: The parameter the server refused.
        to: Its new name, or ``None`` to stop sending it.
        status: The refusal's HTTP status.
        reason: The server's message, for the line the run prints.
        add: Tokens added to a renamed cap: the room a reasoning model needs to
            reason before it answers (a ``max_tokens`` refused for
            ``max_completion_tokens`` says the model reasons).
        also: Parameters dropped with ``param``, as one refusal: ``top_logprobs``
            goes with ``logprobs`` (the server names one, or neither).
    """

    param: str
    to: str | None
    status: int
    reason: str
    add: int = 0
    also: tuple[str, ...] = ()

    @property
    def params(self) -> tuple[str, ...]:
        """Every parameter this change renames or drops."""
        return (self.param, *self.also)

    def describe(self) -> str:
        """One line for the run's log: what changed, and why."""
        what = f"sending {self.to} instead" if self.to else "no longer sending it"
        named = repr(self.param)
        if self.also:
            named = " and ".join(repr(p) for p in self.params)
            what = "no longer sending them"
        if self.add:
            what += f", with {self.add} more tokens of room to reason"
        return f"refused {named} (HTTP {self.status}: {self.reason}); {what}"

    def short(self) -> str:
        """What the run sends now, in a few words: the run summary's line."""
        if self.to is None:
            return f"stopped sending {' and '.join(self.params)}"
        return f"sent {self.to} instead of {self.param}"


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one copy of a backend has learned about a model the table does not know.

    Several copies of one backend learn the same model (one per Ray worker); each
    copy's knowledge is handed to the others, so a refusal one paid is not paid again
    by the rest. Knowledge only grows: merging keeps every change and every parameter
    seen taken, so :attr:`size` tells a newer copy from an older one without comparing.

    Attributes:
        changes: What refusals taught, one :class:`Change` per refused parameter.
        accepted: The parameters of a call the server answered: a call asking only
            these needs no probe (it will not be refused for a parameter).
    """

    changes: tuple[Change, ...] = ()
    accepted: frozenset[str] = frozenset()

    @property
    def size(self) -> int:
        """How much it holds; grows with every change or parameter learned."""
        return len(self.changes) + len(self.accepted)

    def merged(self, other: Knowledge) -> Knowledge:
        """Both together (a parameter's first change kept: copies learn the same one)."""
        known = {change.param for change in self.changes}
        new = tuple(change for change in other.changes if change.param not in known)
        return Knowledge(self.changes + new, self.accepted | other.accepted)

    def sent(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` as a copy that knows this sends them (:func:`apply_changes`)."""
        return apply_changes(params, {p: change for change in self.changes for p in change.params})


# Parameters whose refusal can be worked around without changing what is asked:
# the cap under its other name; sampling parameters at the provider's default
# (temperature and top_p 1); logprobs (labels only). A refused reasoning_effort is
# not learned: the user asked for it, so the refusal stands as an error.
_DROPPABLE = {"temperature", "top_p", "logprobs", "top_logprobs"}
_LOGPROB_PAIR = ("logprobs", "top_logprobs")


def lesson(
    status: int, error: Mapping[str, Any] | None, message: str, sent: Mapping[str, Any]
) -> list[Change]:
    """What a refused request teaches, or ``[]`` when it teaches nothing.

    Args:
        status: The HTTP status (400 and 422 teach; 403 only about logprobs, which
            o4-mini refuses with a 403 and no ``param``).
        error: The error object (``{"message", "type", "param", "code"}``), if any.
        message: The server's message (redacted).
        sent: The body that was refused.

    Returns:
        The changes to make: a rename of the cap to ``max_completion_tokens`` when the
        server names it, or the refused parameter dropped; both logprob fields go
        together, as one change. A message that mentions logprobs without a
        ``param`` (vLLM, o4-mini's 403, other servers) drops them too.
    """
    if status not in (400, 403, 422):
        return []
    error = error or {}
    param = error.get("param")
    code = error.get("code")
    text = message.lower()
    if not isinstance(param, str) or param not in sent:
        if "logprob" in text and any(k in sent for k in _LOGPROB_PAIR):
            param = "logprobs"
        else:
            return []
    if status == 403 and param not in _LOGPROB_PAIR:
        return []  # a 403 about anything else is the key's or the account's
    reason = message if len(message) <= 160 else message[:157] + "..."
    if param == "max_tokens" and (
        "max_completion_tokens" in text or code == "unsupported_parameter"
    ):
        return [Change("max_tokens", "max_completion_tokens", status, reason)]
    if param in _LOGPROB_PAIR:
        first, *rest = (p for p in _LOGPROB_PAIR if p in sent)
        return [Change(first, None, status, reason, also=tuple(rest))]
    if param in _DROPPABLE:
        return [Change(param, None, status, reason)]
    return []


def apply_changes(params: Mapping[str, Any], changes: Mapping[str, Change]) -> dict[str, Any]:
    """``params`` with the learned ``changes`` (by parameter) applied, order kept."""
    if not changes:
        return dict(params)
    by_param = {p: change for change in changes.values() for p in change.params}
    out: dict[str, Any] = {}
    for name, value in params.items():
        change = by_param.get(name)
        if change is None:
            out[name] = value
        elif change.to is not None:
            out[change.to] = value + change.add if change.add else value
    return out
