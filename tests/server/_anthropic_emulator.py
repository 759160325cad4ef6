"""A faithful Anthropic Messages emulator: refuses what the real API refuses.

It stands in front of the scripted judge (``_app.py``), which decides what the judge
says, and behaves as ``POST /v1/messages`` does (https://docs.anthropic.com/en/api/messages):

- **Headers.** The key comes as ``x-api-key`` (the documented header) or as
  ``Authorization: Bearer`` (what the ``anthropic`` SDK 2.x sends); none gives 401
  ``authentication_error`` ``x-api-key header is required``, a wrong one ``invalid
  x-api-key``. ``anthropic-version`` is required (400 ``anthropic-version: header
  is required``, the API's own text, as in
  https://github.com/PipedreamHQ/pipedream/issues/9697).
- **Errors** have the real shape ``{"type": "error", "error": {"type":
  "invalid_request_error", "message": ...}}``; ``model``, ``max_tokens`` and
  ``messages`` are required (``max_tokens: Field required``).
- **Output ceilings.** ``max_tokens`` (thinking included) above the model's most
  output tokens gets 400 ``max_tokens: 100000 > 64000, which is the maximum allowed
  number of output tokens for claude-sonnet-4-5-20250929`` (the API's text, quoted in
  https://github.com/BerriAI/litellm/pull/15715 and
  https://github.com/Natively-AI-assistant/natively-cluely-ai-assistant/issues/54);
  the ceilings (:data:`MAX_OUTPUT`) are those of
  https://docs.claude.com/en/docs/about-claude/models/overview: Opus 4 and 4.1 32000;
  Sonnet 4 and 4.5, Haiku 4.5, Opus 4.5 and 3.7 Sonnet 64000; Opus and Sonnet 4.6
  128000 (https://platform.claude.com/docs/en/models/opus-4-6/overview). A model not
  listed has no ceiling here.
- **Extended thinking** (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking):
  ``thinking: {"type": "enabled", "budget_tokens": N}`` needs ``N >= 1024``
  (``thinking.enabled.budget_tokens: Input should be greater than or equal to
  1024``), ``max_tokens > N`` (```max_tokens` must be greater than
  `thinking.budget_tokens`. Please consult our documentation at ...``, quoted in
  https://github.com/liuw1535/antigravity2api-nodejs/issues/149) and temperature 1 or
  none (```temperature` may only be set to 1 when thinking is enabled. ...``, quoted in
  https://github.com/MartialBE/one-hub/issues/529); models before Claude 3.7 Sonnet
  refuse it. Claude Opus 4.7 and later think adaptively only: ``thinking.type``
  ``enabled`` gets 400 ``"thinking.type.enabled" is not supported for this model. Use
  "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.``
  (quoted in https://github.com/earendil-works/pi/issues/3297). The reply has a
  ``thinking`` block (with a ``signature``) before the
  ``text`` block, and the thinking tokens (``min(budget, thinking_tokens)``) count in
  ``output_tokens``. When thinking and text do not fit in ``max_tokens``, the reply
  has no text block and ``stop_reason: "max_tokens"``.
- **One sampler** (Claude Opus 4.1 and later, Sonnet 4.5 and later, Haiku 4.5):
  ``temperature`` and ``top_p`` together get 400 ```temperature` and `top_p` cannot
  both be specified for this model. Please use only one.`` (quoted in
  https://github.com/Vali-98/ChatterUI/issues/564, Sonnet 4.6, and
  https://github.com/langfuse/langfuse/issues/9882, Sonnet 4.5). With thinking,
  ``top_k`` gets 400 ```top_k` must be unset when thinking is enabled. Please consult
  our documentation at ...`` (https://github.com/quarkiverse/quarkus-langchain4j/issues/1812).
- **No temperature** (Claude Opus 4.7 and later): ``temperature`` at any value gets
  400 ```temperature` is deprecated for this model.`` (the body quoted in
  https://github.com/UKGovernmentBEIS/inspect_ai/issues/3721; Opus 4.8:
  https://github.com/The-PR-Agent/pr-agent/issues/2456).
- **Prompt caching** (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching):
  ``cache_control: {"type": "ephemeral"}`` on a system or message block caches the
  prompt up to and including that block (system first, then messages), when that
  prefix has at least the model's minimum (1024 tokens; 2048 for Claude Haiku 3 and
  3.5 and Sonnet 4.6; 4096 for Opus 4.5/4.6 and Haiku 4.5); a shorter one is silently
  not cached. At most 4 blocks may carry it. The first request writes the cache
  (``cache_creation_input_tokens``), later ones read it (``cache_read_input_tokens``),
  and ``input_tokens`` counts only the rest, as the API reports.

Tokens are the scripted judge's: whitespace-separated words. Counters of its own:
``refused``, ``cache_write_tokens``, ``cache_read_tokens``, ``thinking_tokens``,
``empty_max_tokens``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from tests.server._app import Reply, ScriptedJudge
from tests.server._front import JudgeFront
from tests.server._script import Script, count_tokens

THINKING_TOKENS = 1500
"""Thinking tokens a reply spends, at most its budget."""

_NO_THINKING = re.compile(r"claude-(instant|2|3-(?!7))")
_CACHE_MIN = (
    (re.compile(r"claude-(opus-4-[56]|haiku-4)"), 4096),
    (re.compile(r"claude-(sonnet-4-6|3-5-haiku|3-haiku|haiku-3)"), 2048),
)
MAX_OUTPUT = (
    (re.compile(r"claude-(opus|sonnet)-4-[6-9]"), 128_000),
    (re.compile(r"claude-opus-4-5"), 64_000),
    (re.compile(r"claude-opus-4"), 32_000),
    (re.compile(r"claude-(sonnet-4|haiku-4-5|3-7-sonnet)"), 64_000),
)
"""``(model pattern, most output tokens)``, first match wins."""
_ADAPTIVE_ONLY = re.compile(r"claude-opus-4-[7-9]")
"""Models that take no ``temperature`` and no ``thinking.type`` enabled (adaptive only)."""
_ONE_SAMPLER = re.compile(r"claude-(opus-4-[1-9]|sonnet-4-[5-9]|haiku-4-[5-9])")
"""Models that take ``temperature`` or ``top_p``, not both."""
_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
_TEMPERATURE_ANCHOR = "#important-considerations-when-using-extended-thinking"


def _error(status: int, kind: str, message: str) -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return status, json.dumps(body).encode(), ()


def _invalid(message: str) -> Reply:
    return _error(400, "invalid_request_error", message)


def cache_minimum(model: str) -> int:
    """The shortest prefix (tokens) the model caches."""
    return next((n for pattern, n in _CACHE_MIN if pattern.search(model)), 1024)


def _blocks(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or () if isinstance(b, Mapping)]


class AnthropicEmulator(JudgeFront):
    """The scripted judge behind Anthropic's Messages rules (see the module docstring).

    Args:
        script: The scripted judge's script (what it replies, its faults, its key).
        thinking_tokens: Thinking tokens a reply spends (at most its budget).
    """

    def __init__(self, script: Script | None = None, *, thinking_tokens: int = THINKING_TOKENS):
        super().__init__(ScriptedJudge(script))
        self.thinking_tokens = thinking_tokens
        self._cached: set[str] = set()

    def _forget(self) -> None:
        """Empty the prompt cache."""
        self._cached.clear()

    async def handle(
        self, method: str, path: str, headers: Mapping[bytes, bytes], body: bytes
    ) -> Reply:
        """Check a Messages request as Anthropic does, then let the scripted judge answer."""
        route = path.split("?")[0]
        if method == "GET" and route == "/_stats":
            return 200, json.dumps(self.stats()).encode(), ()
        if method != "POST" or route != "/v1/messages":
            return await self.inner.handle(method, path, headers, body)
        bearer = headers.get(b"authorization", b"").decode("latin-1").removeprefix("Bearer ")
        key = (headers.get(b"x-api-key", b"").decode("latin-1") or bearer).strip()
        wanted = self.script.api_key
        if not key and wanted is not None:
            return _error(401, "authentication_error", "x-api-key header is required")
        if wanted is not None and key != wanted:
            return _error(401, "authentication_error", "invalid x-api-key")
        if not headers.get(b"anthropic-version"):
            return self._refused(_invalid("anthropic-version: header is required"))
        try:
            request = json.loads(body)
        except ValueError:
            return self._refused(_invalid("There was an issue with your request: not JSON"))
        if not isinstance(request, dict):
            return self._refused(_invalid("Input should be a valid dictionary"))
        refusal = self.refusal(request)
        if refusal is not None:
            return self._refused(refusal)
        status, payload, extra = await self.inner.handle(method, path, headers, body)
        if status != 200:
            return status, payload, extra
        try:
            reply = json.loads(payload)
        except ValueError:  # a scripted malformed-JSON fault: passed on as it is
            return status, payload, extra
        if isinstance(reply, dict) and isinstance(reply.get("content"), list):
            self._finish(request, reply)
        return status, json.dumps(reply).encode(), extra

    def _refused(self, reply: Reply) -> Reply:
        self._bump("refused")
        return reply

    def refusal(self, request: Mapping[str, Any]) -> Reply | None:
        """The 400 the real API gives this request body, or ``None`` when it takes it."""
        for field in ("model", "max_tokens", "messages"):
            if field not in request:
                return _invalid(f"{field}: Field required")
        model, max_tokens = str(request["model"]), request["max_tokens"]
        if not isinstance(max_tokens, int) or max_tokens < 1:
            return _invalid("max_tokens: Input should be greater than or equal to 1")
        ceiling = next((n for pattern, n in MAX_OUTPUT if pattern.search(model)), None)
        if ceiling is not None and max_tokens > ceiling:
            return _invalid(
                f"max_tokens: {max_tokens} > {ceiling}, which is the maximum allowed number "
                f"of output tokens for {model}"
            )
        marked = sum(
            1
            for block in [*_blocks(request.get("system")), *self._message_blocks(request)]
            if block.get("cache_control") is not None
        )
        if marked > 4:
            return _invalid(
                f"A maximum of 4 blocks with cache_control may be provided. Found {marked}."
            )
        thinking = request.get("thinking")
        enabled = isinstance(thinking, Mapping) and thinking.get("type") == "enabled"
        if _ADAPTIVE_ONLY.search(model):
            if enabled:
                return _invalid(
                    '"thinking.type.enabled" is not supported for this model. Use '
                    '"thinking.type.adaptive" and "output_config.effort" to control '
                    "thinking behavior."
                )
            if "temperature" in request:
                return _invalid("`temperature` is deprecated for this model.")
        if _ONE_SAMPLER.search(model) and "temperature" in request and "top_p" in request:
            return _invalid(
                "`temperature` and `top_p` cannot both be specified for this model. Please "
                "use only one."
            )
        if not enabled:
            return None
        assert isinstance(thinking, Mapping)
        if "top_k" in request:
            return _invalid(
                "`top_k` must be unset when thinking is enabled. Please consult our "
                f"documentation at {_DOCS}{_TEMPERATURE_ANCHOR}"
            )
        if _NO_THINKING.search(model):
            return _invalid(f"'{model}' does not support thinking.")
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return _invalid(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            )
        if max_tokens <= budget:
            return _invalid(
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult "
                f"our documentation at {_DOCS}#max-tokens-and-context-window-size"
            )
        temperature = request.get("temperature")
        if temperature is not None and temperature != 1:
            return _invalid(
                "`temperature` may only be set to 1 when thinking is enabled. Please consult "
                f"our documentation at {_DOCS}{_TEMPERATURE_ANCHOR}"
            )
        return None

    @staticmethod
    def _message_blocks(request: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return [
            block
            for message in request.get("messages") or ()
            if isinstance(message, Mapping)
            for block in _blocks(message.get("content"))
        ]

    def _finish(self, request: Mapping[str, Any], reply: dict[str, Any]) -> None:
        """Rewrite a successful reply: thinking, cut-off at max_tokens, cache usage."""
        visible = count_tokens("".join(str(b.get("text", "")) for b in reply["content"]))
        thinking = request.get("thinking")
        spent = 0
        if isinstance(thinking, Mapping) and thinking.get("type") == "enabled":
            spent = min(int(thinking["budget_tokens"]), self.thinking_tokens)
            block = {
                "type": "thinking",
                "thinking": "Weighing both answers against the question. " * 3,
                "signature": hashlib.sha256(json.dumps(request).encode()).hexdigest(),
            }
            reply["content"].insert(0, block)
            self._bump("thinking_tokens", spent)
        if spent + visible > int(request["max_tokens"]):
            reply["content"] = [b for b in reply["content"] if b.get("type") != "text"]
            reply["stop_reason"] = "max_tokens"
            visible = max(int(request["max_tokens"]) - spent, 0)
            self._bump("empty_max_tokens")
        total, prefix, key = self._prompt(request)
        written = read = 0
        if prefix and prefix >= cache_minimum(str(request["model"])):
            with self._lock:
                hit = key in self._cached
                self._cached.add(key)
            read, written = (prefix, 0) if hit else (0, prefix)
            self._bump("cache_read_tokens", read)
            self._bump("cache_write_tokens", written)
        reply["usage"] = {
            "input_tokens": total - read - written,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read,
            "output_tokens": spent + visible,
        }

    def _prompt(self, request: Mapping[str, Any]) -> tuple[int, int, str]:
        """``(prompt tokens, tokens up to the last cache_control block, its hash)``."""
        blocks = [*_blocks(request.get("system")), *self._message_blocks(request)]
        texts = [str(b.get("text", "")) for b in blocks]
        total = sum(count_tokens(t) for t in texts)
        last = max((i for i, b in enumerate(blocks) if b.get("cache_control")), default=-1)
        if last < 0:
            return total, 0, ""
        prefix = texts[: last + 1]
        digest = hashlib.sha256(json.dumps([request.get("model"), prefix]).encode()).hexdigest()
        return total, sum(count_tokens(t) for t in prefix), digest
