"""The HTTP backends against the faithful emulators: reasoning models, thinking, caching.

Each test counts what the emulator saw: a model in the capability table never gets a
refused request, an unknown one a few (once per run, not per call), and no reply
ends empty for want of room.
"""

from __future__ import annotations

import asyncio

import pytest

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import (
    AuthenticationError,
    ConfigError,
    CutAtCap,
    FatalBackendError,
    RequestRejected,
)
from fairjudge.backends._anthropic import AnthropicBackend, cache_point
from fairjudge.backends._http_errors import error_from_status
from fairjudge.backends._openai import OpenAIBackend
from tests.backends._calls import PROMPT, SYSTEM, run, spec_for
from tests.server import Script
from tests.server._anthropic_emulator import THINKING_TOKENS
from tests.server._openai_emulator import (
    REASONING_TOKENS,
    EmulatorServer,
    OpenAIEmulator,
    as_the_api,
)

LONG_SYSTEM = SYSTEM + " " + " ".join(f"rule{i}." for i in range(1300))
"""A system prompt of 1300+ words (tokens, to the emulators), long enough to cache."""


@pytest.fixture
def openai_api(openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> EmulatorServer:
    """The emulator standing in for the OpenAI API itself, where the table's refusals apply."""
    return as_the_api(openai_emulator, monkeypatch)


@pytest.fixture
def anthropic_api(
    anthropic_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch
) -> EmulatorServer:
    """The Anthropic emulator standing in for Anthropic's API, where its table's refusals apply."""
    return as_the_api(anthropic_emulator, monkeypatch, "anthropic")


def openai(server: EmulatorServer, model: str, **options: object) -> OpenAIBackend:
    return OpenAIBackend(model, base_url=server.base_url, **options)  # type: ignore[arg-type]


def anthropic(server: EmulatorServer, model: str, **options: object) -> AnthropicBackend:
    url = server.base_url.removesuffix("/v1")
    return AnthropicBackend(model, base_url=url, **options)  # type: ignore[arg-type]


def calls(
    backend: OpenAIBackend | AnthropicBackend, specs: list[CallSpec]
) -> list[Completion | BaseException]:
    async def go() -> list[Completion | BaseException]:
        try:
            return await asyncio.gather(*map(backend.complete, specs), return_exceptions=True)
        finally:
            await backend.aclose()

    return run(go())


def distinct(
    backend: OpenAIBackend | AnthropicBackend, n: int, system: str = SYSTEM
) -> list[CallSpec]:
    """``n`` different calls (the question differs), with the backend's own parameters."""
    return [
        spec_for(backend, prompt=PROMPT.replace("2 + 2?", f"2 + {i}?"), system=system)
        for i in range(n)
    ]


@pytest.mark.parametrize("model", ["gpt-5-mini", "o3-mini", "o4-mini"])
def test_reasoning_model_in_the_table_is_never_refused(
    openai_emulator: EmulatorServer, model: str
) -> None:
    backend = openai(openai_emulator, model)
    spec = spec_for(backend)
    body = backend.request_body(spec)
    assert "max_tokens" not in body
    assert body["max_completion_tokens"] == 8 + 8192  # the label, and room to reason
    assert "temperature" not in body  # it samples at 1 only; o3-mini refuses even 1
    assert backend.fixed_temperature == 1
    assert "logprobs" not in body

    done = calls(backend, distinct(backend, 8))

    assert all(isinstance(c, Completion) and c.text == "A" for c in done)
    assert openai_emulator.count("refused") == 0
    assert openai_emulator.count("empty_length") == 0
    first = done[0]
    assert isinstance(first, Completion)
    # Reasoning tokens are billed as output: 256 hidden (medium) and the 1-word label.
    assert first.output_tokens == REASONING_TOKENS["medium"] + 1
    assert first.top_logprobs is None


def test_chat_model_keeps_logprobs_and_refuses_no_request(openai_emulator: EmulatorServer) -> None:
    backend = openai(openai_emulator, "gpt-4o-mini")
    body = backend.request_body(spec_for(backend))
    assert body["max_tokens"] == 8
    assert body["temperature"] == 0
    assert body["logprobs"] is True

    (done,) = calls(backend, distinct(backend, 1))

    assert isinstance(done, Completion)
    assert done.top_logprobs is not None
    assert done.output_tokens == 1
    assert openai_emulator.count("refused") == 0


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_unknown_reasoning_model_is_learned_once_for_the_run(
    openai_emulator: EmulatorServer, transport: str
) -> None:
    backend = openai(openai_emulator, "acme-reasoner", transport=transport)
    assert backend.transport == transport
    specs = distinct(backend, 12)

    done = calls(backend, specs)

    assert all(isinstance(c, Completion) and c.text == "A" for c in done), done
    # One refusal per parameter the model does not take, for the whole run: the
    # first call probes alone while the other eleven wait.
    assert openai_emulator.count("refused:max_tokens") == 1
    assert openai_emulator.count("refused:temperature") == 1
    assert openai_emulator.count("refused:logprobs") == 1
    assert openai_emulator.count("refused") == backend.refused == 3
    assert openai_emulator.count("empty_length") == 0
    assert sum(c.requests for c in done if isinstance(c, Completion)) == 12 + 3
    changes = backend.changes
    assert any("max_completion_tokens" in line and "room to reason" in line for line in changes)
    body = backend.request_body(specs[0])
    # What goes on the wire now, while the key keeps what was asked for.
    assert body["max_completion_tokens"] == 8 + 8192
    assert {"max_tokens", "temperature", "logprobs", "top_logprobs"}.isdisjoint(body)
    assert specs[0].params["max_tokens"] == 8


def test_effort_is_checked_before_any_call(openai_api: EmulatorServer) -> None:
    with pytest.raises(ConfigError, match=r"gpt-4o takes no reasoning_effort"):
        openai(openai_api, "gpt-4o", reasoning_effort="low")
    with pytest.raises(ConfigError, match=r"it takes low, medium, high") as refused:
        openai(openai_api, "o3-mini", reasoning_effort="minimal")
    # o3-mini is a reasoning model: the fix is another effort, not another kind of model
    assert "pick a reasoning model" not in str(refused.value)
    assert "give one of those, or gpt-5, gpt-5-mini or gpt-5-nano for minimal" in str(refused.value)
    with pytest.raises(ConfigError, match=r"one of none, minimal, low, medium, high, xhigh"):
        openai(openai_api, "gpt-5", reasoning_effort="extreme")
    assert openai_api.count("requests") == 0


def test_effort_sets_the_room(openai_emulator: EmulatorServer) -> None:
    backend = openai(openai_emulator, "gpt-5-nano", reasoning_effort="minimal")
    body = backend.request_body(spec_for(backend, label_only=False))
    assert body["reasoning_effort"] == "minimal"
    assert body["max_completion_tokens"] == 1024 + 1024
    (done,) = calls(backend, [spec_for(backend)])
    assert isinstance(done, Completion)
    assert done.output_tokens == 1  # minimal effort: no reasoning tokens here


def test_an_effort_the_unknown_model_refuses_stops_the_run(
    openai_emulator: EmulatorServer,
) -> None:
    # acme-reasoner is served as an o-series model: no 'minimal'. The user asked for
    # it, so it is not dropped: every call would be refused, so the run stops.
    backend = openai(openai_emulator, "acme-reasoner", reasoning_effort="minimal")
    (done,) = calls(backend, [spec_for(backend)])
    assert isinstance(done, FatalBackendError)
    assert "reasoning_effort" in str(done)


def test_empty_reply_at_the_cap_says_what_to_raise_and_stops_after_three(
    openai_emulator: EmulatorServer,
) -> None:
    backend = openai(openai_emulator, "o4-mini", reasoning_effort="high", max_tokens=200)
    specs = distinct(backend, 5)

    async def one_by_one() -> list[BaseException]:
        errors: list[BaseException] = []
        try:
            for spec in specs:
                try:
                    await backend.complete(spec)
                except (RequestRejected, FatalBackendError) as exc:
                    errors.append(exc)
        finally:
            await backend.aclose()
        return errors

    errors = run(one_by_one())

    assert [type(e) for e in errors] == [CutAtCap] * 3 + [FatalBackendError] * 2
    assert "raise max_tokens (now 200 tokens) or lower reasoning_effort" in str(errors[0])
    assert errors[0].params == ("max_tokens", "reasoning_effort")
    # Each cut reply is billed: the error carries its usage, the whole cap.
    assert [e.billed.output_tokens for e in errors[:3]] == [200] * 3  # type: ignore[attr-defined]
    assert "stopped after 3 replies" in str(errors[3])
    assert [e.requests for e in errors[3:]] == [0, 0]  # not sent: no request to count
    assert openai_emulator.count("empty_length") == 3
    assert openai_emulator.count("requests") == 3  # none sent after the third


def test_openai_prefix_cache_is_read_on_the_second_call(openai_emulator: EmulatorServer) -> None:
    backend = openai(openai_emulator, "gpt-5-mini")
    specs = distinct(backend, 2, system=LONG_SYSTEM)

    async def in_order() -> None:
        try:
            for spec in specs:
                await backend.complete(spec)
        finally:
            await backend.aclose()

    run(in_order())
    # The system prompt (the shared prefix) comes first, so the second call reads
    # the first 1024 + 128k tokens of it from the provider's cache.
    assert openai_emulator.count("cached_tokens") == 1280


def test_thinking_judge(anthropic_emulator: EmulatorServer) -> None:
    backend = anthropic(anthropic_emulator, "claude-sonnet-4-5", thinking_budget=2048)
    spec = spec_for(backend)
    body = backend.request_body(spec)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 2048 + 1024
    assert "temperature" not in body  # thinking samples at the default, 1
    assert backend.fixed_temperature == 1

    (done,) = calls(backend, [spec])

    assert isinstance(done, Completion)
    assert done.text == "A"  # the thinking block is not the answer
    assert done.output_tokens == THINKING_TOKENS + 1
    assert anthropic_emulator.count("refused") == 0


def test_thinking_budget_is_checked_before_any_call(anthropic_api: EmulatorServer) -> None:
    with pytest.raises(ConfigError, match=r"at least 1024"):
        anthropic(anthropic_api, "claude-sonnet-4-5", thinking_budget=512)
    with pytest.raises(ConfigError, match=r"must be below max_tokens \(2048\)"):
        anthropic(anthropic_api, "claude-sonnet-4-5", thinking_budget=2048, max_tokens=2048)
    with pytest.raises(ConfigError, match=r"has no extended thinking"):
        anthropic(anthropic_api, "claude-3-5-haiku-latest", thinking_budget=2048)
    assert anthropic_api.count("requests") == 0


def test_anthropic_caches_a_long_system_prompt(anthropic_emulator: EmulatorServer) -> None:
    backend = anthropic(anthropic_emulator, "claude-sonnet-4-5")
    specs = distinct(backend, 3, system=LONG_SYSTEM)
    assert isinstance(backend.request_body(specs[0])["system"], list)

    async def in_order() -> list[Completion]:
        try:
            return [await backend.complete(spec) for spec in specs]
        finally:
            await backend.aclose()

    done = run(in_order())

    words = len(LONG_SYSTEM.split())
    assert anthropic_emulator.count("cache_write_tokens") == words
    assert anthropic_emulator.count("cache_read_tokens") == 2 * words
    assert [c.text for c in done] == ["A"] * 3


def test_cache_point_marks_only_a_prefix_long_enough() -> None:
    rubric = "Score it. " * 600 + "<question>\nQ\n</question>"
    assert cache_point("short", rubric, 1024) == rubric.index("<question>")
    assert cache_point("short", rubric, 4096) is None  # too short for Opus 4.5
    assert cache_point("x" * 4096, None, 1024) == 0
    assert cache_point("", "no item tags", 1) is None


def test_anthropic_caches_a_rubric_before_the_item(anthropic_emulator: EmulatorServer) -> None:
    backend = anthropic(anthropic_emulator, "claude-opus-4-1")
    rubric = " ".join(f"criterion{i}" for i in range(1100)) + "\n\n"
    specs = [
        spec_for(backend, prompt=rubric + PROMPT.split("\n\n", 1)[1].replace("2?", f"{i}?"))
        for i in range(2)
    ]
    content = backend.request_body(specs[0])["messages"][0]["content"]
    assert content[0]["cache_control"] == {"type": "ephemeral"}
    assert content[1]["text"].startswith("<question>")

    async def in_order() -> None:
        try:
            for spec in specs:
                await backend.complete(spec)
        finally:
            await backend.aclose()

    run(in_order())
    assert anthropic_emulator.count("cache_read_tokens") > 1100
    assert anthropic_emulator.count("refused") == 0


# QA39 #16: gpt-5.1 takes none (its default) and refuses minimal; gpt-5.2 takes xhigh.
@pytest.mark.parametrize(("model", "effort"), [("gpt-5.1", "none"), ("gpt-5.2", "xhigh")])
def test_gpt_5_1_and_later_efforts_run_unrefused(
    openai_emulator: EmulatorServer, model: str, effort: str
) -> None:
    backend = openai(openai_emulator, model, reasoning_effort=effort)
    done = calls(backend, distinct(backend, 3))
    assert all(isinstance(c, Completion) and c.text == "A" for c in done), done
    assert openai_emulator.count("refused") == 0


def test_gpt_5_1_default_effort_is_none_and_its_room_small(
    openai_emulator: EmulatorServer,
) -> None:
    backend = openai(openai_emulator, "gpt-5.1")
    body = backend.request_body(spec_for(backend))
    assert "reasoning_effort" not in body  # the server's default: none
    assert body["max_completion_tokens"] == 8 + 256  # not medium's 8 + 8192
    (done,) = calls(backend, [spec_for(backend)])
    assert isinstance(done, Completion)
    assert done.output_tokens == 1  # no reasoning tokens at none


def test_gpt_5_1_minimal_is_refused_before_any_call(openai_api: EmulatorServer) -> None:
    with pytest.raises(ConfigError, match=r"it takes none, low, medium, high") as refused:
        openai(openai_api, "gpt-5.1", reasoning_effort="minimal")
    assert "or gpt-5, gpt-5-mini or gpt-5-nano for minimal" in str(refused.value)
    with pytest.raises(ConfigError, match=r"or gpt-5.1 or later for none"):
        openai(openai_api, "gpt-5-mini", reasoning_effort="none")
    with pytest.raises(ConfigError, match=r"or gpt-5.2 or later for xhigh"):
        openai(openai_api, "gpt-5.1", reasoning_effort="xhigh")
    assert openai_api.count("requests") == 0


# QA39 #17: o1-mini refuses a system message; its text opens the user turn instead.
@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_o1_mini_runs_with_the_system_text_in_the_user_turn(
    openai_emulator: EmulatorServer, transport: str
) -> None:
    backend = openai(openai_emulator, "o1-mini", transport=transport)
    spec = spec_for(backend)
    body = backend.request_body(spec)
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert body["messages"][0]["content"] == f"{SYSTEM}\n\n{PROMPT}"
    assert spec.messages[0] == ("system", SYSTEM)  # the key keeps the prompt as rendered
    done = calls(backend, distinct(backend, 3))
    assert all(isinstance(c, Completion) and c.text == "A" for c in done), done
    assert openai_emulator.count("refused") == 0


def test_o1_mini_reasoning_effort_is_refused_before_any_call(openai_api: EmulatorServer) -> None:
    with pytest.raises(ConfigError, match=r"o1-mini and o1-preview take no reasoning_effort"):
        openai(openai_api, "o1-mini", reasoning_effort="low")
    assert openai_api.count("requests") == 0


# QA39 #18a: the Responses-only models: chat completions answers 404 for each.
@pytest.mark.parametrize("model", ["o1-pro", "o3-pro", "gpt-5-pro"])
def test_responses_only_model_is_refused_before_any_call(
    openai_api: EmulatorServer, model: str
) -> None:
    with pytest.raises(ConfigError, match=r"Responses API only \(v1/responses\)"):
        openai(openai_api, model)
    assert openai_api.count("requests") == 0


# QA39 #27 and #4: a deployment alias of o4-mini refuses logprobs with a 403 and no
# param; the run learns to drop the pair (one line), and no key is blamed.
@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_an_alias_refusing_logprobs_with_a_403_is_learned(
    monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    emulator = OpenAIEmulator(Script(), aliases={"acme-o4": "o4-mini"})
    with EmulatorServer(emulator) as server:
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        backend = openai(server, "acme-o4", transport=transport)
        done = calls(backend, distinct(backend, 6))
        assert all(isinstance(c, Completion) and c.text == "A" for c in done), done
        assert server.count("refused:logprobs") == 1
        assert not backend.sends_logprobs
        (line,) = [c for c in backend.changes if "logprobs" in c]
        assert line.startswith("refused 'logprobs' and 'top_logprobs' (HTTP 403: You are not")
        assert line.endswith("no longer sending them")
        assert "stopped sending logprobs and top_logprobs" in backend.lessons


def test_a_403_about_a_parameter_does_not_blame_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K", "sk-set")
    error = error_from_status(
        403, "You are not allowed to request logprobs from this model",
        backend="openai", where="model 'x'", key_env="OPENAI_API_KEY",
    )  # fmt: skip
    assert not isinstance(error, AuthenticationError)
    assert isinstance(error, FatalBackendError)
    assert "check the key" not in str(error)
    plain = error_from_status(403, "Forbidden", backend="openai", where="x", key_env="K")
    assert isinstance(plain, AuthenticationError)
    assert "check the key in $K" in str(plain)


# QA39 #2: a cap above the model's output ceiling, which the API refuses (400).
def test_anthropic_cap_above_the_ceiling_is_refused_before_any_call(
    anthropic_api: EmulatorServer,
) -> None:
    with pytest.raises(ConfigError, match=r"give a budget of at most 62976"):
        anthropic(anthropic_api, "claude-sonnet-4-5", thinking_budget=100_000)
    with pytest.raises(ConfigError, match=r"writes at most 32000 output tokens"):
        anthropic(anthropic_api, "claude-opus-4-1", max_tokens=40_000)
    with pytest.raises(ConfigError, match=r"max_tokens 64001 is above"):
        anthropic(anthropic_api, "claude-haiku-4-5", thinking_budget=2048, max_tokens=64_001)
    assert anthropic_api.count("requests") == 0
    # At the ceiling: sent, and taken.
    backend = anthropic(anthropic_api, "claude-opus-4-1", thinking_budget=30_976)
    (done,) = calls(backend, [spec_for(backend)])
    assert isinstance(done, Completion)
    assert anthropic_api.count("refused") == 0


# Stop 41 (closing_40 item 2): the table's refusals are the OpenAI API's. At another
# server each request goes, and that server's own refusal, if any, is the call's.
@pytest.mark.parametrize(
    ("model", "effort", "refusal"),
    [
        ("gpt-4o", "low", "Unsupported parameter: 'reasoning_effort' is not supported"),
        ("o3-mini", "minimal", "'reasoning_effort' does not support 'minimal'"),
        ("gpt-5.1", "minimal", "'reasoning_effort' does not support 'minimal'"),
        ("o1-mini", "low", "Unsupported parameter: 'reasoning_effort' is not supported"),
        ("gpt-5.2-chat-latest", "high", "Supported values are: 'medium'."),
        ("o3-pro", None, "only supported in v1/responses"),
    ],
)
def test_at_another_server_its_own_refusal_stands(
    openai_emulator: EmulatorServer, model: str, effort: str | None, refusal: str
) -> None:
    backend = openai(openai_emulator, model, reasoning_effort=effort)  # not refused here
    assert not backend.at_vendor
    (done,) = calls(backend, [spec_for(backend)])
    assert isinstance(done, FatalBackendError)  # every call would meet it: the run stops
    assert refusal in str(done)
    assert openai_emulator.count("refused") == done.requests == 1  # sent once, refused there


def test_another_server_may_take_what_the_api_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server serving another model under an OpenAI name (a LiteLLM alias) takes what
    the OpenAI model would not; refused before any call, the user had no way round."""
    aliases = {"o3-mini": "gpt-5-mini", "gpt-4o": "acme-reasoner", "o1-pro": "o3"}
    emulator = OpenAIEmulator(Script(), aliases=aliases, reasoning_models=("acme-reasoner",))
    with EmulatorServer(emulator) as server:
        assert server.api_key is not None
        monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
        for model, effort in (("o3-mini", "minimal"), ("gpt-4o", "high"), ("o1-pro", "low")):
            backend = openai(server, model, reasoning_effort=effort)
            done = calls(backend, distinct(backend, 2))
            assert all(isinstance(c, Completion) and c.text == "A" for c in done), (model, done)
        # gpt-4o is sent as the table's chat model: the alias (a reasoning model) refuses
        # max_tokens, temperature and logprobs once each, learned as for an unknown model.
        assert server.count("refused:reasoning_effort") == 0


# What the table adapts is sent at any server: a proxy to the real model (the emulator
# keeps its rules) answers every call, at the API and at another server alike.
@pytest.mark.parametrize("at_api", [True, False])
@pytest.mark.parametrize("model", ["gpt-5-mini", "o3-mini", "o1-mini", "gpt-5.1-chat-latest"])
def test_adaptations_are_sent_at_any_server(
    openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, model: str, at_api: bool
) -> None:
    if at_api:
        as_the_api(openai_emulator, monkeypatch)
    backend = openai(openai_emulator, model)
    assert backend.at_vendor is at_api
    body = backend.request_body(spec_for(backend))
    assert "max_completion_tokens" in body
    assert {"max_tokens", "temperature", "logprobs"}.isdisjoint(body)
    assert body["messages"][0]["role"] == ("user" if model == "o1-mini" else "system")
    done = calls(backend, distinct(backend, 3))
    assert all(isinstance(c, Completion) and c.text == "A" for c in done), done
    assert openai_emulator.count("refused") == 0


# gpt-5.1-chat-latest and gpt-5.2-chat-latest reason, and take reasoning_effort medium
# only (QA: the table read them as gpt-5.1 and gpt-5.2, defaulting to none).
@pytest.mark.parametrize("model", ["gpt-5.1-chat-latest", "gpt-5.2-chat-latest"])
def test_gpt_5_x_chat_takes_medium_only(openai_api: EmulatorServer, model: str) -> None:
    for effort in ("none", "low", "high", "xhigh"):
        with pytest.raises(ConfigError, match=rf"openai/{model} takes no reasoning_effort"):
            openai(openai_api, model, reasoning_effort=effort)
    assert openai_api.count("requests") == 0
    backend = openai(openai_api, model)
    body = backend.request_body(spec_for(backend))
    assert "reasoning_effort" not in body
    assert body["max_completion_tokens"] == 8 + 8192  # medium's room, not none's 256
    medium = openai(openai_api, model, reasoning_effort="medium")
    done = [*calls(backend, distinct(backend, 2)), *calls(medium, distinct(medium, 2))]
    assert all(isinstance(c, Completion) and c.text == "A" for c in done), done
    assert openai_api.count("refused") == 0
