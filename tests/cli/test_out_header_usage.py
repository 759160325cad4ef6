"""Every judging command's ``--out`` header records what its requests carried and what its
calls did, and every run counts the requests a model refused while it was learned.

Against the OpenAI emulator (``tests/server/_openai_emulator.py``), as processes: a
model the capability table does not know (``acme-reasoner``) refuses ``max_tokens``,
``temperature`` and ``logprobs`` with the real API's 400 bodies, and each refusal
teaches the run once; ``gpt-5-mini`` is in the table and is refused nothing. The
header's ``calls.refused`` must equal the refusals the emulator counted, and
``settings.request`` (or ``settings.requests`` per member of a panel) what was keyed
and sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_reasoning_judges import scripted
from tests.cli_process import fairjudge
from tests.server._openai_emulator import EmulatorServer

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
PAIRS = EXAMPLES / "demo_pairs.jsonl"
ANSWERS = EXAMPLES / "score_answers.jsonl"
RENAMED = "sent max_completion_tokens instead of max_tokens"

NO_GATE = ["--min-kappa", "-1", "--min-spearman", "-1"]
"""calibrate's gate is not under test: the scripted judge disagrees with the humans."""

# Each judging command, and whether its requests are a single judge's (``request``)
# or a panel's, by member (``requests``).
COMMANDS: dict[str, tuple[list[str], str]] = {
    "compare": (["compare", str(PAIRS)], "request"),
    "calibrate": (["calibrate", str(EXAMPLES / "calibration.jsonl"), *NO_GATE], "request"),
    "score": (["score", str(ANSWERS)], "request"),
    "rank": (["rank", str(EXAMPLES / "rank_answers.jsonl")], "request"),
    "jury": (["jury", str(PAIRS)], "requests"),
    "score-jury": (["score-jury", str(ANSWERS)], "requests"),
    "audit": (["audit", "--limit", "2", "--experiments", "position"], "requests"),
    "compare-via-scores": (["compare", str(PAIRS), "--via-scores"], "request"),
}
PANELS = {"jury", "score-jury"}
POINTWISE = {"score", "score-jury", "compare-via-scores"}
"""Scoring asks for no logprobs: two refusals (the cap's name, temperature), not three."""
NO_JSON_CALLS = {"calibrate", "rank"}
"""Their ``--json`` has no ``calls`` block: the ``--out`` header alone carries the usage."""
USAGE_FIELDS = {
    "requests", "refused", "learned", "reasoning_tokens", "cached_input_tokens",
    "cache_write_tokens", "cache_saved_usd", "usage_unreported", "cost_usd",
}  # fmt: skip


def _argv(command: str, model: str, server: EmulatorServer, tmp_path: Path) -> list[str]:
    head, _ = COMMANDS[command]
    judges = ["--judge", model] * (2 if command in PANELS else 1)
    out = tmp_path / f"{command}.jsonl"
    store = tmp_path / "s.sqlite"
    return [*head, *judges, "--base-url", server.base_url, "--store", str(store),
            "--out", str(out)]  # fmt: skip


def _header(path: Path) -> dict[str, Any]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    return dict(json.loads(first)["fairjudge"])


def _requests(header: dict[str, Any], command: str) -> list[dict[str, Any]]:
    """The request records in the header: one, or one per member."""
    _, key = COMMANDS[command]
    recorded = header["settings"][key]
    return [recorded] if key == "request" else list(recorded.values())


@pytest.mark.parametrize("command", list(COMMANDS))
def test_unknown_model_header_counts_its_refusals_and_what_was_sent(
    command: str,
    openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    done = fairjudge(*_argv(command, "openai/acme-reasoner", server, tmp_path), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    header = _header(tmp_path / f"{command}.jsonl")
    calls = header["calls"]
    assert set(calls) >= USAGE_FIELDS
    expected = 2 if command in POINTWISE else 3
    assert server.count("refused") == expected  # once per run, even for a panel of two
    assert calls["refused"] == expected
    assert calls["learned"][0] == RENAMED
    assert calls["failed"] == 0
    # The emulator's judge counts the requests it answered; the run counts every one.
    assert calls["requests"] == server.count("requests") + expected
    for request in _requests(header, command):
        assert "max_tokens" in request["params"]  # the key keeps what was asked for
        assert "max_completion_tokens" in request["sent"]
        assert request["refused"] == expected
    payload = json.loads(done.stdout)
    if command in NO_JSON_CALLS:
        return
    # --json totals the calls as the header does (audit's: every experiment's runs)
    assert payload["calls"]["refused"] == expected
    assert payload["calls"]["learned"] == calls["learned"]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_model_in_the_table_is_refused_nothing(
    command: str,
    openai_emulator: EmulatorServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    done = fairjudge(*_argv(command, "openai/gpt-5-mini", server, tmp_path), "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    header = _header(tmp_path / f"{command}.jsonl")
    calls = header["calls"]
    assert server.count("refused") == 0
    assert (calls["refused"], calls["learned"]) == (0, [])
    assert calls["made"] == server.count("ok") > 0
    assert calls["reasoning_tokens"] == server.count("reasoning_tokens") > 0
    for request in _requests(header, command):
        assert "max_completion_tokens" in request["params"]
        assert "sent" not in request  # what is keyed is what is sent
        assert request["samples"] is True  # the provider fixes the temperature at 1


def test_a_rerun_served_by_the_store_records_no_refusal(
    openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    argv = _argv("compare", "openai/acme-reasoner", server, tmp_path)
    assert fairjudge(*argv, "--json", "--quiet").returncode == 0
    server.reset()
    done = fairjudge(*argv, "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    calls = _header(tmp_path / "compare.jsonl")["calls"]
    assert (calls["made"], calls["refused"], calls["learned"]) == (0, 0, [])
    assert server.count("requests") == 0


def test_the_terminal_calls_line_says_what_the_refusals_changed(
    openai_emulator: EmulatorServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = scripted(openai_emulator, monkeypatch)
    done = fairjudge(
        *_argv("compare", "openai/acme-reasoner", server, tmp_path), "--quiet", columns=400
    )
    assert done.returncode == 0, done.stderr
    assert f"3 refused request(s) ({RENAMED}; stopped sending temperature" in done.stdout
