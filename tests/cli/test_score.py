"""`fairjudge score`: the scripted server and Python judges through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.out_file import out_records
from tests.score_server import by_answer, script
from tests.server import JudgeServer

runner = CliRunner()
SCORERS = "python:tests.scorers"


def _score(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["score", *args])
    return result.exit_code, result.stdout, result.stderr


def _file(tmp_path: Path, answers: list[str], **extra: object) -> Path:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": a, **extra}
            for i, a in enumerate(answers)]  # fmt: skip
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _server_args(server: JudgeServer, tmp_path: Path) -> list[str]:
    return [
        "--judge", "openai/scripted-judge", "--base-url", server.base_url,
        "--store", str(tmp_path / "store.sqlite"), "--quiet",
    ]  # fmt: skip


def test_scores_over_the_server_json_out_and_a_free_rerun(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    replies = {
        "good": '{"accuracy": 5, "relevance": 5, "usefulness": 4, "reason": "fine"}',
        "poor": 'Sure. {"accuracy": 2, "relevance": 3, "usefulness": 1, "reason": "wrong"}',
        "junk": "I cannot score this.",
    }
    script(score_server, by_answer(replies))
    path, out = _file(tmp_path, list(replies)), tmp_path / "out.jsonl"
    args = [str(path), *_server_args(score_server, tmp_path), "--json", "--max-unresolved", "0.5"]
    code, stdout, stderr = _score(*args, "--out", str(out))
    assert code == 0, stderr
    summary = json.loads(stdout)
    means = {d["name"]: d["mean"]["estimate"] for d in summary["dimensions"]}
    assert means == {"accuracy": 3.5, "relevance": 4.0, "usefulness": 2.5}
    assert (summary["n_parse_failures"], summary["n_unscored"]) == (1, 1)
    assert summary["calls"]["made"] == 3
    assert list(summary["failures"]) == [
        "parse failure: no scores: the reply holds no JSON object: 'I cannot score this.'"
    ]
    records = out_records(out, "score")
    assert [r["scores"] for r in records][:2] == [
        {"accuracy": 5, "relevance": 5, "usefulness": 4},
        {"accuracy": 2, "relevance": 3, "usefulness": 1},
    ]
    assert records[1]["calls"][0]["raw"] == replies["poor"]
    assert records[2]["calls"][0]["failure"] == "parse_failure"
    assert records[0]["calls"][0]["key"]

    code, stdout, _ = _score(*args)
    assert code == 0
    again = json.loads(stdout)
    assert (again["calls"]["made"], again["calls"]["cached"]) == (0, 3)
    assert again["dimensions"] == summary["dimensions"]
    assert score_server.count("requests") == 3


def test_fail_on_collapse_exits_6(tmp_path: Path) -> None:
    path = _file(tmp_path, [f"{c} answer" for c in "abcdeabcdeab"])
    code, _, _ = _score(str(path), "--judge", f"{SCORERS}:fours")
    assert code == 0  # the alarm is shown, and only fails the run when asked
    code, stdout, stderr = _score(str(path), "--judge", f"{SCORERS}:fours", "--fail-on-collapse")
    assert code == 6
    assert "collapse alarm: accuracy: 100% of scores are 4" in " ".join(stdout.split())
    assert "dimension(s) accuracy, relevance, usefulness" in stderr
    code, stdout, _ = _score(
        str(path), "--judge", f"{SCORERS}:spread", "--fail-on-collapse", "--json"
    )
    assert code == 0
    assert json.loads(stdout)["collapsed"] == []


def test_too_many_unscored_items_exit_4(tmp_path: Path) -> None:
    path = _file(tmp_path, ["ok", "x1", "x2", "fine"])
    code, stdout, _ = _score(str(path), "--judge", f"{SCORERS}:half_broken", "--json")
    assert code == 4
    summary = json.loads(stdout)
    assert summary["n_parse_failures"] == 2
    assert (
        "parse failure: invalid scores: 'accuracy' is 9, outside the scale 1-5"
        in (summary["failures"])
    )


def test_a_bad_row_stops_before_any_call(score_server: JudgeServer, tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"question": "q", "answer": "a"}\n{"question": "q2"}\n', encoding="utf-8")
    code, stdout, stderr = _score(str(path), *_server_args(score_server, tmp_path), "--json")
    assert code == 2
    assert f"{path}:2: missing column 'answer'" in " ".join(stderr.split())
    assert json.loads(stdout)["error"]["exit_code"] == 2
    assert score_server.count("requests") == 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--template", "json"], "--template does not apply to score"),
        (["--rubric", "nope"], "unknown rubric 'nope'"),
        (["--rubric", "basic", "--mode", "label"], "every level must be one digit"),
        (["--rubric", "reference"], "needs a reference"),
        (["--level", "1.5"], "--level must be in (0, 1)"),
    ],
)
def test_usage_errors_exit_2_before_any_call(
    score_server: JudgeServer, tmp_path: Path, extra: list[str], message: str
) -> None:
    path = _file(tmp_path, ["a", "b"])
    code, _, stderr = _score(str(path), *_server_args(score_server, tmp_path), *extra)
    assert code == 2, stderr
    assert message in " ".join(stderr.split())
    assert score_server.count("requests") == 0


def test_python_judge_rejects_model_flags(tmp_path: Path) -> None:
    path = _file(tmp_path, ["a"])
    code, _, stderr = _score(str(path), "--judge", f"{SCORERS}:fours", "--mode", "label")
    assert code == 2
    assert "--mode does not apply" in stderr


def test_a_spent_budget_keeps_a_partial_result_and_a_rerun_finishes(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    script(score_server, lambda prompt: '{"accuracy": 3, "relevance": 4, "usefulness": 5}')
    path = _file(tmp_path, ["a", "b", "c", "d"])
    args = [str(path), *_server_args(score_server, tmp_path), "--json", "--concurrency", "1"]
    code, stdout, _ = _score(*args, "--max-calls", "2")
    assert code == 5
    partial = json.loads(stdout)
    assert partial["stopped"] is not None
    assert (partial["n_not_run"], partial["n_unscored"]) == (2, 2)
    assert [d["n"] for d in partial["dimensions"]] == [2, 2, 2]
    code, stdout, _ = _score(*args)
    assert code == 0
    done = json.loads(stdout)
    assert (done["calls"]["made"], done["calls"]["cached"]) == (2, 2)
    assert [d["mean"]["estimate"] for d in done["dimensions"]] == [3.0, 4.0, 5.0]
    assert score_server.count("requests") == 4
