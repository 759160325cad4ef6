"""Bracketed text in a path, column, label or model name is printed as written, not as markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli._invoke import LONGER, invoke
from tests.cli.conftest import GOOD_ROWS


def test_bracketed_text_survives_in_a_path(tmp_path: Path) -> None:
    result = invoke("compare", str(tmp_path / "[bold]x.jsonl"), "--judge", LONGER)
    assert result.exit_code == 2
    assert "[bold]x.jsonl" in result.output


def test_bracketed_text_survives_in_a_column(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    result = invoke("compare", str(path), "--judge", LONGER, "--question-col", "[bold]q")
    assert result.exit_code == 2
    assert "[bold]q" in result.output


def test_bracketed_text_survives_in_a_label(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [{**GOOD_ROWS[0], "human": "[bold]1"}]
    result = invoke("calibrate", str(write_jsonl(rows)), "--judge", LONGER)
    assert result.exit_code == 2
    assert "[bold]1" in result.output


def test_bracketed_text_survives_in_a_model_name(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"model_a": "[bold]m", "model_b": "plain", "winner": w, "question_id": str(i)}
        for i, w in enumerate(["model_a", "model_b", "tie", "model_a"])
    ]
    result = invoke("rank", str(write_jsonl(rows)), "--bootstrap", "20")
    assert result.exit_code == 0, result.output
    assert "[bold]m" in result.stdout


def test_install_hint_in_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    from fairjudge.cli._app import say

    say("error", "Install it with: pip install 'fairjudge[local]'")
    assert "pip install 'fairjudge[local]'" in capsys.readouterr().err
