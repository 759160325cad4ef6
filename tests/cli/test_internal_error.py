"""An unexpected exception: one clear line, a JSON error under ``--json``, no traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import pytest

from fairjudge.cli import _app
from fairjudge.cli._options import InputFlags
from tests.cli._invoke import invoke

ROOT = Path(__file__).resolve().parents[2]
PAIRS = str(ROOT / "examples" / "demo_pairs.jsonl")
SECRET = "sk-proj-ABCDEFghijkl0123456789"


def _boom(*args: Any, **kwargs: Any) -> NoReturn:
    raise RuntimeError(f"boom with {SECRET}\nand a second line")


@pytest.fixture
def broken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(InputFlags, "load", _boom)
    monkeypatch.delenv("FAIRJUDGE_TRACEBACK", raising=False)


@pytest.mark.usefixtures("broken")
def test_json_gets_an_error_object() -> None:
    result = invoke("compare", PAIRS, "--json", "-q")
    assert result.exit_code == 1
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "RuntimeError"
    assert error["exit_code"] == 1
    assert error["message"].startswith("RuntimeError: boom with ***. This is a bug in fairjudge")
    assert "FAIRJUDGE_TRACEBACK=1" in error["message"]
    assert SECRET not in result.output
    assert "Traceback" not in result.output


@pytest.mark.usefixtures("broken")
def test_the_terminal_gets_one_line() -> None:
    result = invoke("compare", PAIRS, "-q")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert " ".join(result.stderr.split()).startswith("internal error: RuntimeError: boom with ***")
    assert "second line" not in result.stderr


def test_the_traceback_is_there_when_asked_for(
    broken: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRJUDGE_TRACEBACK", "1")
    result = invoke("compare", PAIRS, "-q")
    assert isinstance(result.exception, RuntimeError)


def test_an_error_outside_every_command_is_one_line_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("FAIRJUDGE_TRACEBACK", raising=False)
    monkeypatch.setattr(sys, "argv", ["fairjudge", "compare", "x.jsonl", "--json"])
    assert _app._unexpected(ValueError("odd")) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["error"]["type"] == "ValueError"
    assert " ".join(err.split()).startswith("internal error: ValueError: odd. This is a bug")
