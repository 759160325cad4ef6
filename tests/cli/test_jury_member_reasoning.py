"""A panel's reasoning tokens by member (QA41 #8): ``jury`` and ``score-jury`` say each
member's reasoning tokens in the table (a line under the calls by member), in
``--json`` (``members[i].usage`` / ``member_usage[i]``) and on the page; an Anthropic
member that thought is "not reported" (``null``), and the panel's total
(``calls.reasoning_tokens``) keeps its ``null``, while ``reasoning_tokens_known`` gives
the members' known part and ``reasoning_not_reported_by`` names the members left out.

Run as processes against the faithful emulators: gpt-5-mini at effort low spends 64
reasoning tokens a reply, o4-mini at medium 256, Claude thinks up to its budget and
its usage does not count thinking apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_reasoning_judges import ANSWERS, PAIRS, scripted
from tests.cli_process import fairjudge
from tests.server._openai_emulator import REASONING_TOKENS, EmulatorServer

LOW, MEDIUM = REASONING_TOKENS["low"], REASONING_TOKENS["medium"]
PYTHON = {"jury": "python:fairjudge.examples.judges:longer",
          "score-jury": "python:fairjudge.examples.judges:scorer"}  # fmt: skip


def panel(tmp_path: Path, *members: tuple[str, str]) -> Path:
    """A jury file: each member's judge and its extra keys."""
    path = tmp_path / "panel.toml"
    text = "".join(f'[[member]]\njudge = "{judge}"\n{more}' for judge, more in members)
    path.write_text(text, encoding="utf-8")
    return path


def reasoner(judge: str, server: EmulatorServer, effort: str) -> tuple[str, str]:
    """An OpenAI reasoning member on the emulator, at ``effort``."""
    return judge, f'base_url = "{server.base_url}"\nreasoning_effort = "{effort}"\n'


def thinking_claude(claude: EmulatorServer) -> tuple[str, str]:
    """The Claude member that thinks: its usage does not count thinking apart."""
    url = claude.base_url.removesuffix("/v1")
    return (
        "anthropic/claude-sonnet-4-5",
        f'base_url = "{url}"\nthinking_budget = 1200\nmax_tokens = 1300\n',
    )


def run(*argv: str) -> str:
    done = fairjudge(*argv, "--quiet", "--allow-python-judges")
    assert done.returncode == 0, done.stderr
    return done.stdout


