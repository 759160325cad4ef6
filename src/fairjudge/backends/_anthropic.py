"""The Anthropic backend: Claude models through the official ``anthropic`` SDK.

Labels only: the Messages API reports no logprobs, so ``soft`` resolution counts each
label as probability 1. The SDK is an optional extra, imported when a backend is
built; settings and errors are shared in :class:`~fairjudge.backends._http_base.HTTPBackend`.
One reader, :func:`completion_from_reply`, serves the online call and a Message
Batches result line, so both give the same completion and the same errors.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Unpack

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import (
    ConfigError,
    CutAtCap,
    FatalBackendError,
    MissingExtraError,
    ServerError,
)
from fairjudge.backends._capabilities import (
    EMPTY_AT_CAP_LIMIT,
    MIN_THINKING_BUDGET,
    Capabilities,
    capabilities_for,
)
from fairjudge.backends._http_base import (
    REPLY_MAX_TOKENS,
    HTTPBackend,
    HTTPOptions,
    anthropic_usage,
)

__all__ = ["AnthropicBackend", "completion_from_reply"]


def _import_sdk() -> ModuleType:
    try:
        return importlib.import_module("anthropic")
    except ImportError as exc:
        raise MissingExtraError("the anthropic backend", "anthropic", "anthropic") from exc


class AnthropicBackend(HTTPBackend):
    """A Claude judge through the Messages API.

    Args:
        model: The model name, e.g. ``"claude-3-5-haiku-latest"``.
        thinking_budget: Turn on extended thinking with this many tokens of budget
            (at least 1024, and below ``max_tokens``). Thinking takes temperature 1
            only, so such a judge samples; ``max_tokens`` defaults to the budget plus
            1024 for the answer.
        cache_prompts: Mark the shared prefix of each prompt (the system message and
            the template's or rubric's text before the item) with ``cache_control``
            when it is long enough to be cached (see :func:`cache_point`).
        **options: The :class:`~fairjudge.backends._http_base.HTTPOptions`:
            ``base_url`` (another Messages-compatible server; default
            ``$ANTHROPIC_BASE_URL``, else Anthropic's API), ``api_key_env`` (default
            ``ANTHROPIC_API_KEY``, read once, here), ``timeout`` (60 s),
            ``temperature`` (0; ``None`` sends none, for models that reject sampling
            parameters; none with thinking, which samples at 1), ``max_tokens`` (8 for
            label-only calls, else 1024: the API requires one), ``extra_params``,
            ``max_connections`` (512).

    Raises:
        MissingExtraError: The ``anthropic`` package is not installed.
        ConfigError: The key's environment variable is not set; the thinking budget is
            under 1024 or not below ``max_tokens``, or the model has no extended
            thinking, or thinks adaptively only (Opus 4.7 and later); ``max_tokens`` (or
            the budget and room to answer) is above the most output tokens the model
            writes, when the table knows it; a temperature other than 1 for a model
            that takes none (Opus 4.7 and later, which are sent none).
    """

    name = "anthropic"
    default_host = "api.anthropic.com"
    base_url_env = "ANTHROPIC_BASE_URL"
    default_key_env = "ANTHROPIC_API_KEY"

    def __init__(
        self,
        model: str,
        *,
        thinking_budget: int | None = None,
        cache_prompts: bool = True,
        **options: Unpack[HTTPOptions],
    ) -> None:
        super().__init__(model, sdk=_import_sdk(), **options)
        self._caps = capabilities_for("anthropic", model)
        vendor = self.at_vendor  # the table's refusals are Anthropic's (see at_vendor)
        self._budget = _checked_budget(model, self._caps, thinking_budget, self._max_tokens, vendor)
        # A model that takes no temperature (Opus 4.7 and later) is sent none: a given
        # one is refused at the API, and sent as asked at another server.
        given = "temperature" in options and self._temperature not in (None, 1)
        self._sends_temperature = self._caps.temperature or (given and not vendor)
        if vendor:
            _check_ceiling(model, self._caps, self._budget, self._max_tokens)
            if given and not self._caps.temperature:
                self._caps.refuse_temperature(f"anthropic/{model}", self._temperature or 0.0)
            _check_samplers(model, self._caps, self._budget, self.default_params(label_only=True))
        self._cache_prompts = cache_prompts
        self._empty_at_cap = 0
        key = self._read_key()
        if key is None:
            raise ConfigError(f"the anthropic backend needs an API key: set ${self._api_key_env}")
        self._client = self._sdk_client(self._loaded_sdk.AsyncAnthropic, key)

    def _settings(self) -> dict[str, Any]:
        return {
            **super()._settings(),
            "thinking_budget": self._budget,
            "cache_prompts": self._cache_prompts,
        }

    @property
    def capabilities(self) -> Capabilities:
        """The capability table's row for this model (see :mod:`._capabilities`)."""
        return self._caps

    @property
    def fixed_temperature(self) -> float | None:
        """1.0 with extended thinking or a model that takes no temperature; else None.

        Either samples at the API's default, 1: its replies are samples.
        """
        return 1.0 if self._budget is not None or not self._sends_temperature else None

    @property
    def sends_logprobs(self) -> bool:
        """Always False: the Messages API reports no logprobs."""
        return False

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """Sampling parameters; with thinking, the budget and room to answer after it."""
        if self._budget is None:
            sampled = super().default_params(label_only=label_only)
            if not self._sends_temperature and "temperature" not in self._extra_params:
                sampled.pop("temperature", None)  # Opus 4.7 and later: refused at any value
            return sampled
        params: dict[str, Any] = {  # no temperature: thinking takes only the default, 1
            "max_tokens": self._max_tokens or self._budget + REPLY_MAX_TOKENS,
            "thinking": {"type": "enabled", "budget_tokens": self._budget},
        }
        params.update(self._extra_params)
        return params

    def _wrong_path(self, exc: Exception) -> FatalBackendError | None:
        """A 404 from a ``base_url`` ending in ``/v1``, said as the URL's mistake.

        The Messages path is ``/v1/messages`` under the base URL, so an OpenAI-style
        ``.../v1`` base posts to ``.../v1/v1/messages``; the server's bare 404 would not
        say which of model, URL or key is wrong.
        """
        url = (self._base_url or "").rstrip("/")
        if getattr(exc, "status_code", None) != 404 or not url.endswith("/v1"):
            return None
        return FatalBackendError(
            f"{self._translate(exc)}. An anthropic/ judge posts to /v1/messages under "
            f"base_url, so this one posted to {self._shown_url}/v1/messages: give "
            "base_url without its trailing /v1",
            params="base_url",  # the command line says --base-url
        )

    def request_body(self, spec: CallSpec) -> dict[str, Any]:
        """The JSON body of the Messages request this backend sends for ``spec``.

        System messages are joined into the ``system`` parameter; the rest keep their
        order. Every parameter travels in the body as given (SDK releases differ in
        which sampling arguments ``create`` names, and the body is what the API reads
        either way); ``max_tokens`` is required by the API, so it is always there.
        With ``cache_prompts``, the shared prefix carries ``cache_control`` (see
        :func:`cache_point`). The same body is a Message Batches request's ``params``.
        """
        system = "\n\n".join(content for role, content in spec.messages if role == "system")
        turns = [(r, c) for r, c in spec.messages if r != "system"]
        messages: list[dict[str, Any]] = [{"role": r, "content": c} for r, c in turns]
        body: dict[str, Any] = {
            "model": spec.model,
            "max_tokens": spec.params.get("max_tokens", REPLY_MAX_TOKENS),
            "messages": messages,
        }
        if system:
            body["system"] = system
        first = turns[0][1] if turns and turns[0][0] == "user" else None
        point = cache_point(system, first, self._caps.cache_min_tokens)
        if self._cache_prompts and point is not None:
            if point == 0:
                body["system"] = [{"type": "text", "text": system, "cache_control": _EPHEMERAL}]
            else:
                assert first is not None
                messages[0]["content"] = [
                    {"type": "text", "text": first[:point], "cache_control": _EPHEMERAL},
                    {"type": "text", "text": first[point:]},
                ]
        body.update((k, v) for k, v in spec.params.items() if k != "max_tokens")
        return body

    async def complete(self, spec: CallSpec) -> Completion:
        """Send one message and return the reply's text.

        Raises the same errors as :meth:`OpenAIBackend.complete`: a reply that spent
        its whole ``max_tokens`` thinking is a :class:`CutAtCap` (billed: it carries
        the reply's usage) that says what to raise, and after the third the run sends
        no more (a :class:`FatalBackendError`).
        """
        if self._empty_at_cap >= EMPTY_AT_CAP_LIMIT:
            stop = FatalBackendError(
                f"anthropic backend: {self._where}: stopped after {EMPTY_AT_CAP_LIMIT} replies "
                "that spent their whole token cap thinking; no more calls are sent; raise "
                "max_tokens, or lower thinking_budget",
                params=("max_tokens", "thinking_budget"),  # the CLI shows them as flags
            )
            stop.requests = 0  # not sent: the run counts no request and keeps no row
            raise stop
        sdk = self._loaded_sdk
        start = time.perf_counter()
        try:
            # client.post (the SDK's way to call any endpoint) keeps its auth, the
            # anthropic-version header, timeouts and error classes, and sends exactly
            # request_body: one body for online calls and batch files. The reply comes
            # back as the JSON the server sent (cast_to=object): the SDK's model would
            # coerce usage ("12" -> 12, false -> 0) before fairjudge could check it.
            reply = await self._client.post(
                "/v1/messages", body=self.request_body(spec), cast_to=object
            )
        except sdk.AnthropicError as exc:
            raise self._wrong_path(exc) or self._translate(exc) from exc
        except ValueError as exc:  # the SDK lets json.JSONDecodeError through on a bad body
            raise self._not_json() from exc
        latency = time.perf_counter() - start
        data = reply.to_dict() if hasattr(reply, "to_dict") else reply
        try:
            return completion_from_reply(data, latency, self._where)
        except CutAtCap:  # thinking used the whole cap: paid for, and no answer
            self._empty_at_cap += 1
            raise


