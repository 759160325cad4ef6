"""The emulators' refusals, byte for byte as the real APIs give them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.server import DEFAULT_API_KEY, Script
from tests.server._anthropic_emulator import AnthropicEmulator
from tests.server._openai_emulator import OpenAIEmulator

OPENAI_HEADERS = {b"authorization": f"Bearer {DEFAULT_API_KEY}".encode()}
ANTHROPIC_HEADERS = {b"x-api-key": DEFAULT_API_KEY.encode(), b"anthropic-version": b"2023-06-01"}
MESSAGES = [{"role": "user", "content": "<answer_a>\nx\n</answer_a>\n<answer_b>\ny\n</answer_b>"}]


def openai_error(
    message: str,
    param: str | None = None,
    code: str | None = None,
    type_: str = "invalid_request_error",
) -> dict[str, Any]:
    """The ``error`` object of an OpenAI error body, its keys in the API's order."""
    return {"message": message, "type": type_, "param": param, "code": code}


def post(app: Any, path: str, headers: dict[bytes, bytes], body: dict[str, Any]) -> Any:
    status, payload, _ = asyncio.run(app.handle("POST", path, headers, json.dumps(body).encode()))
    return status, json.loads(payload)


def test_reasoning_model_refuses_max_tokens_with_the_real_body() -> None:
    app = OpenAIEmulator(Script())
    status, body = post(
        app, "/v1/chat/completions", OPENAI_HEADERS,
        {"model": "gpt-5-mini", "messages": MESSAGES, "max_tokens": 8},
    )  # fmt: skip
    assert status == 400
    assert body == {
        "error": openai_error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            param="max_tokens",
            code="unsupported_parameter",
        )
    }


def test_reasoning_model_refuses_temperature_zero() -> None:
    app = OpenAIEmulator(Script())
    status, body = post(
        app, "/v1/chat/completions", OPENAI_HEADERS,
        {"model": "o3", "messages": MESSAGES, "max_completion_tokens": 500, "temperature": 0},
    )  # fmt: skip
    assert status == 400
    assert body["error"]["message"] == (
        "Unsupported value: 'temperature' does not support 0 with this model. "
        "Only the default (1) value is supported."
    )
    assert body["error"]["code"] == "unsupported_value"
    assert app.stats()["refused:temperature"] == 1


def test_reasoning_tokens_fill_a_short_cap_and_leave_no_text() -> None:
    app = OpenAIEmulator(Script())
    status, body = post(
        app, "/v1/chat/completions", OPENAI_HEADERS,
        {"model": "gpt-5", "messages": MESSAGES, "max_completion_tokens": 16},
    )  # fmt: skip
    assert status == 200
    choice = body["choices"][0]
    assert (choice["message"]["content"], choice["finish_reason"]) == ("", "length")
    assert body["usage"]["completion_tokens"] == 16
    assert body["usage"]["completion_tokens_details"]["reasoning_tokens"] == 16


def test_chat_model_takes_what_reasoning_models_refuse() -> None:
    app = OpenAIEmulator(Script())
    status, body = post(
        app, "/v1/chat/completions", OPENAI_HEADERS,
        {"model": "gpt-4o", "messages": MESSAGES, "max_tokens": 8, "temperature": 0,
         "logprobs": True, "top_logprobs": 5},
    )  # fmt: skip
    assert status == 200
    assert body["choices"][0]["logprobs"]["content"]
    assert body["usage"]["completion_tokens_details"]["reasoning_tokens"] == 0


def test_anthropic_requires_its_version_header() -> None:
    app = AnthropicEmulator(Script())
    headers = {b"x-api-key": DEFAULT_API_KEY.encode()}
    status, body = post(
        app, "/v1/messages", headers,
        {"model": "claude-sonnet-4-5", "max_tokens": 8, "messages": MESSAGES},
    )  # fmt: skip
    assert status == 400
    assert body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "anthropic-version: header is required",
        },
    }


