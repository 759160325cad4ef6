"""A budget stop (``--max-calls``, ``--max-cost``) reports and keeps the partial result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.cli._invoke import invoke
from tests.cli.conftest import GOOD_ROWS
from tests.out_file import out_records
from tests.server import JudgeServer

ROWS = [
    {"id": str(i), "question": f"q{i}", "answer_1": "a longer answer", "answer_2": "short"}
    for i in range(10)
]


def _items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def _args(tmp_path: Path, server: JudgeServer, *more: str) -> list[str]:
    return [
        "compare", str(_items(tmp_path)), "--judge", "openai/m", "--base-url", server.base_url,
        "--store", str(tmp_path / "s.sqlite"), "-q", "--concurrency", "1", *more,
    ]  # fmt: skip


def test_max_calls_keeps_the_partial_result(tmp_path: Path, openai_env: JudgeServer) -> None:
    openai_env.configure(judge="longer")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app, _args(tmp_path, openai_env, "--max-calls", "8", "--json", "--out", str(out))
    )
    assert result.exit_code == 5, result.output
    summary = json.loads(result.stdout)
    assert summary["partial"] is True
    assert summary["n_not_run"] == 6
    assert summary["win_rate"]["n"] == 4  # 8 calls: 4 items in both orders
    assert summary["win_rate"]["estimate"] == 1.0
    records = out_records(out)
    assert len(records) == 10
    assert sum(r["outcome"] is not None for r in records) == 4
    rest = CliRunner().invoke(app, _args(tmp_path, openai_env, "--json"))  # finishes the work
    assert rest.exit_code == 0, rest.output
    assert json.loads(rest.stdout)["win_rate"]["n"] == 10
    assert openai_env.count("requests") == 20  # no call paid twice


def test_the_table_shows_the_cost(tmp_path: Path, openai_env: JudgeServer) -> None:
    args = _args(tmp_path, openai_env, "--max-cost", "1", "--price-input", "0.5")
    result = CliRunner().invoke(app, [*args, "--price-output", "1.5"])
    assert result.exit_code == 0, result.output
    assert "est. $" in result.stdout


def test_the_table_says_partial(tmp_path: Path, openai_env: JudgeServer) -> None:
    result = CliRunner().invoke(app, _args(tmp_path, openai_env, "--max-calls", "3"))
    assert result.exit_code == 5, result.output
    assert "partial result" in result.stdout
    text = " ".join(result.stdout.split())
    assert "9 item(s) not yet judged" in text
    assert "NotRun" not in text  # calls not made are counted as such, not as failures
    assert "--max-calls 3" in result.stderr


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--max-calls", "-5"), ("--max-cost", "nan"), ("--rpm", "nan"), ("--tpm", "-1")],
)
def test_bad_budgets_are_usage_errors(
    tmp_path: Path, openai_env: JudgeServer, flag: str, value: str
) -> None:
    args = _args(tmp_path, openai_env, flag, value)
    if flag == "--max-cost":
        args += ["--price-input", "1", "--price-output", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert flag in result.output
    assert openai_env.count("requests") == 0


def test_budget_stop_with_json_prints_json(
    write_jsonl,
    tmp_path: Path,
    openai_env: JudgeServer,  # type: ignore[no-untyped-def]
) -> None:
    result = invoke(
        "compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/m", "-q", "--json",
        "--base-url", openai_env.base_url, "--store", str(tmp_path / "s.sqlite"),
        "--max-calls", "2",
    )  # fmt: skip
    assert result.exit_code == 5  # stopped by the budget: a partial result (issue 10)
    summary = json.loads(result.stdout)
    assert summary["partial"] is True
    assert "--max-calls 2" in summary["stopped"]
