"""The OpenAI emulator's output ceilings and Structured Outputs refusals (QA #30, #31).

A cap above what the model writes, and ``response_format`` of type ``json_schema`` for
a model without Structured Outputs, get the real API's 400 bodies; what the model
takes is answered.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.server import Script
from tests.server._openai_emulator import OpenAIEmulator
from tests.server.test_emulators import MESSAGES, OPENAI_HEADERS, post

SCHEMA = {
    "type": "json_schema",
    "json_schema": {"name": "s", "schema": {"type": "object"}, "strict": True},
}
NO_SCHEMA = (
    "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this "
    "model. Learn more about supported models at the Structured Outputs guide: "
    "https://platform.openai.com/docs/guides/structured-outputs"
)


def openai_error(message: str, param: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI error object, its keys in the API's order."""
    return {"message": message, "type": "invalid_request_error", "param": param, "code": code}


def too_large(cap: int, ceiling: int) -> dict[str, object]:
    return {
        "error": openai_error(
            f"max_tokens is too large: {cap}. This model supports at most {ceiling} "
            f"completion tokens, whereas you provided {cap}.",
            param="max_tokens",
            code="invalid_value",
        )
    }


@pytest.mark.parametrize(
    ("model", "cap", "ceiling"),
    [
        ("gpt-4o", "max_tokens", 16384),
        ("gpt-4o-mini", "max_tokens", 16384),
        ("gpt-4.1-mini", "max_tokens", 32768),
        ("gpt-3.5-turbo", "max_tokens", 4096),
        ("gpt-4-turbo", "max_tokens", 4096),
        # A reasoning model's cap is max_completion_tokens; the message names max_tokens.
        ("o1-mini", "max_completion_tokens", 65536),
        ("o3-mini", "max_completion_tokens", 100000),
        ("gpt-5-mini", "max_completion_tokens", 128000),
        # Stop 41: the gpt-5 chat models and gpt-4.5-preview write at most 16384.
        ("gpt-5-chat-latest", "max_tokens", 16384),
        ("gpt-5.1-chat-latest", "max_completion_tokens", 16384),
        ("gpt-5.2-chat-latest", "max_completion_tokens", 16384),
        ("gpt-4.5-preview", "max_tokens", 16384),
    ],
)
def test_a_cap_above_the_ceiling_gets_the_real_400(model: str, cap: str, ceiling: int) -> None:
    app = OpenAIEmulator(Script())
    request = {"model": model, "messages": MESSAGES}
    status, body = post(app, "/v1/chat/completions", OPENAI_HEADERS, {**request, cap: ceiling + 1})
    assert (status, body) == (400, too_large(ceiling + 1, ceiling))
    assert app.stats()["refused:max_tokens"] == 1
    status, _ = post(app, "/v1/chat/completions", OPENAI_HEADERS, {**request, cap: ceiling})
    assert status == 200


def test_a_model_without_a_known_ceiling_takes_any_cap() -> None:
    app = OpenAIEmulator(Script(), reasoning_models=("acme-reasoner",))
    for model, cap in (("acme-chat", "max_tokens"), ("acme-reasoner", "max_completion_tokens")):
        request = {"model": model, "messages": MESSAGES, cap: 500_000}
        status, _ = post(app, "/v1/chat/completions", OPENAI_HEADERS, request)
        assert status == 200, model


@pytest.mark.parametrize(
    "model", ["o1-mini", "o1-preview", "gpt-4o-2024-05-13", "gpt-4-turbo", "gpt-3.5-turbo"]
)
def test_json_schema_without_structured_outputs_gets_the_real_400(model: str) -> None:
    app = OpenAIEmulator(Script())
    cap = "max_completion_tokens" if model.startswith("o1") else "max_tokens"
    request = {"model": model, "messages": MESSAGES, cap: 100, "response_format": SCHEMA}
    status, body = post(app, "/v1/chat/completions", OPENAI_HEADERS, request)
    assert (status, body) == (400, {"error": openai_error(NO_SCHEMA, param="response_format")})
    assert app.stats()["refused:response_format"] == 1


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4o", "gpt-4.1", "o1", "o3-mini", "gpt-5"])
def test_json_schema_is_taken_where_structured_outputs_are(model: str) -> None:
    app = OpenAIEmulator(Script())
    cap = "max_tokens" if model.startswith("gpt-4") else "max_completion_tokens"
    request = {"model": model, "messages": MESSAGES, cap: 2000, "response_format": SCHEMA}
    status, _ = post(app, "/v1/chat/completions", OPENAI_HEADERS, request)
    assert status == 200


