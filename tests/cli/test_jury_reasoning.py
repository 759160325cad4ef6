"""Today's judges on a panel (QA39 #11, #12): ``jury`` and ``score-jury`` take
``--reasoning-effort``, ``--thinking-budget`` and ``--max-tokens`` as ``compare`` does,
and a ``--jury`` file's member takes them as keys; an error about a member's own value
names the file, its line and the key.

Run as processes against the faithful emulators (``tests/server``): a reasoning model
spends reasoning tokens by its effort, a Claude model thinking tokens up to its budget.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_reasoning_judges import ANSWERS, PAIRS, scripted
from tests.cli_process import fairjudge
from tests.server._openai_emulator import REASONING_TOKENS, EmulatorServer


def run_json(*argv: str) -> dict[str, Any]:
    done = fairjudge(*argv, "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


@pytest.mark.parametrize("command", ["jury", "score-jury"])
def test_reasoning_effort_applies_to_every_member(
    command: str, openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    server = scripted(openai_emulator, monkeypatch)
    file = str(PAIRS if command == "jury" else ANSWERS)
    payload = run_json(
        command, file, "--judge", "openai/gpt-5-mini", "--judge", "openai/gpt-5-nano",
        "--base-url", server.base_url, "--store", str(tmp_path / "s.sqlite"),
        "--reasoning-effort", "low",
    )  # fmt: skip
    made = payload["calls"]["made"]
    assert made > 0
    assert payload["calls"]["failed"] == 0
    assert server.count("refused") == 0
    assert server.count("reasoning_tokens") == REASONING_TOKENS["low"] * made


def test_thinking_budget_for_a_claude_panel(
    anthropic_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = scripted(anthropic_emulator, monkeypatch)
    payload = run_json(
        "jury", str(PAIRS), "--judge", "anthropic/claude-sonnet-4-5",
        "--judge", "anthropic/claude-haiku-4-5", "--base-url", server.base_url.removesuffix("/v1"),
        "--store", str(tmp_path / "s.sqlite"), "--thinking-budget", "1100",
    )  # fmt: skip
    made = payload["calls"]["made"]
    assert made == server.count("ok") > 0
    assert server.count("refused") == 0
    assert server.count("thinking_tokens") == 1100 * made  # the budget, not the default


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--thinking-budget", "2048"], "--thinking-budget does not apply to the judge "
         "'openai/gpt-5-mini' (it is for anthropic/ judges)"),
        (["--reasoning-effort", "low"], "--reasoning-effort does not apply to the judge "
         "'anthropic/claude-sonnet-4-5' (it is for openai/ judges)"),
    ],
)  # fmt: skip
def test_a_flag_is_refused_for_a_member_it_does_not_apply_to(
    flags: list[str], named: str, openai_emulator: EmulatorServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    done = fairjudge(
        "jury", str(PAIRS), "--judge", "openai/gpt-5-mini", "--judge",
        "anthropic/claude-sonnet-4-5", "--base-url", openai_emulator.base_url,
        "--store", str(tmp_path / "s.sqlite"), *flags, "--quiet",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert named in done.stderr
    assert openai_emulator.count("requests") == 0


def jury_file(tmp_path: Path, openai_url: str, anthropic_url: str, more: str = "") -> Path:
    path = tmp_path / "j9.toml"
    path.write_text(
        "[[member]]\n"
        'judge = "openai/gpt-5-mini"\n'
        f'base_url = "{openai_url}"\n'
        f"{more}"
        'reasoning_effort = "minimal"\n'
        "[[member]]\n"
        'judge = "anthropic/claude-sonnet-4-5"\n'
        f'base_url = "{anthropic_url}"\n'
        "thinking_budget = 1200\n"
        "max_tokens = 1300\n",
        encoding="utf-8",
    )
    return path


def test_jury_file_members_seat_reasoning_and_thinking_judges(
    openai_emulator: EmulatorServer, anthropic_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:  # fmt: skip
    gpt, claude = scripted(openai_emulator, monkeypatch), scripted(anthropic_emulator, monkeypatch)
    path = jury_file(tmp_path, gpt.base_url, claude.base_url.removesuffix("/v1"))
    payload = run_json("jury", str(PAIRS), "--jury", str(path), "--store", str(tmp_path / "s"))
    assert payload["calls"]["failed"] == 0
    assert gpt.count("ok") == claude.count("ok") > 0
    assert gpt.count("refused") == claude.count("refused") == 0
    assert gpt.count("reasoning_tokens") == 0  # minimal effort
    assert claude.count("thinking_tokens") == 1200 * claude.count("ok")
    assert claude.count("empty_max_tokens") == 0


@pytest.mark.parametrize(
    ("more", "shown"),
    [  # QA39 #12: the member's own value, at its line, not a flag never typed
        ("temperature = 0.5\n", ":4: member.0.temperature: openai/gpt-5-mini samples at "
         "temperature 1 only"),
        ("thinking_budget = 2048\n", ":4: member.0.thinking_budget: thinking_budget does not "
         "apply to the judge 'openai/gpt-5-mini'"),
        ("max_tokens = 0\n", ":4: member.0.max_tokens: max_tokens must be >= 1; got 0"),
    ],
)  # fmt: skip
def test_an_error_about_a_members_value_names_the_files_key(
    more: str, shown: str, openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    url = openai_emulator.base_url
    path = jury_file(tmp_path, url, url.removesuffix("/v1"), more)
    if more.startswith("temperature"):  # refused at the OpenAI API itself only (stop 41)
        path.write_text(path.read_text().replace(f'base_url = "{url}"', "# the API", 1))
    done = fairjudge("jury", str(PAIRS), "--jury", str(path), "--store", str(tmp_path / "s"))
    assert done.returncode == 2, done.stderr
    message = " ".join(done.stderr.split())
    assert f"{path}{shown}" in message
    assert "--temperature" not in message
    assert "--thinking-budget" not in message
    assert openai_emulator.count("requests") == 0
