"""A faithful OpenAI Chat Completions emulator: refuses what the real API refuses.

The scripted judge (``_app.py``) accepts any request, which proves nothing about a
real provider. This emulator stands in front of it and behaves as OpenAI's
``POST /v1/chat/completions`` does for two kinds of model, chosen by the request's
``model`` as OpenAI chooses:

- **reasoning models** (``gpt-5*`` but ``gpt-5-chat*``, ``o1*``, ``o3*``, ``o4*``, and
  any name in ``reasoning_models``) refuse ``max_tokens``, any ``temperature`` or
  ``top_p`` but 1 (o1-mini and o3-mini refuse ``temperature`` at any value), and
  ``logprobs``/``top_logprobs``, each with the real 400 body
  (``{"error": {"message", "type": "invalid_request_error", "param", "code"}}``), one
  problem per reply, as the API reports them. The messages are the API's own, as
  quoted in many trackers, e.g. https://github.com/gabrii/Cursor-Azure-GPT-5/issues/33
  (``Unsupported value: 'temperature' does not support 0 with this model. Only the
  default (1) value is supported.``, ``code: "unsupported_value"``) and
  https://github.com/BeehiveInnovations/pal-mcp-server/issues/78. They spend hidden
  reasoning tokens (by ``reasoning_effort``, :data:`REASONING_TOKENS`) out of
  ``max_completion_tokens`` before any visible text: when the cap leaves no room for
  the answer, the reply is empty with ``finish_reason: "length"`` and the whole cap
  billed, as OpenAI's reasoning guide describes
  (https://platform.openai.com/docs/guides/reasoning). ``reasoning_effort`` takes, per
  model (:data:`EFFORTS`, OpenAI's reference for the parameter, quoted in
  https://learn.microsoft.com/en-us/javascript/api/@azure/ai-projects/reasoningeffort):
  gpt-5, -mini, -nano minimal..high (default medium); gpt-5.1 none..high (default
  none); gpt-5.2 and later none..xhigh (default none); the gpt-5.x chat models
  (gpt-5.1-chat-latest, gpt-5.2-chat-latest: reasoning models, unlike
  gpt-5-chat-latest) medium only (``Supported values are: 'medium'.``, as quoted in
  https://github.com/egoist/chatwise-releases/issues/1257); the o-series low..high;
  o1-mini and o1-preview none at all (``Unsupported parameter``). Another value gets
  ``Unsupported value: 'reasoning_effort' does not support 'minimal' with this model.
  Supported values are: 'none', 'low', 'medium', and 'high'.`` (as quoted in
  https://github.com/immersive-translate/immersive-translate/issues/3529). An explicit
  ``"reasoning_effort": null`` is a value too, refused by the models that take ``none``:
  ``Unsupported value: 'reasoning_effort' does not support null with this model.
  Supported values are: 'none', 'low', 'medium', and 'high'.`` (gpt-5.1, as quoted in
  https://github.com/livekit/agents/pull/3966).
- **gpt-5.1, gpt-5.2 and later** (the models that take ``none``) take
  ``temperature``, ``top_p`` and ``logprobs`` (any value) at ``reasoning_effort``
  ``none`` only, their default; at any other effort each of them, even at 1, gets 400
  ``Unsupported parameter: 'temperature' is not supported with this model.``,
  ``param`` the field, ``code`` null (OpenAI's guide: "The following parameters are
  only supported when using GPT-5.2 with reasoning effort set to none: temperature,
  top_p, logprobs. Requests to GPT-5.2 or GPT-5.1 with any other reasoning effort
  setting ... that include these fields will raise an error.",
  https://platform.openai.com/docs/guides/latest-model#gpt-5-2-parameter-compatibility;
  the body as quoted for gpt-5.2 in
  https://github.com/OpenHands/software-agent-sdk/issues/1837, the same words for
  ``top_p`` and the logprob fields).
- **o1-mini and o1-preview** refuse a ``system`` message: 400 ``Unsupported value:
  'messages[0].role' does not support 'system' with this model.``, ``param``
  ``messages[0].role``, ``code`` ``unsupported_value``
  (https://github.com/microsoft/agent-framework/issues/1077,
  https://github.com/janhq/jan/issues/4392).
- **o4-mini** refuses logprobs with a 403 and no ``param``: ``You are not allowed to
  request logprobs from this model`` (https://github.com/confident-ai/deepeval/pull/2184);
  the other reasoning models with a 400 ``unsupported_parameter``.
- **Responses-only models** (o1-pro, o3-pro, gpt-5-pro, gpt-5.x-pro, the codex
  models) are not served: 404, ``param: "model"``, ``code: null``; o1-pro's message
  is ``This is not a chat model and thus not supported in the v1/chat/completions
  endpoint. Did you mean to use v1/completions?``
  (https://github.com/chatboxai/chatbox/issues/2173), the others' ``This model is only
  supported in v1/responses and not in v1/chat/completions.``
  (https://github.com/egoist/chatwise-releases/issues/1122,
  https://github.com/alvinunreal/tmuxai/issues/82).
- **chat models** (everything else: ``gpt-4o*``, ``gpt-4.1*``) take ``max_tokens``,
  ``temperature`` and ``logprobs``, and refuse ``reasoning_effort`` (``Unsupported
  parameter: 'reasoning_effort' is not supported with this model.``).
- **Output ceilings** (:data:`MAX_OUTPUT`: gpt-4o, gpt-4o-mini, gpt-4.5-preview and
  the gpt-5 chat models 16384, gpt-4.1* 32768, o1, o3*, o4-mini 100000, o1-mini 65536,
  o1-preview 32768, the other gpt-5* 128000, gpt-4-turbo, gpt-4o-2024-05-13 and
  gpt-3.5-turbo 4096): a larger ``max_tokens`` or
  ``max_completion_tokens`` gets 400 ``max_tokens is too large: 50000. This model
  supports at most 16384 completion tokens, whereas you provided 50000.``, ``param``
  ``max_tokens``, ``code`` ``invalid_value``, whichever of the two was sent: the
  API's own words (https://github.com/ChatGPTNextWeb/NextChat/issues/3195, the body
  for gpt-3.5-turbo-1106, ``code`` null then;
  https://github.com/enoch3712/ExtractThinker/issues/346 for gpt-4o; an o4-mini
  reply to ``max_completion_tokens`` names ``max_tokens`` too, as in
  https://github.com/openai/codex/blob/main/codex-cli/tests/agent-max-tokens-error.test.ts).
- **gpt-4** has 8192 tokens of context for the prompt and the cap together: more
  gets 400 ``This model's maximum context length is 8192 tokens. However, you requested
  8554 tokens (7554 in the messages, 1000 in the completion). Please reduce the length
  of the messages or completion.``, ``param`` ``messages``, ``code``
  ``context_length_exceeded`` (https://github.com/mckaywrigley/chatbot-ui/issues/820).
- **No Structured Outputs** (o1-mini, o1-preview, gpt-4o-2024-05-13, gpt-4-turbo,
  gpt-4, gpt-3.5-turbo): ``response_format`` of type ``json_schema`` gets 400
  ``Invalid parameter: 'response_format' of type 'json_schema' is not supported with
  this model. Learn more about supported models at the Structured Outputs guide:
  https://platform.openai.com/docs/guides/structured-outputs``, ``param``
  ``response_format``, ``code`` null (https://github.com/dzhng/deep-research/issues/96
  for o1-mini, https://github.com/langchain-ai/langchain/issues/31490; the ``param``
  as in the ``json_object`` form, https://github.com/mrwadams/stride-gpt/issues/19).

Both report ``usage`` with ``completion_tokens_details.reasoning_tokens`` (reasoning
included in ``completion_tokens``) and ``prompt_tokens_details.cached_tokens``:
OpenAI caches prompt prefixes automatically from 1024 tokens on, in steps of 128
(https://platform.openai.com/docs/guides/prompt-caching), so a prompt whose first
1024+ tokens were seen before reports them cached. Tokens are the scripted judge's
(whitespace-separated words), counted over the messages in order.

What the judge replies (the verdict or score text), the faults, the auth and the
counters are the scripted judge's own: the emulator only checks the request first
and rewrites the usage, reasoning and cut-off of a successful reply. Its own
counters: ``refused`` (and ``refused:<param>``), ``empty_length``,
``reasoning_tokens`` and ``cached_tokens`` (sums), and ``early:<fault>`` for the
faults given before a request is checked (``early_faults``: a gateway that fails or
stalls before the model's rules are read, as an overloaded API does), which a test
can wait for from another thread (:meth:`OpenAIEmulator.wait_for`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from tests.server._app import ABORT, Reply, ScriptedJudge, error_reply
from tests.server._front import JudgeFront
from tests.server._http import JudgeServer, _Listener
from tests.server._script import Script

REASONING_TOKENS = {"none": 0, "minimal": 0, "low": 64, "medium": 256, "high": 1024, "xhigh": 2048}
"""Hidden reasoning tokens a reply spends, by ``reasoning_effort`` (default: the model's)."""

EFFORTS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    (re.compile(r"^gpt-5\.\d+-chat"), ("medium",), "medium"),
    (re.compile(r"^gpt-5\.1"), ("none", "low", "medium", "high"), "none"),
    (re.compile(r"^gpt-5\.[2-9]"), ("none", "low", "medium", "high", "xhigh"), "none"),
    (re.compile(r"^gpt-5"), ("minimal", "low", "medium", "high"), "medium"),
    (re.compile(r"^o"), ("low", "medium", "high"), "medium"),
)
"""``(model pattern, the efforts it takes, its default)``, first match wins."""
_NO_EFFORT_NO_SYSTEM = re.compile(r"^o1-(mini|preview)")
_RESPONSES_ONLY = re.compile(r"^(o[13]-pro|gpt-5(\.\d+)?-(pro|codex)|codex-)")
_LOGPROBS_403 = re.compile(r"^o4-mini")

