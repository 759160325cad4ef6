"""The capability table and what a refused request teaches (pure code, no server)."""

from __future__ import annotations

import pytest

from fairjudge._errors import ConfigError
from fairjudge.backends import AnthropicBackend, OpenAIBackend
from fairjudge.backends._capabilities import (
    Change,
    apply_changes,
    at_api,
    capabilities_for,
    checked_effort,
    fold_system,
    lesson,
    reasoning_room,
)

MAX_TOKENS_REFUSAL = {
    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
    "Use 'max_completion_tokens' instead.",
    "type": "invalid_request_error",
    "param": "max_tokens",
    "code": "unsupported_parameter",
}


@pytest.mark.parametrize(
    "model", ["gpt-5", "gpt-5-mini", "gpt-5-nano-2025-08-07", "o1", "o3-mini", "o4-mini"]
)
def test_reasoning_models(model: str) -> None:
    caps = capabilities_for("openai", model)
    assert caps.family == "openai-reasoning"
    assert caps.known
    assert caps.cap_param == "max_completion_tokens"
    assert (caps.temperature, caps.top_p, caps.logprobs) == (False, False, False)
    assert caps.stochastic
    assert ("minimal" in caps.efforts) == model.startswith("gpt-5")
    assert {"low", "medium", "high"} <= set(caps.efforts)
    assert caps.default_effort == "medium"
    assert caps.system
    assert caps.chat


# OpenAI's reference for reasoning_effort: gpt-5.1 takes none..high and defaults to
# none; gpt-5.2 adds xhigh (QA39 #16).
@pytest.mark.parametrize(
    ("model", "efforts"),
    [
        ("gpt-5.1", ("none", "low", "medium", "high")),
        ("gpt-5.1-2025-11-13", ("none", "low", "medium", "high")),
        ("gpt-5.2", ("none", "low", "medium", "high", "xhigh")),
    ],
)
def test_gpt_5_1_and_later_efforts(model: str, efforts: tuple[str, ...]) -> None:
    caps = capabilities_for("openai", model)
    assert caps.efforts == efforts
    assert caps.default_effort == "none"
    # No reasoning by default: the cap leaves a margin, not medium's 8192 tokens.
    assert reasoning_room(None, caps.default_effort) == reasoning_room("none") < 1024


# gpt-5.1-chat-latest and gpt-5.2-chat-latest reason (temperature 1 only,
# max_completion_tokens) and take reasoning_effort medium only; gpt-5-chat-latest is a
# chat model (test_chat_models).
@pytest.mark.parametrize(
    "model", ["gpt-5.1-chat-latest", "gpt-5.2-chat-latest", "gpt-5.2-chat-latest-2025-12-11"]
)
def test_gpt_5_x_chat_models_reason_at_medium_only(model: str) -> None:
    caps = capabilities_for("openai", model)
    assert caps.family == "openai-reasoning"
    assert (caps.cap_param, caps.temperature, caps.logprobs) == (
        "max_completion_tokens",
        False,
        False,
    )
    assert (caps.efforts, caps.default_effort) == (("medium",), "medium")
    assert caps.max_output == 16_384
    assert checked_effort(model, caps, "medium") == "medium"
    with pytest.raises(
        ConfigError, match=r"takes no reasoning_effort 'none': it takes medium only"
    ):
        checked_effort(model, caps, "none")


@pytest.mark.parametrize(
    ("url", "api"),
    [
        (None, True),
        ("https://api.openai.com/v1", True),
        ("http://localhost:8080/v1", False),
        ("https://openrouter.ai/api/v1", False),
        ("https://api.openai.com.example.net/v1", False),
    ],
)
def test_at_openai(url: str | None, api: bool) -> None:
    assert at_api(url) is api


