"""The capability table and what a refused request teaches (pure code, no server)."""

from __future__ import annotations

import pytest

from fairjudge.backends._capabilities import (
    Change,
    apply_changes,
    capabilities_for,
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
    for changes in (by_param, by_text):
        assert {c.param for c in changes} == {"logprobs", "top_logprobs"}
        assert all(c.to is None for c in changes)


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