_NO_TEMPERATURE = re.compile(r"^o[13]-mini")
"""Models that refuse ``temperature`` itself, at any value: ``Unsupported parameter:
'temperature' is not supported with this model.`` (o3-mini, as reported in
https://github.com/livekit/agents/issues/1470 and
https://github.com/ChatGPTNextWeb/NextChat/issues/6120)."""
MAX_OUTPUT: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"^gpt-5(\.\d+)?-chat"), 16384),
    (re.compile(r"^gpt-5"), 128000),
    (re.compile(r"^o1-mini"), 65536),
    (re.compile(r"^o1-preview"), 32768),
    (re.compile(r"^o[134](?![0-9])"), 100000),
    (re.compile(r"^gpt-4\.1"), 32768),
    (re.compile(r"^gpt-4\.5"), 16384),
    (re.compile(r"^gpt-4o-2024-05-13"), 4096),
    (re.compile(r"^(gpt-4o|chatgpt-4o)"), 16384),
    (re.compile(r"^gpt-4-(turbo|\d{4}-preview)"), 4096),
    (re.compile(r"^gpt-3\.5-turbo(?!-16k)"), 4096),
)
"""``(model pattern, the most output tokens it writes)``, first match wins."""
_WHOLE_CONTEXT = re.compile(r"^gpt-4(-0314|-0613)?$")
"""gpt-4: 8192 tokens of context, shared by the prompt and the cap (any cap above the
room left is refused with ``context_length_exceeded``)."""
GPT_4_CONTEXT = 8192
_NO_JSON_SCHEMA = re.compile(
    r"^(o1-(mini|preview)|gpt-4o-2024-05-13|gpt-4-(turbo|\d{4})|gpt-4$|gpt-3\.5)"
)
_O_SERIES_EFFORTS = ("low", "medium", "high")
CACHE_MIN = 1024
CACHE_STEP = 128
_REASONING = re.compile(r"^(gpt-5(?!-chat)|o[134](?![0-9]))")
_CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")