def test_gpt_4_refuses_a_cap_past_its_context() -> None:
    """gpt-4's 8192 tokens hold the prompt and the cap together (chatbot-ui#820's body)."""
    app = OpenAIEmulator(Script())
    prompt = sum(len(str(m["content"]).split()) for m in MESSAGES)
    request = {"model": "gpt-4", "messages": MESSAGES, "max_tokens": 8192 - prompt + 1}
    status, body = post(app, "/v1/chat/completions", OPENAI_HEADERS, request)
    message = (
        f"This model's maximum context length is 8192 tokens. However, you requested 8193 "
        f"tokens ({prompt} in the messages, {8192 - prompt + 1} in the completion). Please "
        "reduce the length of the messages or completion."
    )
    error = openai_error(message, param="messages", code="context_length_exceeded")
    assert (status, body) == (400, {"error": error})
    assert app.stats()["refused:messages"] == 1
    status, _ = post(app, "/v1/chat/completions", OPENAI_HEADERS, {**request, "max_tokens": 100})
    assert status == 200


@pytest.mark.parametrize("model", ["gpt-5.1-chat-latest", "gpt-5.2-chat-latest-2025-12-11"])
def test_gpt_5_x_chat_takes_reasoning_effort_medium_only(model: str) -> None:
    """chatwise-releases#1257's body; the chat models reason, so temperature 0 is refused."""
    app = OpenAIEmulator(Script())
    request = {"model": model, "messages": MESSAGES, "max_completion_tokens": 2000}
    for effort in ("none", "low", "high"):
        status, body = post(
            app, "/v1/chat/completions", OPENAI_HEADERS, {**request, "reasoning_effort": effort}
        )
        message = (
            f"Unsupported value: 'reasoning_effort' does not support '{effort}' with this "
            "model. Supported values are: 'medium'."
        )
        error = openai_error(message, param="reasoning_effort", code="unsupported_value")
        assert (status, body) == (400, {"error": error})
    status, body = post(app, "/v1/chat/completions", OPENAI_HEADERS, {**request, "temperature": 0})
    assert (status, body["error"]["param"]) == (400, "temperature")
    status, _ = post(
        app, "/v1/chat/completions", OPENAI_HEADERS, {**request, "reasoning_effort": "medium"}
    )
    assert status == 200
    # gpt-5-chat-latest is a chat model: temperature 0 and max_tokens are taken.
    chat = {"model": "gpt-5-chat-latest", "messages": MESSAGES, "max_tokens": 100}
    status, _ = post(app, "/v1/chat/completions", OPENAI_HEADERS, {**chat, "temperature": 0})
    assert status == 200


def test_a_null_reasoning_effort_is_refused_by_the_models_that_take_none() -> None:
    """null is not "none": gpt-5.1 answers 400 (livekit/agents#3966); omitted, it is taken."""
    emulator = OpenAIEmulator(Script())
    base = {"model": "gpt-5.1", "messages": MESSAGES, "max_completion_tokens": 64}
    refused = emulator.refusal({**base, "reasoning_effort": None})
    assert refused is not None
    status, body, _ = refused
    assert status == 400
    assert json.loads(body) == {
        "error": openai_error(
            "Unsupported value: 'reasoning_effort' does not support null with this model. "
            "Supported values are: 'none', 'low', 'medium', and 'high'.",
            param="reasoning_effort",
            code="unsupported_value",
        )
    }
    assert emulator.refusal(base) is None
    assert emulator.refusal({**base, "reasoning_effort": "none"}) is None
    # Another value's list is unchanged by the shared wording.
    minimal = emulator.refusal({**base, "reasoning_effort": "minimal"})
    assert minimal is not None
    assert b"Supported values are: 'none', 'low', 'medium', and 'high'." in minimal[1]
