"""Claude Opus 4.7 and later sample at the API's own temperature: rounds and flags agree.

The API answers 400 "`temperature` is deprecated for this model." to any temperature
(inspect_ai#3721), so the backend sends none. The judge layer must know it too:
``--rounds`` above 2 must not give such a judge the sampling temperature 0.7 (the
backend would refuse what the user never asked for), and ``--temperature 0.5`` is
refused before anything opens, as for an OpenAI reasoning model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fairjudge
from fairjudge._api import EvalSettings, JudgeSetup
from fairjudge._errors import ConfigError
from fairjudge.judges import BackendOptions, fixes_temperature
from fairjudge.judges._registry import check_fixed_temperature
from tests.server._openai_emulator import EmulatorServer, as_the_api

ROWS = [
    {"question": f"q{i}", "answer_1": "a longer answer " * 3, "answer_2": "short"} for i in range(3)
]


def test_the_rule_knows_models_that_take_no_temperature() -> None:
    assert fixes_temperature("anthropic/claude-opus-4-7", BackendOptions())
    assert fixes_temperature("anthropic/claude-opus-4-8-20260601", BackendOptions())
    assert not fixes_temperature("anthropic/claude-opus-4-6", BackendOptions())
    assert fixes_temperature("anthropic/claude-opus-4-6", BackendOptions(thinking_budget=2048))


def test_a_temperature_for_one_is_refused_naming_the_provider_not_thinking() -> None:
    with pytest.raises(ConfigError) as refused:
        check_fixed_temperature("anthropic", "claude-opus-4-7", BackendOptions(temperature=0.5))
    assert "(the provider fixes it)" in str(refused.value)
    assert refused.value.params == ("temperature",)
    check_fixed_temperature("anthropic", "claude-opus-4-7", BackendOptions(temperature=1))
    # At another server the request is sent as asked (that server's reply stands).
    other = BackendOptions(temperature=0.5, base_url="http://127.0.0.1:9/")
    check_fixed_temperature("anthropic", "claude-opus-4-7", other)


def test_rounds_above_2_run_without_a_temperature_nobody_gave(
    anthropic_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    api = as_the_api(anthropic_emulator, monkeypatch, "anthropic")
    at_api = BackendOptions(base_url=api.base_url.removesuffix("/v1"))  # as the API host
    setup = JudgeSetup(store=tmp_path / "s.sqlite", backend=at_api)
    with setup.open_judge("anthropic/claude-opus-4-7", rounds=4):
        pass  # before: "got temperature=0.7: drop it", a temperature the user never gave

    result = fairjudge.compare(
        ROWS, "anthropic/claude-opus-4-7", settings=EvalSettings(rounds=4), setup=setup
    )
    assert api.count("refused") == 0
    assert len(result.result.judgments) == 3