def _error(message: str, param: str | None, code: str | None, status: int = 400) -> Reply:
    body = {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }
    return status, json.dumps(body).encode(), ()


def _not_served(model: str) -> Reply:
    if model.startswith("o1-pro"):
        message = (
            "This is not a chat model and thus not supported in the v1/chat/completions "
            "endpoint. Did you mean to use v1/completions?"
        )
    else:
        message = "This model is only supported in v1/responses and not in v1/chat/completions."
    return _error(message, "model", None, 404)


def _effort_row(model: str) -> tuple[tuple[str, ...], str]:
    """The efforts a reasoning model takes, and its default (none for o1-mini)."""
    if _NO_EFFORT_NO_SYSTEM.match(model):
        return (), "medium"
    return next(
        ((e, d) for p, e, d in EFFORTS if p.match(model)), (("low", "medium", "high"), "medium")
    )


def _value_refusal(model: str, request: Mapping[str, Any]) -> Reply | None:
    """A ``json_schema`` response format or a cap the model does not take, if any."""
    shape = request.get("response_format")
    schema = isinstance(shape, Mapping) and shape.get("type") == "json_schema"
    if schema and _NO_JSON_SCHEMA.match(model):
        message = (
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
            "with this model. Learn more about supported models at the Structured "
            "Outputs guide: https://platform.openai.com/docs/guides/structured-outputs"
        )
        return _error(message, "response_format", None)
    ceiling = next((n for pattern, n in MAX_OUTPUT if pattern.match(model)), None)
    cap = request.get("max_completion_tokens", request.get("max_tokens"))
    if _WHOLE_CONTEXT.match(model) and isinstance(cap, int):
        prompt = len(OpenAIEmulator._prompt_words(request))
        if prompt + cap > GPT_4_CONTEXT:
            message = (
                f"This model's maximum context length is {GPT_4_CONTEXT} tokens. However, you "
                f"requested {prompt + cap} tokens ({prompt} in the messages, {cap} in the "
                "completion). Please reduce the length of the messages or completion."
            )
            return _error(message, "messages", "context_length_exceeded")
    if ceiling is not None and isinstance(cap, int) and cap > ceiling:
        message = (
            f"max_tokens is too large: {cap}. This model supports at most {ceiling} "
            f"completion tokens, whereas you provided {cap}."
        )
        return _error(message, "max_tokens", "invalid_value")
    return None