# review41 F6: OpenAI's data-residency hosts (its "Data residency" guide: eu.api.openai.com
# for Europe, us., au., in., jp. ...) and the fully qualified host with its trailing dot
# are the vendor's API, so its refusals before any call apply there as at api.openai.com.
# Anthropic's trailing dot the same way (Anthropic names no regional host: its residency
# is the request's inference_geo). A domain that merely contains the host, or ends in it
# without a dot between, is another server.
@pytest.mark.parametrize(
    ("url", "api"),
    [
        ("https://eu.api.openai.com/v1", True),
        ("https://us.api.openai.com/v1/", True),
        ("https://jp.api.openai.com", True),
        ("https://api.openai.com./v1", True),
        ("https://api.openai.com.:443/v1", True),
        ("https://EU.API.OPENAI.COM./v1", True),
        ("https://eu.api.openai.com./v1", True),
        ("https://evilapi.openai.com/v1", False),
        ("https://eu.api.openai.com.example.net/v1", False),
        ("https://api.openai.com..example/v1", False),
        ("https://openai.com/v1", False),
    ],
)
def test_at_openai_regional_and_fully_qualified_hosts(url: str, api: bool) -> None:
    assert at_api(url) is api
    assert OpenAIBackend.calls_the_api(url) is api


@pytest.mark.parametrize(
    ("url", "api"),
    [
        ("https://api.anthropic.com", True),
        ("https://api.anthropic.com./v1", True),
        ("https://api.deepseek.com/anthropic", False),
        ("https://notapi.anthropic.com", False),
    ],
)
def test_at_anthropic_alike(url: str, api: bool) -> None:
    assert at_api(url, "api.anthropic.com") is api
    assert AnthropicBackend.calls_the_api(url) is api


def test_another_server_answers_for_the_model_it_serves() -> None:
    """Away from the API (``vendor=False``) the table refuses no effort and no model;
    a value no model takes still is (a typo, whatever the server)."""
    for model, effort in (("gpt-4o", "low"), ("o1-mini", "low"), ("o3-pro", None)):
        assert (
            checked_effort(model, capabilities_for("openai", model), effort, vendor=False) == effort
        )
    with pytest.raises(ConfigError, match=r"reasoning_effort must be one of"):
        checked_effort("gpt-5", capabilities_for("openai", "gpt-5"), "extreme", vendor=False)


@pytest.mark.parametrize("model", ["o1-mini", "o1-mini-2024-09-12", "o1-preview"])
def test_o1_mini_takes_no_system_message_and_no_effort(model: str) -> None:
    caps = capabilities_for("openai", model)
    assert not caps.system
    assert caps.efforts == ()
    with pytest.raises(ConfigError, match=r"o1-mini and o1-preview take no reasoning_effort"):
        checked_effort(model, caps, "low")


def test_fold_system_opens_the_user_turn() -> None:
    messages = [("system", "Be fair."), ("user", "Which is better?")]
    assert fold_system(messages) == [("user", "Be fair.\n\nWhich is better?")]
    assert fold_system([("user", "q")]) == [("user", "q")]


@pytest.mark.parametrize(
    "model", ["o1-pro", "o3-pro-2025-06-10", "gpt-5-pro", "gpt-5.2-pro", "gpt-5-codex"]
)
def test_responses_only_models_are_refused_before_any_call(model: str) -> None:
    caps = capabilities_for("openai", model)
    assert not caps.chat
    with pytest.raises(ConfigError, match=r"Responses API only"):
        checked_effort(model, caps, None)


@pytest.mark.parametrize(
    ("model", "ceiling"),
    [
        ("claude-sonnet-4-5-20250929", 64_000),
        ("claude-haiku-4-5", 64_000),
        ("claude-opus-4-1", 32_000),
        ("claude-opus-4-20250514", 32_000),
        ("claude-opus-4-5", 64_000),
        ("claude-opus-4-6", 128_000),
        ("claude-3-7-sonnet-latest", 64_000),
        ("claude-3-5-haiku-latest", None),
    ],
)
def test_anthropic_output_ceilings(model: str, ceiling: int | None) -> None:
    assert capabilities_for("anthropic", model).max_output == ceiling


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4o-mini", "gpt-4.1-nano", "gpt-5-chat-latest"])
def test_chat_models(model: str) -> None:
    caps = capabilities_for("openai", model)
    assert caps.family == "openai-chat"
    assert caps.known
    assert caps.cap_param == "max_tokens"
    assert caps.temperature
    assert caps.logprobs
    assert caps.efforts == ()


def test_an_unknown_model_is_learned() -> None:
    caps = capabilities_for("openai", "acme-reasoner")
    assert caps.family == "openai-unknown"
    assert not caps.known


