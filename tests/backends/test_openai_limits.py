"""OpenAI output ceilings and Structured Outputs, refused before any call (QA #30, #31).

A ``max_tokens`` above what the model writes, or structured output for a model the
API serves none, would get a 400 on every call: the capability table knows both, so
the backend (ceiling) and the scoring judge (structured) refuse them first, with a
message that names the parameter (the command line shows the flag, and exits 2
before any call). A model the table does not know is not checked, and neither is a
call to another server (``base_url``), which may serve another model under an
OpenAI name (review F1): there the server's own refusal stands, as the emulator's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge._call import Completion
from fairjudge._errors import ConfigError
from fairjudge.backends._capabilities import capabilities_for
from fairjudge.backends._openai import OpenAIBackend
from fairjudge.judges import PointwiseJudge
from tests.backends._calls import run, spec_for
from tests.cli_process import fairjudge
from tests.server._openai_emulator import EmulatorServer

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"


@pytest.mark.parametrize(
    ("model", "ceiling"),
    [
        ("gpt-4o", 16_384),
        ("gpt-4o-2024-11-20", 16_384),
        ("gpt-4o-mini", 16_384),
        ("gpt-4o-2024-05-13", 4_096),
        ("gpt-4.1", 32_768),
        ("gpt-4.1-nano-2025-04-14", 32_768),
        ("o1", 100_000),
        ("o3", 100_000),
        ("o3-mini", 100_000),
        ("o4-mini-2025-04-16", 100_000),
        ("o1-mini", 65_536),
        ("o1-preview", 32_768),
        ("gpt-5", 128_000),
        ("gpt-5-nano", 128_000),
        ("gpt-5.2", 128_000),
        ("gpt-4-turbo", 4_096),
        ("gpt-4-1106-preview", 4_096),
        ("gpt-3.5-turbo", 4_096),
        # Stop 41: the gpt-5 chat models, gpt-4.5-preview, gpt-4 (its whole context).
        ("gpt-5-chat-latest", 16_384),
        ("gpt-5.1-chat-latest", 16_384),
        ("gpt-5.2-chat-latest", 16_384),
        ("gpt-4.5-preview", 16_384),
        ("gpt-4", 8_192),
        ("gpt-4-0613", 8_192),
        # No documented figure the table trusts: not checked (the API's 400 stands).
        ("gpt-4-32k", None),
        ("gpt-3.5-turbo-16k", None),
        ("acme-chat", None),
    ],
)
def test_openai_output_ceilings(model: str, ceiling: int | None) -> None:
    assert capabilities_for("openai", model).max_output == ceiling


@pytest.mark.parametrize(
    ("model", "structured"),
    [
        ("o1-mini", False),
        ("o1-preview-2024-09-12", False),
        ("gpt-4o-2024-05-13", False),
        ("gpt-4-turbo", False),
        ("gpt-4-0125-preview", False),
        ("gpt-4", False),
        ("gpt-3.5-turbo-0125", False),
        ("gpt-4o", True),
        ("gpt-4o-mini", True),
        ("gpt-4o-2024-08-06", True),
        ("gpt-4.1-mini", True),
        ("o1", True),
        ("o3-mini", True),
        ("gpt-5-mini", True),
        ("acme-chat", True),  # unknown: not refused
    ],
)
def test_structured_outputs_by_model(model: str, structured: bool) -> None:
    assert capabilities_for("openai", model).structured is structured


@pytest.mark.parametrize(
    ("model", "ceiling", "reasoning"),
    [("gpt-4o", 16_384, False), ("o3-mini", 100_000, True), ("o1-mini", 65_536, True)],
)
def test_max_tokens_above_the_ceiling_is_refused_before_any_call(
    openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    ceiling: int,
    reasoning: bool,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for vendor in (None, "https://api.openai.com/v1"):  # the OpenAI API: no call is made
        with pytest.raises(ConfigError) as caught:
            OpenAIBackend(model, base_url=vendor, max_tokens=ceiling + 1)
        message = str(caught.value)
        assert message.startswith(f"max_tokens {ceiling + 1} is above what the API takes")
        assert f"openai/{model} writes at most {ceiling} output tokens" in message
        assert ("reasoning included" in message) is reasoning
        assert message.endswith(f"give at most {ceiling}")
        assert caught.value.params == ("max_tokens",)
    # The ceiling itself is taken, and the emulator (the real API's rules) answers it.
    url = openai_emulator.base_url
    backend = OpenAIBackend(model, base_url=url, max_tokens=ceiling)

    async def go() -> Completion:
        try:
            return await backend.complete(spec_for(backend))
        finally:
            await backend.aclose()

    assert run(go()).text == "A"
    assert openai_emulator.count("refused") == 0


def test_another_server_answers_for_its_own_model(openai_emulator: EmulatorServer) -> None:
    """At a ``base_url`` the name may be an alias (LocalAI serves local models as gpt-4o):
    nothing is refused before a call, and the server's refusal, if any, is the call's."""
    backend = OpenAIBackend("gpt-4o", base_url=openai_emulator.base_url, max_tokens=50_000)
    assert not backend.at_vendor

    async def go() -> Completion:
        try:
            return await backend.complete(spec_for(backend))
        finally:
            await backend.aclose()

    with pytest.raises(Exception, match="max_tokens is too large: 50000"):
        run(go())
    assert openai_emulator.count("refused") >= 1


def test_an_unknown_model_is_not_checked(openai_emulator: EmulatorServer) -> None:
    OpenAIBackend("acme-chat", base_url=openai_emulator.base_url, max_tokens=1_000_000)


@pytest.mark.parametrize("model", ["o1-mini", "o1-preview", "gpt-4-turbo", "gpt-3.5-turbo"])
def test_structured_output_is_refused_for_a_model_without_it(
    openai_emulator: EmulatorServer, model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    backend = OpenAIBackend(model)  # the OpenAI API: refused before any call
    with pytest.raises(ConfigError, match=rf"openai/{model} has no structured outputs") as caught:
        PointwiseJudge(backend, structured=True, store=tmp_path / "s.sqlite")
    assert caught.value.params == ("structured",)
    # Another server under the name may serve a model that has them: not refused.
    elsewhere = OpenAIBackend(model, base_url=openai_emulator.base_url)
    with PointwiseJudge(elsewhere, structured=True, store=tmp_path / "t.sqlite") as judge:
        assert judge.params["response_format"]["type"] == "json_schema"


def test_structured_output_is_sent_where_the_model_has_it(
    openai_emulator: EmulatorServer, tmp_path: Path
) -> None:
    backend = OpenAIBackend("gpt-4o-mini", base_url=openai_emulator.base_url)
    with PointwiseJudge(backend, structured=True, store=tmp_path / "s.sqlite") as judge:
        assert judge.params["response_format"]["type"] == "json_schema"


@pytest.mark.parametrize(
    ("judge", "flags", "shown"),
    [
        (
            "openai/gpt-4o",
            ["compare", str(EXAMPLES / "demo_pairs.jsonl"), "--max-tokens", "50000"],
            "--max-tokens 50000 is above what the API takes: openai/gpt-4o writes at most "
            "16384 output tokens; give at most 16384",
        ),
        (
            "openai/o1-mini",
            ["score", str(EXAMPLES / "score_answers.jsonl"), "--structured"],
            "openai/o1-mini has no structured outputs",
        ),
    ],
)
def test_the_command_line_exits_2_before_any_call(
    openai_emulator: EmulatorServer,
    judge: str,
    flags: list[str],
    shown: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    store = str(tmp_path / "s.sqlite")
    done = fairjudge(*flags, "--judge", judge, "--store", store, "--quiet")
    assert done.returncode == 2, done.stderr
    assert shown in " ".join(done.stderr.split())
    if "--structured" in flags:
        assert "drop --structured" in " ".join(done.stderr.split())
    assert openai_emulator.count("requests") == 0


# Stop 41 (closing_40 item 2): the older refusals follow the same rule as the ceilings.
# At the API (no --base-url) each exits 2 before any call; at another server the
# request goes, and the server's own reply stands.
@pytest.mark.parametrize(
    ("judge", "flags", "api", "elsewhere"),
    [
        (
            "openai/o3-mini",
            ["--temperature", "0.5"],
            "openai/o3-mini samples at --temperature 1 only",
            "refused 'temperature' (HTTP 400: Unsupported parameter: 'temperature'",
        ),
        (
            "openai/gpt-4o",
            ["--reasoning-effort", "low"],
            "openai/gpt-4o takes no --reasoning-effort 'low'",
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        ),
        (
            "openai/gpt-5.2-chat-latest",
            ["--reasoning-effort", "high"],
            "openai/gpt-5.2-chat-latest takes no --reasoning-effort 'high': it takes medium only",
            "Supported values are: 'medium'.",
        ),
    ],
)
def test_the_older_refusals_apply_at_the_api_only(
    openai_emulator: EmulatorServer,
    judge: str,
    flags: list[str],
    api: str,
    elsewhere: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    argv = ["compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", judge, *flags]
    done = fairjudge(*argv, "--store", str(tmp_path / "a.sqlite"))
    assert done.returncode == 2, done.stderr
    assert api in " ".join(done.stderr.split())
    url = openai_emulator.base_url
    done = fairjudge(*argv, "--base-url", url, "--store", str(tmp_path / "b.sqlite"))
    assert done.returncode != 2, done.stderr
    assert elsewhere in " ".join(done.stderr.split())
    assert openai_emulator.count("refused") >= 1
