"""``--json`` keeps its promise on usage errors too.

Before, a usage error (``--rule sofft``, ``--rul soft``, a missing argument, an
unknown option or command) printed Click's usage text on stderr and nothing on
stdout, although the README promises a JSON error object on failure. Click raises
those errors while parsing, before any command body (and so before ``guarded``) runs.
Now stdout holds ``{"error": {"type", "message", "exit_code": 2}}`` on every
command, and stderr still has the usage text and the message. The commands run as
processes, as a script runs them.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fairjudge.cli._app import COMMANDS
from tests.cli_process import run_process

ROOT = Path(__file__).resolve().parents[2]
PAIRS = str(ROOT / "examples" / "demo_pairs.jsonl")


def fairjudge(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the command line in a process of its own, from the repository root.

    Forked from one that has imported the library (no command module: a usage error
    is worded as in a fresh process), so each run pays no imports.
    """
    env = {**os.environ, "COLUMNS": "200"}
    return run_process(args, env=env, cwd=ROOT, timeout=120)


def json_error(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The JSON error object on stdout: exactly one, and nothing else there."""
    body = json.loads(done.stdout)
    assert set(body) == {"error"}
    error: dict[str, Any] = body["error"]
    assert set(error) == {"type", "message", "exit_code"}
    return error


def test_bad_choice_is_a_json_error_with_the_message_on_stderr_too() -> None:
    done = fairjudge("compare", PAIRS, "--json", "--rule", "sofft")
    assert done.returncode == 2
    error = json_error(done)
    assert error["exit_code"] == 2
    assert error["type"] == "BadParameter"
    assert "'--rule'" in error["message"]
    assert "'sofft'" in error["message"]
    assert "Usage: fairjudge compare" in done.stderr
    assert "'sofft'" in done.stderr


def test_misspelt_option_is_a_json_error() -> None:
    done = fairjudge("compare", PAIRS, "--json", "--rul", "soft")
    assert done.returncode == 2
    error = json_error(done)
    assert error == {
        "type": "NoSuchOption",
        "message": "No such option: --rul (Possible options: --rounds, --rubric, --rule)",
        "exit_code": 2,
    }
    assert "No such option: --rul" in done.stderr


def test_missing_argument_is_a_json_error() -> None:
    done = fairjudge("compare", "--json")
    assert done.returncode == 2
    assert json_error(done) == {
        "type": "MissingParameter",
        "message": "Missing argument 'FILE'.",
        "exit_code": 2,
    }
    assert "Missing argument 'FILE'." in done.stderr


def test_unknown_command_is_a_json_error() -> None:
    done = fairjudge("comapre", PAIRS, "--json")
    assert done.returncode == 2
    error = json_error(done)
    assert error["exit_code"] == 2
    assert error["message"].startswith("No such command 'comapre'.")
    assert "No such command 'comapre'." in done.stderr


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_reports_an_unknown_option_as_json(command: str) -> None:
    done = fairjudge(command, "--json", "--no-such-flag")
    assert done.returncode == 2
    assert json_error(done) == {
        "type": "NoSuchOption",
        "message": "No such option: --no-such-flag",
        "exit_code": 2,
    }
    assert "No such option: --no-such-flag" in done.stderr


def test_json_after_double_dash_is_an_argument_not_the_flag() -> None:
    done = fairjudge("compare", "--rule", "sofft", "--", "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "'sofft'" in done.stderr


def test_without_json_stdout_stays_empty() -> None:
    done = fairjudge("compare", PAIRS, "--rule", "sofft")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "'sofft'" in done.stderr