def _listed(allowed: tuple[str, ...]) -> str:
    """``'none', 'low', 'medium', and 'high'`` as the API lists them (one: ``'medium'``)."""
    listed = ", ".join(f"'{e}'" for e in allowed[:-1]) + f", and '{allowed[-1]}'"
    return listed.removeprefix(", and ")


def _unsupported_parameter(param: str, hint: str = "") -> Reply:
    return _error(
        f"Unsupported parameter: '{param}' is not supported with this model.{hint}",
        param,
        "unsupported_parameter",
    )


def _unsupported_value(param: str, value: Any) -> Reply:
    shown = json.dumps(value) if not isinstance(value, float) else f"{value:g}"
    return _error(
        f"Unsupported value: '{param}' does not support {shown} with this model. "
        "Only the default (1) value is supported.",
        param,
        "unsupported_value",
    )


class OpenAIEmulator(JudgeFront):
    """The scripted judge behind OpenAI's request rules (see the module docstring).

    Args:
        script: The scripted judge's script (what it replies, its faults).
        reasoning_models: More model names served as reasoning models, for a model
            fairjudge's table does not know (e.g. ``"acme-reasoner"``).
        aliases: Deployment names and the model each serves (``{"acme-o4":
            "o4-mini"}``), as an Azure deployment or a proxy's alias does: the request
            is checked as the served model's.
        early_faults: Faults for the first chat requests, in arrival order, given
            before the request is checked: ``"server_error"`` (OpenAI's 500 body),
            ``"hang"`` (no reply for the script's ``hang_s``, then checked and
            answered), ``"reset"`` (the connection reset, no reply), or ``None``
            (checked and answered as usual). Each is counted as ``early:<fault>``.
    """

    def __init__(
        self,
        script: Script | None = None,
        *,
        reasoning_models: Iterable[str] = (),
        aliases: Mapping[str, str] | None = None,
        early_faults: Iterable[str | None] = (),
    ) -> None:
        super().__init__(ScriptedJudge(script))
        self.reasoning_models = frozenset(reasoning_models)
        self.aliases = dict(aliases or {})
        self._seen_prefixes: set[str] = set()
        self._early = list(early_faults)
        unknown = {f for f in self._early if f not in (None, "server_error", "hang", "reset")}
        if unknown:
            raise ValueError(f"unknown early faults {sorted(unknown)}")
        self._counted = threading.Condition()  # notified at each count, for wait_for

    def _bump(self, name: str, n: int = 1) -> None:
        super()._bump(name, n)
        with self._counted:
            self._counted.notify_all()

    def wait_for(self, name: str, n: int = 1, timeout: float = 60.0) -> bool:
        """Block this (test) thread until the emulator's counter ``name`` reaches ``n``.

        Returns whether it did within ``timeout`` seconds (a guard against a test that
        would hang, not a timing: the test asserts the result).
        """
        with self._counted:
            return self._counted.wait_for(lambda: self.count(name) >= n, timeout)

    def _forget(self) -> None:
        """Forget the prompt cache."""
        self._seen_prefixes.clear()

    def is_reasoning(self, model: str) -> bool:
        """Whether ``model`` is served as a reasoning model."""
        model = self.aliases.get(model, model)
        return model in self.reasoning_models or bool(_REASONING.match(model))

    async def handle(
        self, method: str, path: str, headers: Mapping[bytes, bytes], body: bytes
    ) -> Reply:
        """Check a chat request as OpenAI does, then let the scripted judge answer it."""
        if method == "GET" and path.split("?")[0] == "/_stats":
            return 200, json.dumps(self.stats()).encode(), ()
        if method != "POST" or path.split("?")[0] not in _CHAT_PATHS:
            return await self.inner.handle(method, path, headers, body)
        with self._lock:
            early = self._early.pop(0) if self._early else None
        if early is not None:
            self._bump(f"early:{early}")
            if early == "server_error":
                message = (  # the API's own words, as users quote them
                    "The server had an error while processing your request. Sorry about "
                    "that! You can retry your request, or contact us through our help "
                    "center at help.openai.com if the error persists."
                )
                return error_reply(500, message, "server_error")
            if early == "reset":
                return ABORT
            await asyncio.sleep(self.script.hang_s)
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if isinstance(request, dict):
            refusal = self.refusal(request)
            if refusal is not None:
                error = json.loads(refusal[1])["error"]
                param = error["param"] or ("logprobs" if "logprobs" in error["message"] else "")
                self._bump("refused")
                self._bump(f"refused:{param}")
                return refusal
        status, payload, extra = await self.inner.handle(method, path, headers, body)
        if status != 200 or not isinstance(request, dict):
            return status, payload, extra
        try:
            reply = json.loads(payload)
        except ValueError:  # a scripted malformed-JSON fault: passed on as it is
            return status, payload, extra
        if isinstance(reply, dict) and reply.get("choices"):
            self._finish(request, reply)
        return status, json.dumps(reply).encode(), extra

    def refusal(self, request: Mapping[str, Any]) -> Reply | None:
        """The 4xx the real API gives this request, or ``None`` when it takes it."""
        asked = str(request.get("model", ""))
        model = self.aliases.get(asked, asked)
        effort = request.get("reasoning_effort")
        if _RESPONSES_ONLY.match(model):
            return _not_served(model)
        if not self.is_reasoning(model):
            if effort is not None:
                return _unsupported_parameter("reasoning_effort")
            return _value_refusal(model, request)
        if _NO_EFFORT_NO_SYSTEM.match(model):
            for i, message in enumerate(request.get("messages") or ()):
                if isinstance(message, Mapping) and message.get("role") == "system":
                    where = f"messages[{i}].role"
                    return _error(
                        f"Unsupported value: '{where}' does not support 'system' with this model.",
                        where,
                        "unsupported_value",
                    )
        if "max_tokens" in request:
            return _unsupported_parameter("max_tokens", " Use 'max_completion_tokens' instead.")
        if "temperature" in request and _NO_TEMPERATURE.match(model):
            return _unsupported_parameter("temperature")  # even at 1
        allowed, default = _effort_row(model)
        if "none" in allowed and "reasoning_effort" in request and effort is None:
            return _error(  # null is not none (livekit/agents#3966)
                "Unsupported value: 'reasoning_effort' does not support null with this model. "
                f"Supported values are: {_listed(allowed)}.",
                "reasoning_effort",
                "unsupported_value",
            )
        if "none" in allowed:  # gpt-5.1 and later: sampling at none only, any field else
            if (effort or default) == "none":
                return self._effort_refusal(model, effort, allowed) or _value_refusal(
                    model, request
                )
            for name in ("temperature", "top_p", "logprobs", "top_logprobs"):
                if name in request:  # the API's words, code null (module docstring)
                    message = f"Unsupported parameter: '{name}' is not supported with this model."
                    return _error(message, name, None)
        for name in ("temperature", "top_p"):
            value = request.get(name)
            if value is not None and value != 1:
                return _unsupported_value(name, value)
        for name in ("logprobs", "top_logprobs"):
            if request.get(name) not in (None, False):
                if _LOGPROBS_403.match(model):
                    message = "You are not allowed to request logprobs from this model"
                    return _error(message, None, None, 403)
                return _unsupported_parameter(name)
        return self._effort_refusal(model, effort, allowed) or _value_refusal(model, request)

    @staticmethod
    def _effort_refusal(model: str, effort: Any, allowed: tuple[str, ...]) -> Reply | None:
        """The refusal of a ``reasoning_effort`` the reasoning ``model`` does not take."""
        if effort is not None and not allowed:
            return _unsupported_parameter("reasoning_effort")
        if effort is not None and effort not in allowed:
            shown = f"'{effort}'" if isinstance(effort, str) else json.dumps(effort)
            return _error(
                f"Unsupported value: 'reasoning_effort' does not support {shown} "
                f"with this model. Supported values are: {_listed(allowed)}.",
                "reasoning_effort",
                "unsupported_value",
            )
        return None

    def _finish(self, request: Mapping[str, Any], reply: dict[str, Any]) -> None:
        """Rewrite a successful reply's usage, reasoning and cut-off as OpenAI's would be."""
        usage = reply.setdefault("usage", {})
        visible = int(usage.get("completion_tokens", 0))
        prompt = self._prompt_words(request)
        cached = self._cached(prompt)
        reasoning = 0
        asked = str(request.get("model", ""))
        if self.is_reasoning(asked):
            default = _effort_row(self.aliases.get(asked, asked))[1]
            reasoning = REASONING_TOKENS[str(request.get("reasoning_effort") or default)]
            cap = request.get("max_completion_tokens")
            if isinstance(cap, int) and reasoning + visible > cap:
                # The reasoning ate the cap: no visible text, the whole cap billed.
                choice = reply["choices"][0]
                choice["message"]["content"] = ""
                choice["finish_reason"] = "length"
                reasoning, visible = min(reasoning, cap), max(cap - reasoning, 0)
                self._bump("empty_length")
        usage["completion_tokens"] = reasoning + visible
        usage["total_tokens"] = int(usage.get("prompt_tokens", 0)) + reasoning + visible
        usage["completion_tokens_details"] = {
            "reasoning_tokens": reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        }
        usage["prompt_tokens_details"] = {"cached_tokens": cached, "audio_tokens": 0}
        self._bump("reasoning_tokens", reasoning)
        self._bump("cached_tokens", cached)

    @staticmethod
    def _prompt_words(request: Mapping[str, Any]) -> list[str]:
        words: list[str] = []
        for message in request.get("messages") or ():
            content = message.get("content") if isinstance(message, Mapping) else None
            if isinstance(content, list):
                content = "\n".join(
                    str(p.get("text", "")) for p in content if isinstance(p, Mapping)
                )
            words.extend(str(content or "").split())
        return words

    def _cached(self, words: list[str]) -> int:
        """Tokens of the longest prefix seen before (1024 and up, in steps of 128)."""
        if len(words) < CACHE_MIN:
            return 0
        lengths = range(CACHE_MIN, len(words) + 1, CACHE_STEP)
        keys = [hashlib.sha256(" ".join(words[:n]).encode()).hexdigest() for n in lengths]
        with self._lock:
            cached = max(
                (n for n, k in zip(lengths, keys, strict=True) if k in self._seen_prefixes),
                default=0,
            )
            self._seen_prefixes.update(keys)
        return cached


