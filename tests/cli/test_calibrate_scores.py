"""`calibrate` on pointwise input: rubric scores against human scores, per dimension."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import kendalltau, spearmanr
from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.cli._exit_codes import EXIT_GATE_FAILED
from tests.out_file import out_records
from tests.score_server import by_answer, script
from tests.server import JudgeServer

runner = CliRunner()
DIGITS = "python:tests.scorers:digits"
SYSTEMS = ("s0", "s1", "s2", "s3")


def _rows(*, usefulness: bool = True) -> list[dict[str, object]]:
    rows = []
    for q in range(6):
        for i, system in enumerate(SYSTEMS):
            level = min(5, 1 + i + q % 2)
            row: dict[str, object] = {
                "id": f"q{q}", "system": system, "question": f"Question {q}?",
                "answer": f"{level} from {system}",
                # Within the 1-5 scale (off-scale labels are refused): 1 to 3.25.
                "human_accuracy": (2 * level + (q % 3) / 2) / 4 + 0.5,
            }  # fmt: skip
            if usefulness:
                row["human_usefulness"] = level
            rows.append(row)
    return rows


def _write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _calibrate(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["calibrate", *args, "--bootstrap", "300"])
    return result.exit_code, result.stdout, result.stderr


def test_agreeing_dimensions_pass_with_their_correlations(tmp_path: Path) -> None:
    rows = _rows(usefulness=False)
    code, stdout, stderr = _calibrate(str(_write(tmp_path, rows)), "--judge", DIGITS, "--json")
    assert code == 0, stderr
    report = json.loads(stdout)
    assert (report["input"], report["rubric"], report["passed"]) == (
        "pointwise",
        "production@1",
        True,
    )
    [accuracy] = report["dimensions"]  # only the dimension with human scores is gated
    judge = [int(str(r["answer"])[0]) for r in rows]
    human = [r["human_accuracy"] for r in rows]
    c = accuracy["correlation"]
    assert c["spearman"] == pytest.approx(spearmanr(judge, human).statistic)
    assert c["kendall"] == pytest.approx(kendalltau(judge, human).statistic)
    assert (c["passed"], c["n"], c["n_questions"]) == (True, 24, 6)
    assert c["spearman_ci"]["low"] <= c["spearman"] <= c["spearman_ci"]["high"]
    system = accuracy["system"]
    assert (system["spearman"], system["n_systems"], system["n_items"]) == (1.0, 4, 24)
    assert [s["system"] for s in system["systems"]] == ["s3", "s2", "s1", "s0"]
    assert system["systems"][0]["judge_mean"] == pytest.approx(4.5)


def test_a_dimension_below_the_gate_fails_it_with_exit_3(tmp_path: Path) -> None:
    path = _write(tmp_path, _rows())
    code, stdout, stderr = _calibrate(str(path), "--judge", DIGITS)
    assert code == EXIT_GATE_FAILED
    assert "gate failed: Spearman < 0.7 on usefulness" in " ".join(stderr.split())
    text = " ".join(stdout.split())
    assert "judge vs human scores: rubric production@1, gate Spearman >= 0.7" in text
    assert "-1.00" in text  # usefulness is the human score's mirror image
    code, stdout, _ = _calibrate(str(path), "--judge", DIGITS, "--min-spearman", "-1", "--json")
    assert code == 0
    assert json.loads(stdout)["failed"] == []


def test_over_the_scripted_server(score_server: JudgeServer, tmp_path: Path) -> None:
    rows = [
        {"question": f"Q{i}?", "answer": f"answer {i}", "human_accuracy": h}
        for i, h in enumerate([1, 2, 2, 4, 5])
    ]
    replies = {f"answer {i}": json.dumps({"accuracy": a, "relevance": 3, "usefulness": 3})
               for i, a in enumerate([1, 3, 2, 4, 5])}  # fmt: skip
    script(score_server, by_answer(replies))
    out = tmp_path / "scores.jsonl"
    code, stdout, stderr = _calibrate(
        str(_write(tmp_path, rows)), "--judge", "openai/scripted-judge", "--base-url",
        score_server.base_url, "--store", str(tmp_path / "s.sqlite"), "--quiet", "--json",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, stderr
    report = json.loads(stdout)
    c = report["dimensions"][0]["correlation"]
    assert c["spearman"] == pytest.approx(spearmanr([1, 3, 2, 4, 5], [1, 2, 2, 4, 5]).statistic)
    assert report["dimensions"][0]["skipped"] == {}
    assert report["calls"]["made"] == 5
    assert score_server.count("requests") == 5
    assert out_records(out, "calibrate")[1]["human"] == {"accuracy": 2.0}


@pytest.mark.parametrize(
    ("rows", "extra", "message"),
    [
        ([{"question": "q", "answer": "3"}], [],
         "have no human_<dimension> score (first: id '1'); calibration needs a human "
         "score on every item; to score answers that have none, run fairjudge score FILE"),
        ([{"question": "q", "answer": "3", "human_clarity": 2}], [],
         "column 'human_clarity' names no dimension of the rubric"),
        ([{"question": "q", "answer": "3", "human_accuracy": 2}], ["--rounds", "4"],
         "--rounds does not apply to pointwise input"),
        ([{"question": "q", "answer_1": "a", "answer_2": "b", "human": "1"}],
         ["--rubric", "production"], "--rubric applies to pointwise input"),
    ],
)  # fmt: skip
def test_input_and_usage_errors_exit_2_before_any_call(
    score_server: JudgeServer, tmp_path: Path, rows: list[dict[str, object]], extra: list[str],
    message: str,
) -> None:  # fmt: skip
    path = _write(tmp_path, rows)
    code, _, stderr = _calibrate(
        str(path), "--judge", "openai/scripted-judge", "--base-url", score_server.base_url,
        "--store", str(tmp_path / "s.sqlite"), *extra,
    )  # fmt: skip
    assert code == 2, stderr
    assert message in " ".join(stderr.split())
    assert score_server.count("requests") == 0


def test_from_stdin_the_rubric_selects_pointwise_input() -> None:
    text = "".join(json.dumps(r) + "\n" for r in _rows(usefulness=False))
    args = ["calibrate", "-", "--judge", DIGITS, "--json", "--bootstrap", "100"]
    result = runner.invoke(app, [*args, "--rubric", "production"], input=text)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["input"] == "pointwise"
    result = runner.invoke(app, args, input=text)  # without it, stdin is read as pairwise
    assert result.exit_code == 2
    assert "missing column 'answer_1'" in " ".join(result.stderr.split())