_EPHEMERAL = {"type": "ephemeral"}
_ITEM_OPENERS = ("<question>", "<conversation>")


def cache_point(system: str, first_user: str | None, minimum: int) -> int | None:
    """Where the shared prefix of a prompt ends, when it is long enough to cache.

    fairjudge's templates and rubrics put what every call shares first: the system
    message, then the template's or rubric's own text, then the item, which opens
    with ``<question>`` (or ``<conversation>``). The prefix is cached by Anthropic
    only from ``minimum`` tokens on (1024 for most models, 2048 or 4096 for some:
    https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching), and a
    shorter one marked is simply not cached, so it is marked only when long enough.
    Tokens are estimated as characters over four, fairjudge's estimate everywhere.

    Returns:
        ``0`` to mark the system message alone (it is long enough by itself), the
        offset in the first user message where the shared part ends, or ``None`` when
        the prefix is too short (or there is none).
    """
    if system and len(system) // 4 >= minimum:
        return 0
    if first_user is None:
        return None
    ends = [i for tag in _ITEM_OPENERS if (i := first_user.find(tag)) > 0]
    if not ends:
        return None
    point = min(ends)
    return point if (len(system) + point) // 4 >= minimum else None


def _checked_budget(
    model: str, caps: Capabilities, budget: int | None, max_tokens: int | None, vendor: bool
) -> int | None:
    """The thinking budget, refused before any call when the API would refuse it.

    At another server (``vendor=False``) only a budget no server takes (under 1).
    """
    if budget is None:
        return None
    if budget < (MIN_THINKING_BUDGET if vendor else 1):
        minimum = f"{MIN_THINKING_BUDGET} tokens (Anthropic's minimum)" if vendor else "1"
        raise ConfigError(
            f"thinking_budget must be at least {minimum}; got {budget}", params="thinking_budget"
        )
    if not vendor:
        return budget
    if max_tokens is not None and budget >= max_tokens:
        raise ConfigError(
            f"thinking_budget ({budget}) must be below max_tokens ({max_tokens}): thinking "
            "counts against max_tokens, and the answer needs room after it; raise "
            "max_tokens or lower the budget",
            params=("thinking_budget", "max_tokens"),
        )
    if not caps.thinking:
        raise ConfigError(
            f"anthropic/{model} has no extended thinking (Claude 3.7 Sonnet and the "
            "Claude 4 models have it); drop thinking_budget or pick one of those",
            params="thinking_budget",
        )
    if not caps.budget:
        raise ConfigError(
            f"anthropic/{model} takes no thinking_budget: it thinks adaptively only (the "
            "API refuses thinking.type enabled for Claude Opus 4.7 and later); drop "
            "thinking_budget, or pick a model that takes one (e.g. claude-opus-4-6, "
            "claude-sonnet-4-5)",
            params="thinking_budget",
        )
    return budget