@pytest.mark.parametrize(
    ("model", "thinking", "minimum"),
    [
        ("claude-3-5-haiku-latest", False, 2048),
        ("claude-3-haiku-20240307", False, 2048),
        ("claude-3-7-sonnet-latest", True, 1024),
        ("claude-sonnet-4-5", True, 1024),
        ("claude-opus-4-1", True, 1024),
        ("claude-haiku-4-5", True, 4096),
        ("claude-opus-4-5", True, 4096),
    ],
)
def test_anthropic_models(model: str, thinking: bool, minimum: int) -> None:
    caps = capabilities_for("anthropic", model)
    assert caps.thinking is thinking
    assert caps.cache_min_tokens == minimum


def test_reasoning_room_grows_with_effort() -> None:
    rooms = [reasoning_room(e) for e in ("minimal", "low", "medium", "high")]
    assert rooms == sorted(rooms)
    assert reasoning_room(None) == reasoning_room("medium") == 8192


def test_max_tokens_refusal_renames_the_cap() -> None:
    sent = {"max_tokens": 8, "temperature": 0}
    changes = lesson(400, MAX_TOKENS_REFUSAL, MAX_TOKENS_REFUSAL["message"], sent)
    assert [(c.param, c.to) for c in changes] == [("max_tokens", "max_completion_tokens")]
    learned = {c.param: Change(c.param, c.to, c.status, c.reason, add=100) for c in changes}
    assert apply_changes(sent, learned) == {"max_completion_tokens": 108, "temperature": 0}


def test_temperature_refusal_drops_it() -> None:
    error = {"param": "temperature", "code": "unsupported_value"}
    message = "Unsupported value: 'temperature' does not support 0 with this model."
    changes = lesson(400, error, message, {"temperature": 0, "max_completion_tokens": 9})
    assert [(c.param, c.to) for c in changes] == [("temperature", None)]
    learned = {c.param: c for c in changes}
    assert apply_changes({"temperature": 0, "max_completion_tokens": 9}, learned) == {
        "max_completion_tokens": 9
    }


def test_logprobs_go_together_with_or_without_a_param() -> None:
    sent = {"logprobs": True, "top_logprobs": 20, "max_tokens": 8}
    by_param = lesson(400, {"param": "logprobs", "code": "unsupported_parameter"}, "x", sent)
    by_text = lesson(400, None, "logprobs not supported", sent)
    # o4-mini's own refusal: a 403 with no param (deepeval PR #2184).
    by_403 = lesson(403, {"param": None}, "You are not allowed to request logprobs", sent)
    for changes in (by_param, by_text, by_403):
        # One refusal of the pair, worded as one (QA39 #4: not a line per field).
        (change,) = changes
        assert change.params == ("logprobs", "top_logprobs")
        assert change.to is None
        assert change.describe().startswith("refused 'logprobs' and 'top_logprobs' (HTTP 4")
        assert change.describe().endswith("; no longer sending them")
        assert change.short() == "stopped sending logprobs and top_logprobs"
        assert apply_changes(sent, {change.param: change}) == {"max_tokens": 8}


def test_a_403_about_anything_but_logprobs_teaches_nothing() -> None:
    sent = {"logprobs": True, "top_logprobs": 20, "temperature": 0}
    assert lesson(403, {"param": "temperature"}, "forbidden", sent) == []
    assert lesson(403, None, "You are not allowed to sample from this model", sent) == []


@pytest.mark.parametrize(
    ("status", "error", "message"),
    [
        (429, {"param": "temperature"}, "slow down"),
        (400, {"param": "reasoning_effort", "code": "unsupported_parameter"}, "no effort"),
        (400, {"param": "messages", "code": None}, "maximum context length"),
        (400, {"param": "top_p", "code": "unsupported_value"}, "top_p not sent"),
    ],
)
def test_refusals_that_teach_nothing(status: int, error: dict[str, str], message: str) -> None:
    # A rate limit, a parameter asked for on purpose, a prompt too long, and a
    # parameter the request did not carry teach nothing.
    sent = {"temperature": 0, "reasoning_effort": "low", "messages": []}
    assert lesson(status, error, message, sent) == []