def usage_of(command: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    if command == "jury":
        return [m["usage"] for m in payload["members"]]
    return list(payload["member_usage"])


@pytest.mark.parametrize("command", ["jury", "score-jury"])
def test_openai_members_reasoning_tokens_each(
    command: str, openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    server = scripted(openai_emulator, monkeypatch)
    path = panel(
        tmp_path,
        reasoner("openai/gpt-5-mini", server, "low"),
        reasoner("openai/o4-mini", server, "medium"),
        (PYTHON[command], ""),
    )
    file = str(PAIRS if command == "jury" else ANSWERS)
    store = str(tmp_path / "s.sqlite")
    payload = json.loads(run(command, file, "--jury", str(path), "--store", store, "--json"))
    gpt, o4, longer = usage_of(command, payload)
    assert gpt["made"] > 0
    assert o4["made"] > 0
    assert gpt["reasoning_tokens"] == LOW * gpt["made"]
    assert o4["reasoning_tokens"] == MEDIUM * o4["made"]
    assert longer["reasoning_tokens"] == 0  # a Python judge: no model, no reasoning
    calls = payload["calls"]
    total = gpt["reasoning_tokens"] + o4["reasoning_tokens"]
    assert calls["reasoning_tokens"] == total == server.count("reasoning_tokens")
    assert payload["reasoning_tokens_known"] == total
    assert payload["reasoning_not_reported_by"] == []
    # The table, from the store: every call cached now, so this run made none.
    text = " ".join(run(command, file, "--jury", str(path), "--store", store).split())
    assert "reasoning tokens by member" not in text  # nothing made, nothing to tell
    fresh = str(tmp_path / "t.sqlite")
    text = " ".join(run(command, file, "--jury", str(path), "--store", fresh).split())
    n_gpt, n_o4 = LOW * gpt["made"], MEDIUM * o4["made"]
    assert f"reasoning tokens by member (of its output tokens): #1 {n_gpt}, #2 {n_o4}, #3 —" in text
    assert f"{n_gpt + n_o4} of " in text


@pytest.mark.parametrize("command", ["jury", "score-jury"])
def test_an_anthropic_thinker_is_not_reported_and_the_rest_are_known(
    command: str, openai_emulator: EmulatorServer, anthropic_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:  # fmt: skip
    gpt, claude = scripted(openai_emulator, monkeypatch), scripted(anthropic_emulator, monkeypatch)
    path = panel(
        tmp_path,
        reasoner("openai/gpt-5-mini", gpt, "low"),
        thinking_claude(claude),
        (PYTHON[command], ""),
    )
    file = str(PAIRS if command == "jury" else ANSWERS)
    page = tmp_path / "page.html"
    args = [command, file, "--jury", str(path), "--store", str(tmp_path / "s")]
    payload = json.loads(run(*args, "--json", "--html", str(page)))
    mini, sonnet, longer = usage_of(command, payload)
    assert claude.count("thinking_tokens") > 0  # it thought, and its usage does not say
    assert mini["reasoning_tokens"] == LOW * mini["made"] == gpt.count("reasoning_tokens") > 0
    assert sonnet["reasoning_tokens"] is None
    assert longer["reasoning_tokens"] == 0
    calls = payload["calls"]
    assert calls["reasoning_tokens"] is None  # the total is unknown, and stays so
    assert payload["reasoning_tokens_known"] == mini["reasoning_tokens"]
    assert payload["reasoning_not_reported_by"] == ["anthropic/claude-sonnet-4-5"]
    text = " ".join(run(*args[:-1], str(tmp_path / "t")).split())
    n = mini["reasoning_tokens"]
    assert f"reasoning tokens by member (of its output tokens): #1 {n}, #2 not reported, #3 —" in (
        text
    )
    assert f"{n} known; not reported by #2" in text
    html = page.read_text(encoding="utf-8")
    assert f"{n} known; not reported by #2" in html
    assert f"#1 {n}, #2 not reported, #3 —" in html


def test_an_adaptive_panel_adds_each_members_reasoning_over_its_batches(
    openai_emulator: EmulatorServer, anthropic_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:  # fmt: skip
    gpt, claude = scripted(openai_emulator, monkeypatch), scripted(anthropic_emulator, monkeypatch)
    path = panel(
        tmp_path,
        reasoner("openai/gpt-5-mini", gpt, "low"),
        reasoner("openai/o4-mini", gpt, "medium"),
        thinking_claude(claude),
    )
    payload = json.loads(run(
        "jury", str(PAIRS), "--jury", str(path), "--store", str(tmp_path / "s"), "--json",
        "--stop-when", "width:0.001", "--batch", "4",
    ))  # fmt: skip
    assert payload["adaptive"]["items"]["judged"] > payload["adaptive"]["batch"] == 4
    mini, o4, sonnet = usage_of("jury", payload)
    assert mini["reasoning_tokens"] == LOW * mini["made"]
    assert o4["reasoning_tokens"] == MEDIUM * o4["made"]
    assert mini["reasoning_tokens"] + o4["reasoning_tokens"] == gpt.count("reasoning_tokens")
    assert sonnet["reasoning_tokens"] is None  # unknown in any batch: unknown in the sum
    assert payload["reasoning_tokens_known"] == gpt.count("reasoning_tokens")
    assert payload["reasoning_not_reported_by"] == ["anthropic/claude-sonnet-4-5"]
