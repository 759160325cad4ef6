"""An ``--out`` that cannot be written is found before any call.

A written ``--out`` file gets the store's permissions.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.cli._invoke import invoke
from tests.cli.conftest import GOOD_ROWS
from tests.server import JudgeServer


def _items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"question": "q", "answer_1": "a", "answer_2": "b"}) + "\n")
    return path


def test_an_out_under_a_file_is_refused_before_any_call(
    tmp_path: Path, openai_env: JudgeServer
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    result = CliRunner().invoke(
        app,
        [
            "compare", str(_items(tmp_path)), "--judge", "openai/m", "--json",
            "--base-url", openai_env.base_url, "--store", str(tmp_path / "s.sqlite"),
            "--out", str(blocker / "out.jsonl"),
        ],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "--out" in result.output
    assert "cannot write there" in result.output
    assert json.loads(result.stdout)["error"]["type"] == "ConfigError"
    assert openai_env.count("requests") == 0


def test_an_out_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["compare", str(_items(tmp_path)), "--judge", "python:tests.judge_fixtures:longer",
         "--out", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "is a folder" in result.output


def test_rank_checks_its_out_too(tmp_path: Path) -> None:
    blocker = tmp_path / "f"
    blocker.write_text("x")
    calls = tmp_path / "calls"
    root = Path(__file__).resolve().parents[2]
    result = CliRunner().invoke(
        app,
        ["rank", str(root / "examples" / "rank_answers.jsonl"), "--judge",
         "python:tests.judge_fixtures:counting", "--out", str(blocker / "o.jsonl")],
        env={"FAIRJUDGE_TEST_CALLS": str(calls)},
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert not calls.exists()


def test_out_file_has_the_stores_permissions(
    write_jsonl,
    tmp_path: Path,
    openai_env: JudgeServer,  # type: ignore[no-untyped-def]
) -> None:
    out, store = tmp_path / "out.jsonl", tmp_path / "s.sqlite"
    result = invoke(
        "compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/m", "-q",
        "--base-url", openai_env.base_url, "--store", str(store), "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == stat.S_IMODE(store.stat().st_mode)


@pytest.mark.parametrize("flag", ["--out", "--html", "--markdown"])
def test_a_result_file_that_is_a_pipe_or_device_is_refused(flag: str, tmp_path: Path) -> None:
    """A result file is renamed into place, which would replace a device or a pipe there.

    As root, ``--markdown /dev/null`` replaced the device with a plain file; a FIFO
    shows the same without root.
    """
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    result = CliRunner().invoke(
        app,
        ["compare", str(_items(tmp_path)), "--judge", "python:tests.judge_fixtures:longer",
         flag, str(pipe)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"{flag} {pipe}: is not a regular file" in result.output
    assert stat.S_ISFIFO(pipe.stat().st_mode)


@pytest.mark.parametrize("flag", ["--store", "--model-path"])
def test_a_markdown_file_given_to_another_flag_names_that_flag(flag: str, tmp_path: Path) -> None:
    """A judge flag's file is named as its flag, not as the input file it is not."""
    taken = tmp_path / "taken"
    result = CliRunner().invoke(
        app,
        ["compare", str(_items(tmp_path)), "--judge", "python:tests.judge_fixtures:longer",
         flag, str(taken), "--markdown", str(taken)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"--markdown {taken}: is also given to {flag}; give another file name" in result.output
    assert not taken.exists()
