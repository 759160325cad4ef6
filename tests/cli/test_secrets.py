"""A key never reaches the store or a result file, wherever it appears.

Credentials in a base URL are refused, by the backend and by the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import ConfigError
from fairjudge.backends import OpenAIBackend
from fairjudge.cli import app
from tests.out_file import out_records
from tests.server import JudgeServer


def test_a_reply_that_reflects_the_key_is_scrubbed(tmp_path: Path, openai_env: JudgeServer) -> None:
    key = openai_env.api_key
    assert key is not None
    openai_env.configure(reply_format="Your key is {key}.\n[[{verdict}]]")
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"question": "q", "answer_1": "a", "answer_2": "b"}) + "\n")
    out, store = tmp_path / "out.jsonl", tmp_path / "s.sqlite"
    result = CliRunner().invoke(
        app,
        [
            "compare", str(items), "--judge", "openai/m", "--template", "explain",
            "--base-url", openai_env.base_url, "--store", str(store), "--out", str(out),
            "-q", "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for path in tmp_path.iterdir():
        assert key.encode() not in path.read_bytes(), path
    assert key not in result.output
    calls = out_records(out)[0]["calls"]
    assert calls[0]["raw"].startswith("Your key is ***.")
    assert calls[0]["verdict"] == "A"  # the reading is unchanged


@pytest.mark.parametrize("url", ["http://user:sk-secret0123456789@127.0.0.1:9/v1"])
def test_credentials_in_the_base_url_are_refused(url: str) -> None:
    with pytest.raises(ConfigError, match=r"carries credentials") as info:
        OpenAIBackend("m", base_url=url)
    assert "sk-secret" not in str(info.value)
    assert "$OPENAI_API_KEY" in str(info.value)


def test_credentials_in_the_base_url_are_refused_by_the_cli(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"question": "q", "answer_1": "a", "answer_2": "b"}) + "\n")
    result = CliRunner().invoke(
        app,
        ["compare", str(items), "--judge", "openai/m", "--base-url",
         "http://me:sk-secret0123456789@127.0.0.1:9/v1", "--store", str(tmp_path / "s.sqlite")],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "sk-secret" not in result.output
    assert (
        not (tmp_path / "s.sqlite").exists()
        or b"sk-secret" not in (tmp_path / "s.sqlite").read_bytes()
    )
