"""Claude Opus 4.7 and later, against the emulator that refuses what Anthropic's API does.

Those models take no ``temperature`` (400 "`temperature` is deprecated for this
model.", at any value) and think adaptively only (400 for ``thinking.type`` enabled):
fairjudge's default temperature 0 would be refused on every call, so such a judge is
sent none and samples at the API's default; a temperature or a thinking budget given
for one is refused before any call at the API, and sent as asked at another server.
"""

from __future__ import annotations

import pytest

from fairjudge._call import Completion
from fairjudge._errors import ConfigError
from fairjudge.backends._anthropic import AnthropicBackend
from fairjudge.backends._capabilities import capabilities_for
from tests.backends._calls import spec_for
from tests.backends.test_reasoning_backends import anthropic, calls
from tests.server._openai_emulator import EmulatorServer, as_the_api

NO_TEMPERATURE = ("claude-opus-4-7", "claude-opus-4-8-20260601")


@pytest.fixture
def anthropic_api(
    anthropic_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch
) -> EmulatorServer:
    return as_the_api(anthropic_emulator, monkeypatch, "anthropic")


@pytest.mark.parametrize("model", NO_TEMPERATURE)
def test_the_emulator_refuses_what_the_api_refuses(
    anthropic_emulator: EmulatorServer, model: str
) -> None:
    emulator = anthropic_emulator.emulator
    base = {"model": model, "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    assert emulator.refusal(base) is None
    for temperature in (0, 0.5, 1):
        refused = emulator.refusal({**base, "temperature": temperature})
        assert refused is not None
        assert refused[0] == 400
        assert b"`temperature` is deprecated for this model." in refused[1]
    thinking = {"type": "enabled", "budget_tokens": 2048}
    refused = emulator.refusal({**base, "max_tokens": 4096, "thinking": thinking})
    assert refused is not None
    assert b'\\"thinking.type.enabled\\" is not supported for this model.' in refused[1]
    # Opus 4.6 still takes both.
    older = {**base, "model": "claude-opus-4-6", "temperature": 0}
    assert emulator.refusal(older) is None
    thinks = {**base, "model": "claude-opus-4-6", "max_tokens": 4096, "thinking": thinking}
    assert emulator.refusal(thinks) is None


@pytest.mark.parametrize("model", NO_TEMPERATURE)
def test_a_model_that_takes_no_temperature_is_sent_none_and_answers(
    anthropic_api: EmulatorServer, model: str
) -> None:
    backend = anthropic(anthropic_api, model)  # fairjudge's default: temperature 0
    spec = spec_for(backend)
    assert "temperature" not in backend.request_body(spec)
    assert backend.fixed_temperature == 1  # it samples at the API's default

    (done,) = calls(backend, [spec])

    assert isinstance(done, Completion), done
    assert anthropic_api.count("refused") == 0


def test_a_given_temperature_or_budget_is_refused_before_any_call(
    anthropic_api: EmulatorServer,
) -> None:
    with pytest.raises(ConfigError) as refused:
        anthropic(anthropic_api, "claude-opus-4-7", temperature=0.2)
    message = str(refused.value)
    assert message.startswith("anthropic/claude-opus-4-7 samples at temperature 1 only")
    assert message.endswith("got temperature=0.2: drop it")
    assert refused.value.params == ("temperature",)
    with pytest.raises(ConfigError) as budget:
        anthropic(anthropic_api, "claude-opus-4-7", thinking_budget=2048)
    assert "takes no thinking_budget: it thinks adaptively only" in str(budget.value)
    assert budget.value.params == ("thinking_budget",)
    assert anthropic_api.count("requests") == 0
    # 1 is the value it samples at: taken, and not sent.
    backend = anthropic(anthropic_api, "claude-opus-4-7", temperature=1)
    assert "temperature" not in backend.request_body(spec_for(backend))


def test_at_another_server_a_given_temperature_is_sent_as_asked(
    anthropic_emulator: EmulatorServer,
) -> None:
    """Another server may serve another model under the name: its own reply stands."""
    backend = anthropic(anthropic_emulator, "claude-opus-4-7", temperature=0.2)
    assert backend.request_body(spec_for(backend))["temperature"] == 0.2
    assert backend.fixed_temperature is None


def test_the_table_rows() -> None:
    for model in NO_TEMPERATURE:
        caps = capabilities_for("anthropic", model)
        assert (caps.temperature, caps.budget, caps.thinking) == (False, False, True)
    for model in ("claude-opus-4-6", "claude-sonnet-4-6", "claude-sonnet-4-5", "claude-opus-4-1"):
        caps = capabilities_for("anthropic", model)
        assert (caps.temperature, caps.budget) == (True, True)


def test_other_models_keep_their_temperature(anthropic_api: EmulatorServer) -> None:
    backend: AnthropicBackend = anthropic(anthropic_api, "claude-opus-4-6")
    assert backend.request_body(spec_for(backend))["temperature"] == 0
    assert backend.fixed_temperature is None


# --- temperature and top_p together; top_k with thinking -----------------------------------


@pytest.mark.parametrize(
    "model", ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1", "claude-sonnet-4-6"]
)
def test_temperature_with_top_p_is_refused_before_any_call(
    anthropic_api: EmulatorServer, model: str
) -> None:
    emulator = anthropic_api.emulator
    base = {"model": model, "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    refused = emulator.refusal({**base, "temperature": 0, "top_p": 0.9})
    assert refused is not None
    assert refused[0] == 400
    assert b"`temperature` and `top_p` cannot both be specified for this model." in refused[1]
    assert emulator.refusal({**base, "top_p": 0.9}) is None

    with pytest.raises(ConfigError) as both:
        anthropic(anthropic_api, model, extra_params={"top_p": 0.9})  # with the default 0
    assert f"anthropic/{model} takes temperature or top_p, not both" in str(both.value)
    assert anthropic_api.count("requests") == 0
    # top_p alone (no temperature sent) is taken, and answered.
    backend = anthropic(anthropic_api, model, temperature=None, extra_params={"top_p": 0.9})
    (done,) = calls(backend, [spec_for(backend)])
    assert isinstance(done, Completion), done
    assert anthropic_api.count("refused") == 0


def test_older_models_take_both_samplers(anthropic_api: EmulatorServer) -> None:
    backend = anthropic(anthropic_api, "claude-sonnet-4-0", extra_params={"top_p": 0.9})
    body = backend.request_body(spec_for(backend))
    assert (body["temperature"], body["top_p"]) == (0, 0.9)
    (done,) = calls(backend, [spec_for(backend)])
    assert isinstance(done, Completion), done


def test_top_k_with_thinking_is_refused_before_any_call(anthropic_api: EmulatorServer) -> None:
    emulator = anthropic_api.emulator
    request = {
        "model": "claude-sonnet-4-0",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "hi"}],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "top_k": 5,
    }
    refused = emulator.refusal(request)
    assert refused is not None
    assert b"`top_k` must be unset when thinking is enabled." in refused[1]
    with pytest.raises(ConfigError, match=r"with extended thinking takes no top_k"):
        anthropic(
            anthropic_api, "claude-sonnet-4-0", thinking_budget=2048, extra_params={"top_k": 5}
        )
    assert anthropic_api.count("requests") == 0
    backend = anthropic(anthropic_api, "claude-sonnet-4-0", extra_params={"top_k": 5})
    assert backend.request_body(spec_for(backend))["top_k"] == 5  # without thinking: taken
