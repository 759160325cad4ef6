"""A refused key: check it when one was sent; say none was sent when its variable is unset.

With ``--base-url`` a call goes out without a key (the server may need none), so a
server that wants one answers 401; "check the key in $OPENAI_API_KEY" pointed at a
variable that is not set (QA40 F5).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge._errors import AuthenticationError
from fairjudge.backends._http_errors import error_from_status
from tests.cli._invoke import invoke
from tests.server import DEFAULT_API_KEY, JudgeServer, Script

PAIRS = Path(__file__).resolve().parents[2] / "src/fairjudge/examples/demo_pairs.jsonl"


@pytest.mark.parametrize("key_env", ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"])
def test_an_unset_variable_is_named_as_unset(key_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(key_env, raising=False)
    error = error_from_status(401, "Incorrect API key provided: .", backend="b", where="w",
                              key_env=key_env)  # fmt: skip
    assert isinstance(error, AuthenticationError)
    assert str(error).endswith(
        f"; no key was sent (${key_env} is not set) and the server wants one: set ${key_env}"
    )
    assert "check the key" not in str(error)


def test_a_set_variable_is_to_be_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    error = error_from_status(401, "no", backend="b", where="w", key_env="OPENAI_API_KEY")
    assert str(error).endswith("; check the key in $OPENAI_API_KEY")


def test_base_url_without_a_key_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with JudgeServer(Script(judge="longer", api_key=DEFAULT_API_KEY)) as server:
        store = str(tmp_path / "s.sqlite")
        done = invoke("compare", str(PAIRS), "--judge", "openai/gpt-4o",
                      "--base-url", server.base_url, "--store", store)  # fmt: skip
    assert done.exit_code == 1
    text = " ".join(done.stderr.split())
    assert "HTTP 401" in text
    assert "no key was sent ($OPENAI_API_KEY is not set) and the server wants one" in text
    assert "check the key" not in text
