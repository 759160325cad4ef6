"""``fairjudge run``'s errors read as the config file's own: ``FILE:LINE: key: ...``.

An error about the input file names the file's ``file`` key and line, as every other
error of the file does; a sentence that starts with two keys keeps both, unbroken.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli._invoke import invoke

JUDGE = "python:fairjudge.examples.judges:longer"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    row = {"id": "1", "question": "q?", "answer_1": "a long one", "answer_2": "b"}
    (tmp_path / "pairs.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    return tmp_path


def _error(config: Path, text: str) -> str:
    """The error of ``fairjudge run CONFIG`` (named relative to the working folder)."""
    config.write_text(text, encoding="utf-8")
    done = invoke("run", str(config.relative_to(Path.cwd())), "--allow-python-judges", "--json")
    assert done.exit_code == 2, done.output
    return str(json.loads(done.stdout)["error"]["message"])


def test_a_missing_input_file_is_named_with_its_key_and_line(here: Path) -> None:
    text = f'command = "compare"\njudge = "{JUDGE}"\nfile = "nosuch.jsonl"\n'
    assert _error(here / "eval.toml", text) == "eval.toml:3: file: nosuch.jsonl: no such file"


def test_a_missing_input_file_in_another_folder_is_named_as_the_command_got_it(
    here: Path,
) -> None:
    (here / "sub").mkdir()
    text = f'command = "compare"\nfile = "../nosuch.jsonl"\njudge = "{JUDGE}"\n'
    message = _error(here / "sub" / "eval.toml", text)
    assert message == f"{Path('sub/eval.toml')}:2: file: nosuch.jsonl: no such file"


def test_out_and_html_naming_one_file_keeps_both_keys(here: Path) -> None:
    text = (f'command = "compare"\nfile = "pairs.jsonl"\njudge = "{JUDGE}"\n'
            'out = "x.html"\nhtml = "x.html"\n')  # fmt: skip
    message = _error(here / "eval.toml", text)
    assert message == "eval.toml:4: out and html both name x.html; give two files"


def test_an_error_led_by_one_key_still_reads_key_colon(here: Path) -> None:
    text = f'command = "compare"\nfile = "pairs.jsonl"\njudge = "{JUDGE}"\nrounds = 0\n'
    assert _error(here / "eval.toml", text).startswith("eval.toml:4: rounds: ")