def test_anthropic_thinking_rules() -> None:
    app = AnthropicEmulator(Script())
    base = {"model": "claude-sonnet-4-5", "messages": MESSAGES}
    cases = [
        ({"max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 512}}, "1024"),
        (
            {"max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 2048}},
            "`max_tokens` must be greater than `thinking.budget_tokens`",
        ),
        (
            {"max_tokens": 4096, "temperature": 0,
             "thinking": {"type": "enabled", "budget_tokens": 2048}},
            "`temperature` may only be set to 1 when thinking is enabled",
        ),
    ]  # fmt: skip
    for extra, fragment in cases:
        status, body = post(app, "/v1/messages", ANTHROPIC_HEADERS, {**base, **extra})
        assert status == 400
        assert body["type"] == "error"
        assert body["error"]["type"] == "invalid_request_error"
        assert fragment in body["error"]["message"]
    status, body = post(
        app, "/v1/messages", ANTHROPIC_HEADERS,
        {**base, "max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 2048}},
    )  # fmt: skip
    assert status == 200
    assert [b["type"] for b in body["content"]] == ["thinking", "text"]
    assert body["usage"]["output_tokens"] == 1500 + 1


def test_anthropic_cache_needs_the_minimum_length() -> None:
    app = AnthropicEmulator(Script())
    short = [{"type": "text", "text": "brief rules", "cache_control": {"type": "ephemeral"}}]
    long = [{"type": "text", "text": "rule " * 2100, "cache_control": {"type": "ephemeral"}}]
    usages = []
    for system in (short, long, long):
        status, body = post(
            app, "/v1/messages", ANTHROPIC_HEADERS,
            {"model": "claude-3-5-haiku-latest", "max_tokens": 8, "system": system,
             "messages": MESSAGES},
        )  # fmt: skip
        assert status == 200
        usages.append(body["usage"])
    assert (usages[0]["cache_creation_input_tokens"], usages[0]["cache_read_input_tokens"]) == (
        0,
        0,
    )
    assert usages[1]["cache_creation_input_tokens"] == 2100  # Haiku 3.5's minimum is 2048
    assert usages[2]["cache_read_input_tokens"] == 2100
    assert usages[2]["input_tokens"] == usages[1]["input_tokens"]


def test_o3_mini_refuses_temperature_even_at_one() -> None:
    app = OpenAIEmulator(Script())
    status, body = post(
        app, "/v1/chat/completions", OPENAI_HEADERS,
        {"model": "o3-mini", "messages": MESSAGES, "max_completion_tokens": 500, "temperature": 1},
    )  # fmt: skip
    assert status == 400
    assert body["error"] == openai_error(
        "Unsupported parameter: 'temperature' is not supported with this model.",
        param="temperature",
        code="unsupported_parameter",
    )


def test_early_faults_come_before_the_rules_in_arrival_order() -> None:
    app = OpenAIEmulator(Script(), early_faults=["server_error", "reset", None])
    refused = {"model": "gpt-5-mini", "messages": MESSAGES, "max_tokens": 8}
    status, body = post(app, "/v1/chat/completions", OPENAI_HEADERS, refused)
    assert status == 500  # before the request's max_tokens is read
    assert body["error"]["type"] == "server_error"
    assert body["error"]["message"].startswith("The server had an error while processing")
    raw = asyncio.run(
        app.handle("POST", "/v1/chat/completions", OPENAI_HEADERS, json.dumps(refused).encode())
    )
    assert raw[0] == 0  # ABORT: the connection is reset, no reply
    assert post(app, "/v1/chat/completions", OPENAI_HEADERS, refused)[0] == 400  # None: as usual
    assert post(app, "/v1/chat/completions", OPENAI_HEADERS, refused)[0] == 400  # used up
    assert app.stats()["early:server_error"] == app.stats()["early:reset"] == 1
    assert app.stats()["refused:max_tokens"] == 2
    assert app.wait_for("early:reset", 1, timeout=0.0)  # already counted: no wait
    assert not app.wait_for("early:hang", 1, timeout=0.0)


def chat(app: Any, **body: Any) -> Any:
    return post(app, "/v1/chat/completions", OPENAI_HEADERS, {"messages": MESSAGES, **body})


def test_reasoning_efforts_follow_the_model() -> None:
    # gpt-5.1 takes none..high (default none), gpt-5.2 adds xhigh, gpt-5 has minimal
    # but no none (QA39 #16).
    app = OpenAIEmulator(Script())
    status, body = chat(app, model="gpt-5.1", max_completion_tokens=500, reasoning_effort="minimal")
    assert status == 400
    assert body["error"] == openai_error(
        "Unsupported value: 'reasoning_effort' does not support 'minimal' with "
        "this model. Supported values are: 'none', 'low', 'medium', and 'high'.",
        param="reasoning_effort",
        code="unsupported_value",
    )
    assert chat(app, model="gpt-5", max_completion_tokens=500, reasoning_effort="none")[0] == 400
    assert chat(app, model="gpt-5.1", max_completion_tokens=500, reasoning_effort="xhigh")[0] == 400
    for model, effort in (("gpt-5.1", "none"), ("gpt-5.2", "xhigh"), ("gpt-5-mini", "minimal")):
        status, body = chat(app, model=model, max_completion_tokens=4000, reasoning_effort=effort)
        assert status == 200, (model, effort)
    status, body = chat(app, model="gpt-5.1", max_completion_tokens=8)
    assert status == 200  # its default is none: no reasoning eats the short cap
    assert body["usage"]["completion_tokens_details"]["reasoning_tokens"] == 0


def test_o1_mini_refuses_a_system_message_and_reasoning_effort() -> None:
    app = OpenAIEmulator(Script())
    system = [{"role": "system", "content": "Be fair."}, *MESSAGES]
    status, body = chat(app, model="o1-mini", messages=system, max_completion_tokens=500)
    assert status == 400
    assert body["error"] == openai_error(
        "Unsupported value: 'messages[0].role' does not support 'system' with this model.",
        param="messages[0].role",
        code="unsupported_value",
    )
    status, body = chat(app, model="o1-mini", max_completion_tokens=500, reasoning_effort="low")
    assert (status, body["error"]["param"]) == (400, "reasoning_effort")
    assert chat(app, model="o1-mini", max_completion_tokens=500)[0] == 200


def test_responses_only_models_are_not_served_by_chat_completions() -> None:
    app = OpenAIEmulator(Script())
    status, body = chat(app, model="o1-pro", max_completion_tokens=500)
    assert status == 404
    assert body["error"] == openai_error(
        "This is not a chat model and thus not supported in the "
        "v1/chat/completions endpoint. Did you mean to use v1/completions?",
        param="model",
    )
    for model in ("o3-pro", "gpt-5-pro", "gpt-5.2-pro", "gpt-5-codex"):
        status, body = chat(app, model=model, max_completion_tokens=500)
        assert status == 404
        assert body["error"]["message"] == (
            "This model is only supported in v1/responses and not in v1/chat/completions."
        )


def test_o4_mini_refuses_logprobs_with_a_403_and_no_param() -> None:
    # Also under a deployment alias the emulator serves as o4-mini (QA39 #27).
    app = OpenAIEmulator(Script(), aliases={"acme-o4": "o4-mini"})
    for model in ("o4-mini", "acme-o4"):
        status, body = chat(
            app, model=model, max_completion_tokens=500, logprobs=True, top_logprobs=5
        )
        assert status == 403
        assert body["error"] == openai_error(
            "You are not allowed to request logprobs from this model"
        )
    assert app.stats()["refused:logprobs"] == 2


def test_anthropic_refuses_max_tokens_above_the_model_ceiling() -> None:
    app = AnthropicEmulator(Script())
    status, body = post(
        app, "/v1/messages", ANTHROPIC_HEADERS,
        {"model": "claude-sonnet-4-5-20250929", "max_tokens": 101024, "messages": MESSAGES,
         "thinking": {"type": "enabled", "budget_tokens": 100000}},
    )  # fmt: skip
    assert status == 400
    assert body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "max_tokens: 101024 > 64000, which is the maximum allowed number of "
            "output tokens for claude-sonnet-4-5-20250929",
        },
    }
    base = {"messages": MESSAGES}
    assert post(app, "/v1/messages", ANTHROPIC_HEADERS,
                {**base, "model": "claude-opus-4-1", "max_tokens": 32001})[0] == 400  # fmt: skip
    assert post(app, "/v1/messages", ANTHROPIC_HEADERS,
                {**base, "model": "claude-opus-4-1", "max_tokens": 32000})[0] == 200  # fmt: skip