def _check_samplers(
    model: str, caps: Capabilities, budget: int | None, params: Mapping[str, Any]
) -> None:
    """Refuse sampling parameters the API refuses together, on every call (a 400).

    ``params`` are those a call sends (``extra_params`` included). Extended thinking
    takes no ``top_k`` ("`top_k` must be unset when thinking is enabled.", as quoted
    in https://github.com/quarkiverse/quarkus-langchain4j/issues/1812); the newer
    models take ``temperature`` or ``top_p``, not both (:mod:`._capabilities`).
    """
    if budget is not None and "top_k" in params:
        raise ConfigError(
            f"anthropic/{model} with extended thinking takes no top_k (the API refuses it "
            "when thinking is enabled); drop top_k from extra_params, or thinking_budget",
            params=("extra_params", "thinking_budget"),
        )
    if not caps.both_samplers and "temperature" in params and "top_p" in params:
        raise ConfigError(
            f"anthropic/{model} takes temperature or top_p, not both (the API refuses the "
            "two together); drop top_p from extra_params, or give temperature=None to "
            "send no temperature",
            params=("extra_params", "temperature"),
        )


def _check_ceiling(
    model: str, caps: Capabilities, budget: int | None, max_tokens: int | None
) -> None:
    """Refuse a cap above the model's output ceiling, which the API refuses (a 400)."""
    ceiling = caps.max_output
    if ceiling is None:
        return
    most = f"anthropic/{model} writes at most {ceiling} output tokens, thinking included"
    if max_tokens is not None and max_tokens > ceiling:
        raise ConfigError(
            f"max_tokens {max_tokens} is above what the API takes: {most}; give at most {ceiling}",
            params="max_tokens",
        )
    if max_tokens is None and budget is not None and budget + REPLY_MAX_TOKENS > ceiling:
        raise ConfigError(
            f"thinking_budget {budget} is above what the API takes: {most}, and the "
            f"answer needs {REPLY_MAX_TOKENS} after the thinking; give a budget of at most "
            f"{ceiling - REPLY_MAX_TOKENS}",
            params="thinking_budget",
        )