def as_the_api(server: EmulatorServer, monkeypatch: Any, vendor: str = "openai") -> EmulatorServer:
    """``server``, taken by fairjudge's ``vendor`` backend for that vendor's API itself.

    The capability table's refusals apply only there (``OpenAIBackend.at_vendor``,
    ``AnthropicBackend.at_vendor``): for the test, the backend's API host is the
    emulator's, so a backend at its URL is at the vendor, in this process (a
    ``fairjudge`` subprocess is not patched).
    """
    host = urlsplit(server.base_url).hostname
    backend = {"openai": "_openai.OpenAIBackend", "anthropic": "_anthropic.AnthropicBackend"}
    monkeypatch.setattr(f"fairjudge.backends.{backend[vendor]}.default_host", host)
    return server


class EmulatorServer(JudgeServer):
    """An emulator (OpenAI's or Anthropic's) on a real socket, in a background thread.

    The same transport and controls as :class:`~tests.server.JudgeServer`:
    ``configure`` changes the scripted judge's script; ``stats``/``count`` read the
    scripted judge's counters and the emulator's own.
    """

    def __init__(self, emulator: Any, *, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host=host, port=port)
        self.emulator = emulator
        self.app = emulator.inner
        self._listener = _Listener(emulator)

    def stats(self) -> dict[str, int]:
        """The scripted judge's counters and the emulator's own."""
        return dict(self.emulator.stats())

    def count(self, name: str) -> int:
        """One counter; 0 when nothing was counted under that name."""
        return int(self.emulator.stats().get(name, 0))

    def reset(self) -> None:
        """Zero every counter and forget the emulator's prompt cache."""
        self.emulator.reset()
