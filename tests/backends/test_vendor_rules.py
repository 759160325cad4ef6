"""What the capability tables refuse at the vendor's API, and what they send elsewhere.

gpt-5.1 and later take temperature, top_p and logprobs at ``reasoning_effort`` none
only (their default) and refuse any of them at another effort; a temperature given to
the library for a model that samples at 1 only is refused at the OpenAI API, as the
command line refuses it, and sent as asked at another server; Anthropic's refusals
hold at api.anthropic.com only (DeepSeek, Moonshot and LiteLLM serve /v1/messages
under other names, with their own limits). Each against the faithful emulators.
"""

from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path

import pytest

from fairjudge._call import Completion
from fairjudge._errors import ConfigError, RequestRejected
from fairjudge.backends import capabilities_for
from fairjudge.judges import BackendOptions, fixes_temperature, resolve_judge
from tests.backends._calls import spec_for
from tests.backends.test_reasoning_backends import anthropic, calls, distinct, openai
from tests.server import Script
from tests.server._openai_emulator import EmulatorServer, OpenAIEmulator, as_the_api

NONE_MODELS = ["gpt-5.1", "gpt-5.2", "gpt-5.2-2025-12-11"]


@pytest.fixture(params=["api", "another server"])
def where(
    request: pytest.FixtureRequest, openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch
) -> EmulatorServer:
    """The emulator as the OpenAI API itself, and as another server: adaptations hold at both."""
    if request.param == "api":
        as_the_api(openai_emulator, monkeypatch)
    return openai_emulator


# --- gpt-5.1 and later: sampling at none only -------------------------------------------


@pytest.mark.parametrize("model", NONE_MODELS)
def test_at_none_temperature_0_and_logprobs_are_sent_and_taken(
    where: EmulatorServer, model: str
) -> None:
    """At none (their default) they take a temperature and logprobs: a judge is as
    deterministic as a chat model, and soft/logprob resolution has the label's odds."""
    for effort in (None, "none"):
        backend = openai(where, model, reasoning_effort=effort)
        assert backend.fixed_temperature is None  # not a sample: rounds are not needed
        assert backend.sends_logprobs
        body = backend.request_body(spec_for(backend))
        assert body["temperature"] == 0
        assert body["logprobs"] is True
        assert body["top_logprobs"] == 20
        assert body["max_completion_tokens"] == 8 + 256  # none's room, as before
        done = calls(backend, distinct(backend, 3))
        assert all(isinstance(c, Completion) and c.top_logprobs for c in done), done
    assert where.count("refused") == 0


@pytest.mark.parametrize("model", NONE_MODELS)
@pytest.mark.parametrize("effort", ["low", "medium", "high"])
def test_at_another_effort_no_temperature_or_logprobs_is_sent(
    where: EmulatorServer, model: str, effort: str
) -> None:
    backend = openai(where, model, reasoning_effort=effort)
    assert backend.fixed_temperature == 1.0
    assert not backend.sends_logprobs
    body = backend.request_body(spec_for(backend))
    assert {"temperature", "top_p", "logprobs", "top_logprobs"}.isdisjoint(body)
    done = calls(backend, distinct(backend, 3))
    assert all(isinstance(c, Completion) for c in done), done
    assert where.count("refused") == 0


def test_the_emulator_refuses_sampling_fields_away_from_none() -> None:
    emulator = OpenAIEmulator(Script())
    base = {"messages": [{"role": "user", "content": "hi"}], "max_completion_tokens": 300}
    for field, value in (("temperature", 1), ("temperature", 0), ("top_p", 1), ("logprobs", True)):
        for model in NONE_MODELS:
            low = {**base, "model": model, "reasoning_effort": "low", field: value}
            refused = emulator.refusal(low)
            assert refused is not None, (model, field)
            error = json.loads(refused[1])["error"]
            assert error == {
                "message": f"Unsupported parameter: '{field}' is not supported with this model.",
                "type": "invalid_request_error",
                "param": field,
                "code": None,
            }
            asked = {**base, "model": model, field: value}  # none, the default: taken
            assert emulator.refusal(asked) is None
            assert emulator.refusal({**asked, "reasoning_effort": "none"}) is None
    # gpt-5 (minimal..high) keeps its own rule: temperature 1 only.
    assert emulator.refusal({**base, "model": "gpt-5", "temperature": 1}) is None
    assert emulator.refusal({**base, "model": "gpt-5", "temperature": 0}) is not None