def completion_from_reply(reply: Any, latency: float, where: str) -> Completion:
    """A :class:`Completion` from a parsed Messages reply.

    The text is the text blocks joined in order (thinking blocks are the model's
    hidden work, not its answer). The Messages API reports no logprobs, so
    ``top_logprobs`` is ``None``.

    Args:
        reply: The reply body as parsed JSON (a mapping).
        latency: Seconds the call took, recorded on the completion.
        where: ``"model ... at host"``, named in errors.

    Raises:
        ServerError: The reply has no content list, or no text block in it.
        CutAtCap: The reply was cut off by ``max_tokens`` while still thinking,
            before any text: billed all the same (the error carries the reply and its
            usage); sent again it would be cut again, so it is not retried, and the
            message says what to raise.

    The usage does not split thinking out of ``output_tokens``: a reply with a
    thinking block reports ``reasoning_tokens`` as ``None`` (not reported), one
    without any as 0 (it did not think).
    """
    try:
        blocks = reply["content"]
        texts = [b["text"] for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"]
    except (TypeError, KeyError) as exc:
        raise ServerError(f"anthropic backend: {where}: reply has no content") from exc
    if not texts or not all(isinstance(t, str) for t in texts):
        if reply.get("stop_reason") == "max_tokens":
            raise CutAtCap(
                f"anthropic backend: {where}: thinking used the reply's whole token cap "
                "before any text; the provider bills those tokens; raise max_tokens, or "
                "lower thinking_budget",
                _completion(reply, "", latency, blocks),
                params=("max_tokens", "thinking_budget"),  # the CLI shows them as flags
            )
        raise ServerError(f"anthropic backend: {where}: reply has no text block")
    return _completion(reply, "".join(texts), latency, blocks)


_THINKING = ("thinking", "redacted_thinking")


def _completion(reply: Any, text: str, latency: float, blocks: Any) -> Completion:
    """The completion of a reply whose text is ``text``, its usage checked."""
    thought = any(isinstance(b, Mapping) and b.get("type") in _THINKING for b in blocks)
    model = reply.get("model")
    return Completion(
        text=text,
        top_logprobs=None,
        latency_s=latency,
        model=model if isinstance(model, str) else None,
        # Anthropic does not report thinking tokens apart (they are in output_tokens):
        # unknown after a thinking block, 0 when the model did not think.
        **{
            **anthropic_usage(reply.get("usage")).fields(),
            "reasoning_tokens": None if thought else 0,
        },
    )
