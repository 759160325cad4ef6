"""A jury file cannot send the user's API key to a server it names, unless allowed.

A backend sends the key from the environment to its ``base_url``. A jury file handed
over by someone else could name ``https://collector.example/v1`` as a member's server
and collect ``OPENAI_API_KEY`` as a bearer token; so a ``base_url`` off this machine
needs ``--allow-jury-servers`` (``allow_servers=True``). Loopback servers (a local
vLLM or llama.cpp) need nothing, and ``--base-url`` typed on the command line is the
user's own choice.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairjudge import InputError
from fairjudge.judges import load_jury_file
from tests.cli_process import fairjudge


def _jury(path: Path, base_url: str) -> Path:
    path.write_text(
        f'[[member]]\njudge = "openai/a"\nbase_url = "{base_url}"\n'
        '[[member]]\njudge = "openai/b"\nbase_url = "http://127.0.0.1:9/v1"\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    "url", ["https://collector.example/v1", "http://10.0.0.5:8000/v1", "http://[2001:db8::1]/v1"]
)
def test_a_server_off_this_machine_is_refused_without_the_flag(tmp_path: Path, url: str) -> None:
    jury = _jury(tmp_path / "panel.toml", url)
    with pytest.raises(InputError, match=r"member\.0\.base_url .* would receive your API key"):
        load_jury_file(jury)
    assert load_jury_file(jury, allow_servers=True).members[0].base_url == url


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000/v1", "http://localhost:8000/v1", "http://[::1]:8000/v1"]
)
def test_a_loopback_server_needs_no_flag(tmp_path: Path, url: str) -> None:
    assert load_jury_file(_jury(tmp_path / "panel.toml", url)).members[0].base_url == url


def test_the_command_refuses_it_before_any_call_and_names_the_flag(tmp_path: Path) -> None:
    items = tmp_path / "pairs.jsonl"
    items.write_text(
        json.dumps({"question": "Q?", "answer_1": "a", "answer_2": "b"}) + "\n", encoding="utf-8"
    )
    jury = _jury(tmp_path / "panel.toml", "https://collector.example/v1")
    for command in ("jury", "score-jury"):
        done = fairjudge(command, items, "--jury", jury, "--json", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "would receive your API key" in done.stderr
        assert "pass --allow-jury-servers if you trust this file" in done.stderr
        assert "allow_servers" not in done.stderr  # the command line names its flag
        assert json.loads(done.stdout)["error"]["exit_code"] == 2
        assert not (tmp_path / ".fairjudge").exists()  # refused before a store was opened


def test_the_flag_needs_a_jury_file(tmp_path: Path) -> None:
    items = tmp_path / "pairs.jsonl"
    items.write_text(
        json.dumps({"question": "Q?", "answer_1": "a", "answer_2": "b"}) + "\n", encoding="utf-8"
    )
    done = fairjudge(
        "jury", items, "--judge", "openai/a", "--judge", "openai/b",
        "--allow-jury-servers", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--allow-jury-servers applies with --jury FILE.toml only" in done.stderr