def test_a_temperature_at_none_is_allowed_and_refused_at_another_effort_before_any_call(
    openai_api: EmulatorServer, tmp_path: Path
) -> None:
    backend = openai(openai_api, "gpt-5.2", temperature=0.7)  # none, the default: taken
    assert backend.request_body(spec_for(backend))["temperature"] == 0.7
    with pytest.raises(ConfigError, match=r"openai/gpt-5.1 samples at temperature 1 only") as e:
        openai(openai_api, "gpt-5.1", reasoning_effort="low", temperature=0.7)
    assert str(e.value).endswith(
        "drop it, or give reasoning_effort none (the one effort that takes a temperature)"
    ), str(e.value)
    assert openai_api.count("requests") == 0
    # The command line's rule, by effort: none takes --temperature, low refuses it.
    assert not fixes_temperature("openai/gpt-5.1", BackendOptions())
    assert fixes_temperature("openai/gpt-5.1", BackendOptions(reasoning_effort="high"))
    at_api = BackendOptions(base_url=openai_api.base_url, temperature=0.3)
    store = tmp_path / "s.sqlite"
    with resolve_judge("openai/gpt-5.2", backend_options=at_api, store=store) as judge:
        assert judge.params["temperature"] == 0.3  # type: ignore[attr-defined]
    medium = dataclasses.replace(at_api, reasoning_effort="medium")
    with pytest.raises(ConfigError, match=r"or give reasoning_effort none"):
        resolve_judge("openai/gpt-5.2", backend_options=medium, store=store)


