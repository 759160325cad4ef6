"""Unresolved items exit 4 and say why; a refused connection stops the run at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge.runner import Store
from tests.cli._invoke import LONGER, closed_port, invoke
from tests.cli.conftest import GOOD_ROWS


def test_a_judge_that_raises_exits_4_with_its_reason(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    result = invoke("compare", str(path), "--judge", "python:tests.judge_fixtures:raises")
    assert result.exit_code == 4
    assert "6 x RuntimeError: the judge's own bug" in result.output
    assert "3 of 3 items have no verdict" in result.output


def test_parse_failures_only_exit_4_with_the_reason(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    result = invoke("compare", str(path), "--judge", "python:tests.judge_fixtures:garbage")
    assert result.exit_code == 4
    assert "6 x parse failure: no verdict slot" in result.output


def test_max_unresolved_is_the_users_threshold(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    judge = "python:tests.judge_fixtures:garbage"
    assert invoke("compare", str(path), "--judge", judge, "--max-unresolved", "1").exit_code == 4
    assert invoke("compare", str(path), "--judge", LONGER, "--max-unresolved", "0").exit_code == 0
    bad = invoke("compare", str(path), "--judge", LONGER, "--max-unresolved", "2")
    assert bad.exit_code == 2
    assert "--max-unresolved must be in [0, 1]" in bad.output


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_a_refused_connection_stops_the_run_at_once(
    write_jsonl,
    tmp_path: Path,
    transport: str,  # type: ignore[no-untyped-def]
) -> None:
    port = closed_port()
    env = {"OPENAI_API_KEY": "sk-test-0000000000000000"}
    if transport == "sdk":  # a proxy variable makes the backend take the SDK path
        env |= {"HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1"}
    result = invoke(
        "compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/m",
        "--base-url", f"http://127.0.0.1:{port}/v1", "--store", str(tmp_path / "s.sqlite"),
        "-q", env=env,
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "Nothing answered on any attempt (3 tries)" in result.output
    assert f"127.0.0.1:{port}" in result.output  # the backend's own line names where
    assert "--base-url" in result.output  # it was given, so its fix names the flag
    with Store(tmp_path / "s.sqlite") as store:
        rows = list(store.records())
    assert len(rows) == 1  # one call failed; no other call was started
    assert rows[0].attempts == 3


def test_the_vendor_unreached_does_not_point_at_a_base_url_never_given(
    write_jsonl,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    """No --base-url: the stop names no flag the user did not give (the fix is the network).

    A closed local port stands for the vendor's host (the lean transport posts to
    ``https://{default_host}/v1``).
    """
    from fairjudge.backends import OpenAIBackend

    host = f"127.0.0.1:{closed_port()}"
    monkeypatch.setattr(OpenAIBackend, "default_host", host)
    result = invoke(
        "compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/gpt-4o-mini",
        "--store", str(tmp_path / "s.sqlite"), "-q",
        env={"OPENAI_API_KEY": "sk-test-0000000000000000"},
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "Nothing answered on any attempt" in result.output
    assert "the vendor's own API" in result.output
    assert "base-url" not in result.output
    assert "base_url" not in result.output
