"""Today's judges through the command line, as processes, against the faithful emulators.

``compare``, ``score``, ``jury`` and ``audit`` with an OpenAI reasoning model
(``gpt-5-mini``), an OpenAI model fairjudge does not know that reasons
(``acme-reasoner``), and Claude with extended thinking: every call completes, with 0
call errors, 0 empty ``length`` replies, 0 refused requests for a model in the
capability table and a handful (one per parameter, once per run) for the unknown
one. Bad input exits 2 before any call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_process import fairjudge
from tests.server import Pair
from tests.server._openai_emulator import EmulatorServer
from tests.server._script import extract_pair

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
PAIRS = EXAMPLES / "demo_pairs.jsonl"
ANSWERS = EXAMPLES / "score_answers.jsonl"
SCORES = '{"accuracy": 4, "relevance": 5, "usefulness": 3, "reason": "clear enough"}'


def reply(prompt: str) -> str:
    """A pairwise prompt gets the longer answer's label; a pointwise one, scores."""
    pair = extract_pair(prompt)
    if pair is None:
        return SCORES
    return "A" if len(pair.answer_a) >= len(pair.answer_b) else "B"


def scripted(server: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> EmulatorServer:
    """The emulator's judge reads whole prompts (pairwise and pointwise alike)."""
    monkeypatch.setattr("tests.server._app.extract_pair", lambda prompt: Pair(prompt, "", ""))
    server.configure(judge=lambda pair: reply(pair.question), reply_format="{verdict}")
    return server


def commands(judge: str, *more: str) -> dict[str, list[str]]:
    return {
        "compare": ["compare", str(PAIRS), "--judge", judge, *more],
        "score": ["score", str(ANSWERS), "--judge", judge, *more],
        "jury": ["jury", str(PAIRS), "--judge", judge, "--judge", judge, *more],
        "audit": ["audit", "--limit", "3", "--experiments", "position", "--judge", judge, *more],
    }


def run_json(argv: list[str]) -> dict[str, Any]:
    done = fairjudge(*argv, "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def made_and_failed(payload: dict[str, Any]) -> tuple[int, int]:
    """Calls made now, and calls that failed (an audit reports them per experiment)."""
    if "calls" not in payload:
        failed = sum(e["n_failed"] for e in payload["experiments"])
        return int(payload["calls_made"]), failed
    calls = payload["calls"]
    return calls["made"], calls["failed"]


@pytest.mark.parametrize("command", ["compare", "score", "jury", "audit"])
def test_reasoning_model_in_the_table(
    command: str,
    openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    argv = commands(
        "openai/gpt-5-mini", "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite")
    )[command]
    payload = run_json(argv)
    made, failed = made_and_failed(payload)
    assert made > 0
    assert failed == 0
    assert server.count("ok") == made
    assert server.count("refused") == 0
    assert server.count("empty_length") == 0
    assert server.count("reasoning_tokens") == 256 * made  # medium effort, every call


@pytest.mark.parametrize("command", ["compare", "score", "jury", "audit"])
def test_unknown_reasoning_model_spends_a_handful_of_refusals(
    command: str,
    openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    argv = commands(
        "openai/acme-reasoner", "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite")
    )[command]
    done = fairjudge(*argv, "--json")
    assert done.returncode == 0, done.stderr
    made, failed = made_and_failed(json.loads(done.stdout))
    assert failed == 0
    assert server.count("ok") == made
    assert server.count("empty_length") == 0
    # One refusal per parameter the model does not take (the cap's name, temperature
    # and, for label-only calls, logprobs), once per run: a jury naming the judge
    # twice shares one backend, and so one lesson.
    assert server.count("refused") == (3 if command != "score" else 2)
    assert "sending max_completion_tokens instead" in done.stderr  # the run says so


def test_claude_with_extended_thinking(
    anthropic_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = scripted(anthropic_emulator, monkeypatch)
    url = server.base_url.removesuffix("/v1")
    for command, argv in commands(
        "anthropic/claude-sonnet-4-5", "--base-url", url, "--thinking-budget", "2048",
        "--store", str(tmp_path / "s.sqlite"),
    ).items():  # fmt: skip
        made, failed = made_and_failed(run_json(argv))
        # The jury's two members are compare's judge: its calls are compare's, stored.
        assert made > 0 or command == "jury", command
        assert failed == 0, command
    assert server.count("refused") == 0
    assert server.count("empty_max_tokens") == 0
    assert server.count("thinking_tokens") == 1500 * server.count("ok")


@pytest.mark.parametrize(
    ("judge", "flags", "named"),
    [
        ("openai/gpt-4o", ["--reasoning-effort", "low"], "--reasoning-effort"),
        ("openai/o3-mini", ["--reasoning-effort", "minimal"], "--reasoning-effort"),
        ("openai/gpt-5-mini", ["--temperature", "0"], "--temperature"),
        ("openai/o3-mini", ["--temperature", "0.5"], "--temperature"),
        # QA39 #16, #17, #18a, #2: each refused before any call
        ("openai/gpt-5.1", ["--reasoning-effort", "minimal"], "--reasoning-effort"),
        ("openai/o1-mini", ["--reasoning-effort", "low"], "--reasoning-effort"),
        ("openai/o3-pro", [], "Responses API only"),
        ("anthropic/claude-sonnet-4-5", ["--thinking-budget", "100000"], "--thinking-budget"),
        ("anthropic/claude-opus-4-1", ["--max-tokens", "40000"], "--max-tokens"),
        ("anthropic/claude-sonnet-4-5", ["--thinking-budget", "512"], "--thinking-budget"),
        (
            "anthropic/claude-sonnet-4-5",
            ["--thinking-budget", "4096", "--max-tokens", "4096"],
            "--thinking-budget",
        ),
        ("anthropic/claude-3-5-haiku-latest", ["--thinking-budget", "2048"], "--thinking-budget"),
        ("openai/gpt-5-mini", ["--thinking-budget", "2048"], "--thinking-budget"),
    ],
)
def test_bad_input_exits_2_before_any_call(
    judge: str,
    flags: list[str],
    named: str,
    openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)  # the APIs, where the tables hold
    argv = commands(judge, "--store", str(tmp_path / "s.sqlite"), *flags)
    done = fairjudge(*argv["compare"], "--quiet")
    assert done.returncode == 2, done.stderr
    assert named in done.stderr
    assert openai_emulator.count("requests") == 0


def test_temperature_1_runs_a_judge_that_samples_at_1(
    openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # QA39 #25: a script passing --temperature 1 to every judge. o3-mini refuses the
    # parameter even at 1, so none is sent, and the calls' keys are those without it.
    scripted(openai_emulator, monkeypatch)
    store = str(tmp_path / "s.sqlite")
    argv = commands("openai/o3-mini", "--base-url", openai_emulator.base_url, "--store", store)
    first = run_json([*argv["compare"], "--temperature", "1"])
    assert made_and_failed(first) == (first["calls"]["total"], 0)
    assert openai_emulator.count("refused") == 0
    again = run_json(argv["compare"])
    assert made_and_failed(again) == (0, 0)  # the same keys: all from the store


def header_request(path: Path) -> dict[str, Any]:
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return dict(header["fairjudge"]["settings"]["request"])


def test_out_header_records_what_was_sent(
    openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    store = str(tmp_path / "s.sqlite")
    for model, out in (
        ("gpt-5-mini", tmp_path / "known.jsonl"),
        ("acme-reasoner", tmp_path / "new.jsonl"),
    ):
        argv = commands(f"openai/{model}", "--base-url", server.base_url, "--store", store)
        run_json([*argv["compare"], "--out", str(out)])
    known = header_request(tmp_path / "known.jsonl")
    assert known["params"]["max_completion_tokens"] == 8 + 8192
    assert "temperature" not in known["params"]  # the provider fixes it at 1
    assert known["samples"] is True
    assert "sent" not in known  # a model in the table: what is keyed is what is sent
    learned = header_request(tmp_path / "new.jsonl")
    assert learned["params"]["max_tokens"] == 8  # the key keeps what was asked for
    assert learned["sent"] == {"max_completion_tokens": 8 + 8192}
    assert learned["refused"] == 3
    # max_tokens, temperature, and logprobs with top_logprobs as one (QA39 #4)
    assert len(learned["learned"]) == 3
    # temperature 0 was refused and dropped: the server samples at its default of 1
    assert learned["samples"] is True


def test_rounds_sample_a_judge_fixed_at_temperature_one(
    openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    argv = commands(
        "openai/gpt-5-mini", "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite")
    )
    made, failed = made_and_failed(run_json([*argv["compare"], "--rounds", "4"]))
    assert failed == 0
    assert made == server.count("ok") > 0
    assert server.count("refused") == 0  # temperature 1, not the 0.7 other judges sample at


@pytest.mark.parametrize(
    ("rounds", "code", "named"),
    [("2", 2, "--rounds 4 or more"), ("4", 0, None)],
)
def test_soft_rule_needs_probabilities_or_samples(
    rounds: str,
    code: int,
    named: str | None,
    openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    argv = commands(
        "openai/gpt-5-mini", "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite")
    )
    done = fairjudge(*argv["compare"], "--rule", "soft", "--rounds", rounds, "--quiet")
    assert done.returncode == code, done.stderr
    if named is not None:
        assert named in done.stderr
        assert "reports no logprobs" in done.stderr
        assert server.count("requests") == 0
    else:
        assert server.count("ok") > 0


def test_soft_rule_on_claude_without_sampling_names_the_other_rules(
    anthropic_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    url = anthropic_emulator.base_url.removesuffix("/v1")
    argv = commands(
        "anthropic/claude-sonnet-4-5", "--base-url", url, "--store", str(tmp_path / "s.sqlite")
    )
    done = fairjudge(*argv["compare"], "--rule", "soft", "--quiet")
    assert done.returncode == 2, done.stderr
    assert "--rule conservative" in done.stderr
    assert anthropic_emulator.count("requests") == 0


def test_a_rerun_after_learning_pays_no_refusal(
    openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    argv = commands(
        "openai/acme-reasoner", "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite")
    )["compare"]
    first = run_json(argv)
    assert server.count("refused") == 3
    server.reset()
    again = run_json(argv)
    # The keys hold the parameters as asked, so the rerun finds every reply stored.
    assert again["calls"]["made"] == 0
    assert again["calls"]["cached"] == first["calls"]["made"]
    assert server.count("requests") == 0
    assert server.count("refused") == 0


def test_a_budget_below_one_calls_cap_says_so_not_that_it_is_spent(
    openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    store = str(tmp_path / "s.sqlite")
    argv = commands("openai/gpt-5-mini", "--base-url", server.base_url,
                    "--store", store, "--max-cost", "0.002")["compare"]  # fmt: skip
    done = fairjudge(*argv, "--quiet")
    assert done.returncode == 5, done.stderr
    said = " ".join(done.stderr.split())
    assert server.count("requests") == 0
    assert "budget is spent" not in said  # nothing was spent
    assert "the --max-cost 0.002 budget cannot pay for one call at its worst case" in said
    assert "--max-tokens" in said
    assert "--reasoning-effort" in said


@pytest.mark.parametrize(
    "flags",
    [["--reasoning-effort", "low"], ["--thinking-budget", "2048"], ["--max-tokens", "5"]],
)
def test_the_embedded_judge_refuses_the_model_families_flags(
    flags: list[str], tmp_path: Path
) -> None:
    from tests.cli._invoke import invoke

    done = invoke("compare", str(PAIRS), "--judge", "local/qwen2.5-coder-1.5b", *flags,
                  "--store", str(tmp_path / "s.sqlite"), "--max-calls", "0")  # fmt: skip
    assert done.exit_code == 2, done.output  # it used to run, the flag ignored
    said = " ".join(done.stderr.split())
    assert f"{flags[0]} does not apply to the judge 'local/qwen2.5-coder-1.5b'" in said


def test_anthropic_base_url_with_v1_says_to_drop_it(
    anthropic_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An OpenAI-style ``.../v1`` base URL posts to ``/v1/v1/messages``: the 404 says so."""
    server = scripted(anthropic_emulator, monkeypatch)
    assert server.base_url.endswith("/v1")
    done = fairjudge(
        "compare", str(PAIRS), "--judge", "anthropic/claude-sonnet-4-5",
        "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"), "--quiet",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "HTTP 404" in done.stderr
    assert "give --base-url without its trailing /v1" in done.stderr
    assert f"{server.base_url}/v1/messages" in done.stderr