@pytest.fixture
def openai_api(openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> EmulatorServer:
    return as_the_api(openai_emulator, monkeypatch)


def test_at_another_server_a_refused_temperature_is_learned_once(
    openai_emulator: EmulatorServer,
) -> None:
    """gpt-5.2's refusal (code null) teaches the drop, as any refused temperature does."""
    backend = openai(openai_emulator, "gpt-5.2", reasoning_effort="low", temperature=0.5)
    assert backend.request_body(spec_for(backend))["temperature"] == 0.5  # sent as asked
    for spec in distinct(backend, 3):  # one at a time: the first teaches the rest
        (done,) = calls(backend, [spec])
        assert isinstance(done, Completion), done
    assert openai_emulator.count("refused:temperature") == 1
    assert backend.lessons == ["stopped sending temperature"]


# --- a temperature given to the library for a model that samples at 1 only ----------------


@pytest.mark.parametrize("model", ["gpt-5", "gpt-5-mini", "o3-mini", "o4-mini"])
def test_a_given_temperature_is_refused_at_the_api(openai_api: EmulatorServer, model: str) -> None:
    for temperature in (0.5, 0.0):
        with pytest.raises(ConfigError) as refused:
            openai(openai_api, model, temperature=temperature)
        message = str(refused.value)
        assert f"openai/{model} samples at temperature 1 only" in message
        # The message ends with its fix: no aside about rounds after it.
        assert message.endswith(f"got temperature={temperature:g}: drop it"), message
        assert refused.value.params == ("temperature",)
    assert openai_api.count("requests") == 0
    for taken in ({}, {"temperature": 1}, {"temperature": None}):  # the default, 1, none
        backend = openai(openai_api, model, **taken)
        assert "temperature" not in backend.request_body(spec_for(backend))
        copy = pickle.loads(pickle.dumps(backend))  # a Ray worker's copy: not refused
        assert copy.request_body(spec_for(copy)) == backend.request_body(spec_for(backend))


def test_a_given_temperature_is_sent_as_asked_at_another_server(
    openai_emulator: EmulatorServer,
) -> None:
    backend = openai(openai_emulator, "gpt-5-mini", temperature=0.5)
    assert backend.request_body(spec_for(backend))["temperature"] == 0.5
    copy = pickle.loads(pickle.dumps(backend))
    assert copy.request_body(spec_for(copy))["temperature"] == 0.5
    for spec in distinct(backend, 2):
        (done,) = calls(backend, [spec])
        assert isinstance(done, Completion), done
    assert openai_emulator.count("refused:temperature") == 1  # its refusal taught the drop
    chat = openai(openai_emulator, "gpt-4o-mini", temperature=0.7)
    copy = pickle.loads(pickle.dumps(chat))
    assert copy.request_body(spec_for(copy))["temperature"] == 0.7


# --- Anthropic: refusals at api.anthropic.com only ------------------------------------


@pytest.mark.parametrize(
    ("model", "options", "refusal"),
    [
        ("claude-sonnet-4-5", {"thinking_budget": 512}, "greater than or equal to 1024"),
        ("claude-3-5-haiku-latest", {"thinking_budget": 2048}, "does not support thinking"),
        ("claude-opus-4-1", {"max_tokens": 40_000}, "which is the maximum allowed"),
        ("claude-sonnet-4-5", {"thinking_budget": 2048, "max_tokens": 2048}, "must be greater"),
    ],
)
def test_anthropic_at_another_server_sends_and_its_refusal_stands(
    anthropic_emulator: EmulatorServer, model: str, options: dict[str, int], refusal: str
) -> None:
    backend = anthropic(anthropic_emulator, model, **options)  # not refused here
    assert not backend.at_vendor
    (done,) = calls(backend, [spec_for(backend)])
    assert isinstance(done, RequestRejected), done
    assert refusal in str(done)
    assert anthropic_emulator.count("refused") == 1


def test_anthropic_compatible_servers_take_their_own_models(
    anthropic_emulator: EmulatorServer,
) -> None:
    """DeepSeek's or Kimi's model names, and a thinking budget under Anthropic's minimum
    (their limits are theirs), go; only a budget no server takes is refused."""
    for model in ("deepseek-reasoner", "kimi-k2-thinking"):
        backend = anthropic(anthropic_emulator, model, thinking_budget=512)
        assert backend.default_params(label_only=True)["thinking"]["budget_tokens"] == 512
    with pytest.raises(ConfigError, match=r"thinking_budget must be at least 1; got 0"):
        anthropic(anthropic_emulator, "deepseek-reasoner", thinking_budget=0)
    assert anthropic_emulator.count("requests") == 0


def test_anthropic_temperature_with_thinking_follows_the_same_rule(
    anthropic_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    url = anthropic_emulator.base_url.removesuffix("/v1")
    asked = BackendOptions(base_url=url, thinking_budget=2048, temperature=0.5)
    store = tmp_path / "s.sqlite"
    with resolve_judge("anthropic/deepseek-reasoner", backend_options=asked, store=store) as j:
        assert j.params["temperature"] == 0.5  # type: ignore[attr-defined]  # sent as asked
    as_the_api(anthropic_emulator, monkeypatch, "anthropic")
    with pytest.raises(ConfigError, match=r"\(extended thinking fixes it\)"):
        resolve_judge("anthropic/claude-sonnet-4-5", backend_options=asked, store=store)
    assert capabilities_for("anthropic", "claude-sonnet-4-5").thinking


# --- the vendor's regional and fully qualified hosts are its API (review41 F6) ----------


@pytest.mark.parametrize(
    "url",
    ["https://eu.api.openai.com/v1", "https://api.openai.com./v1", "https://us.api.openai.com"],
)
def test_openais_regional_and_fqdn_hosts_refuse_before_any_call(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # eu.api.openai.com is OpenAI's EU data-residency endpoint: the API itself, so what it
    # would refuse is refused here before any call, as at api.openai.com (it read as
    # "another server" and the request went out to be refused by the API).
    from fairjudge.backends import OpenAIBackend

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(ConfigError, match=r"openai/gpt-5 samples at temperature 1 only"):
        OpenAIBackend("gpt-5", temperature=0.5, base_url=url)
    assert OpenAIBackend("gpt-5", base_url=url).at_vendor


def test_anthropics_fqdn_host_refuses_before_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from fairjudge.backends import AnthropicBackend

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    with pytest.raises(ConfigError, match=r"thinking_budget must be at least 1024"):
        AnthropicBackend(
            "claude-sonnet-4-5", thinking_budget=512, base_url="https://api.anthropic.com."
        )
