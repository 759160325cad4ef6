"""Input that is wrong is refused before any call, as a process.

Before: ``--judge ''`` ran the default embedded judge; human scores off the rubric's
scale were accepted; an empty answer was judged silently; an unterminated CSV quote
read as "missing column 'answer_1'"; only the first bad row was reported.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.judges import resolve_judge, resolve_pointwise_judge
from tests.cli_process import fairjudge, flat

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "fairjudge" / "examples"
PAIRWISE = "python:fairjudge.examples.judges:longer"
SCORER = "python:fairjudge.examples.judges:scorer"


def refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """Assert an input error (exit 2, nothing on stdout) saying ``words``; its text."""
    err = flat(done.stderr)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    for word in words:
        assert flat(word) in err, err
    return err


# -- item 3: an empty --judge is an error, never the default ---------------------------


@pytest.mark.parametrize(
    ("command", "file"),
    [
        ("compare", "demo_pairs.jsonl"),
        ("score", "score_answers.jsonl"),
        ("rank", "rank_answers.jsonl"),
        ("calibrate", "calibration.jsonl"),
    ],
)
@pytest.mark.parametrize("spec", ["", "   "])
def test_an_empty_judge_is_refused_not_replaced_by_the_default(
    command: str, file: str, spec: str
) -> None:
    done = fairjudge(command, EXAMPLES / file, "--judge", spec)
    err = refused(done, f"--judge: empty judge spec {spec!r}", "leave --judge out")
    assert "qwen2.5-coder-1.5b' needs" not in err  # the default model was never opened


def test_an_empty_panel_member_is_refused() -> None:
    jury = fairjudge("jury", EXAMPLES / "demo_pairs.jsonl", "--judge", PAIRWISE, "--judge", "")
    refused(jury, "--judge: empty judge spec ''")
    scoring = fairjudge(
        "score-jury", EXAMPLES / "score_answers.jsonl", "--judge", SCORER, "--judge", " "
    )
    refused(scoring, "--judge: empty judge spec ' '")


def test_audit_refuses_an_empty_judge() -> None:
    done = fairjudge("audit", "--judge", "", "--limit", "1", "--experiments", "position")
    refused(done, "--judge: empty judge spec ''")


@pytest.mark.parametrize("spec", ["", " \t"])
def test_a_jury_file_member_with_an_empty_judge_is_refused(tmp_path: Path, spec: str) -> None:
    toml = tmp_path / "jury.toml"
    toml.write_text(f'[[member]]\njudge = {json.dumps(spec)}\n[[member]]\njudge = "{PAIRWISE}"\n')
    done = fairjudge("jury", EXAMPLES / "demo_pairs.jsonl", "--jury", toml, "--allow-python-judges")
    refused(done, f"member.0.judge: empty judge spec {spec!r}")


def test_the_library_names_the_parameter() -> None:
    with pytest.raises(ConfigError, match=r"^judge: empty judge spec ''") as info:
        resolve_judge("")
    assert "judge" in info.value.params
    with pytest.raises(ConfigError, match=r"^judge: empty judge spec ' '"):
        resolve_pointwise_judge(" ")


# -- item 11: human scores off the rubric's scale ----------------------------------------


def _score_rows(n: int = 4, **extra: object) -> list[dict[str, object]]:
    return [
        {"id": f"q{i}", "question": f"Question {i}?", "answer": f"Canberra {i}.",
         "human_accuracy": 1 + i % 5, **extra}
        for i in range(n)
    ]  # fmt: skip


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["score", "calibrate"])
@pytest.mark.parametrize("bad", [9, 0, -1, 5.5])
def test_a_human_score_off_the_scale_is_refused_with_its_line(
    tmp_path: Path, command: str, bad: float
) -> None:
    rows = _score_rows()
    rows[2]["human_accuracy"] = bad
    done = fairjudge(command, _jsonl(tmp_path / "s.jsonl", rows), "--judge", SCORER)
    refused(done, f"s.jsonl:3: 'human_accuracy' is {bad!r}, outside the rubric's scale 1-5")


def test_a_human_score_between_two_levels_is_kept(tmp_path: Path) -> None:
    rows = _score_rows(6)
    rows[1]["human_accuracy"] = 3.5  # the mean of two raters
    done = fairjudge("score", _jsonl(tmp_path / "s.jsonl", rows), "--judge", SCORER)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("bad", ["high", True, [3]])
def test_a_human_score_that_is_no_number_is_refused(tmp_path: Path, bad: object) -> None:
    rows = _score_rows()
    rows[1]["human_accuracy"] = bad
    done = fairjudge("score", _jsonl(tmp_path / "s.jsonl", rows), "--judge", SCORER)
    refused(done, "s.jsonl:2: 'human_accuracy' must be a number")


# -- item 11: empty answers --------------------------------------------------------------


@pytest.mark.parametrize("empty", ["", "  \n\t"])
def test_an_empty_answer_is_refused_unless_allowed_when_scoring(tmp_path: Path, empty: str) -> None:
    rows = _score_rows()
    rows[1]["answer"] = empty
    path = _jsonl(tmp_path / "s.jsonl", rows)
    for command in ("score", "calibrate"):
        done = fairjudge(command, path, "--judge", SCORER)
        refused(done, "s.jsonl:2: 'answer' is empty", "--allow-empty")
    allowed = fairjudge("score", path, "--judge", SCORER, "--allow-empty")
    assert allowed.returncode == 0, allowed.stderr


@pytest.mark.parametrize("command", ["compare", "jury"])
def test_an_empty_answer_is_refused_unless_allowed_in_pairs(tmp_path: Path, command: str) -> None:
    text = (EXAMPLES / "demo_pairs.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    rows[3]["answer_2"] = " "
    path = _jsonl(tmp_path / "p.jsonl", rows)
    judges = ["--judge", PAIRWISE] * (2 if command == "jury" else 1)
    refused(fairjudge(command, path, *judges), "p.jsonl:4: 'answer_2' is empty", "--allow-empty")
    allowed = fairjudge(command, path, *judges, "--allow-empty")
    assert allowed.returncode != 2, allowed.stderr
    assert "is empty" not in allowed.stderr


def test_audit_items_with_an_empty_answer_are_refused_unless_allowed(tmp_path: Path) -> None:
    rows = _score_rows()
    for row in rows:
        del row["human_accuracy"]
    rows[0]["answer"] = ""
    path = _jsonl(tmp_path / "a.jsonl", rows)
    done = fairjudge("audit", "--items", path, "--judge", "openai/x", "--experiments", "position")
    refused(done, "a.jsonl:1: 'answer' is empty", "--allow-empty")


def test_a_skipped_row_names_the_flag_on_stderr_and_in_json(tmp_path: Path) -> None:
    """The readers word their messages for library users; the command shows its flags."""
    text = (EXAMPLES / "demo_pairs.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    rows[1]["answer_1"] = ""
    path = _jsonl(tmp_path / "p.jsonl", rows)
    done = fairjudge("compare", path, "--judge", PAIRWISE, "--skip-invalid", "--json")
    assert done.returncode == 0, done.stderr
    assert "p.jsonl:2: 'answer_1' is empty; fill it in, or pass --allow-empty" in done.stderr
    assert "allow_empty" not in done.stderr + done.stdout
    [skipped] = json.loads(done.stdout)["skipped_rows"]
    assert skipped["line"] == 2
    assert "pass --allow-empty to judge empty answers" in skipped["message"]


def test_rank_refuses_an_empty_answer_unless_allowed(tmp_path: Path) -> None:
    text = (EXAMPLES / "rank_answers.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    rows[2]["answer"] = "  "
    path = _jsonl(tmp_path / "r.jsonl", rows)
    refused(fairjudge("rank", path, "--judge", PAIRWISE), "r.jsonl:3: 'answer' is empty")
    allowed = fairjudge("rank", path, "--judge", PAIRWISE, "--allow-empty", "--json")
    assert allowed.returncode == 0, allowed.stderr
    assert len(json.loads(allowed.stdout)["ratings"]) == 4


# -- item 11: an unterminated CSV quote ---------------------------------------------------


def test_an_unterminated_csv_quote_is_named_at_the_line_it_opened(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(
        'question,answer_1,answer_2\nq1,"two\nlines",b\nq2,"never closed,b\nq3,c,d\nq4,e,f\n',
        encoding="utf-8",
    )
    err = refused(fairjudge("compare", path, "--judge", PAIRWISE), "p.csv:4: invalid CSV")
    assert "never closes" in err
    assert "missing column" not in err


def test_a_csv_with_closed_quotes_across_lines_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(
        'question,answer_1,answer_2\nq1,"two\nlines with ""quotes""",b\nq2,c,"d"\n',
        encoding="utf-8",
    )
    done = fairjudge("compare", path, "--judge", PAIRWISE)
    assert done.returncode != 2, done.stderr


# -- item 11: every bad row, up to five ---------------------------------------------------


def test_up_to_five_bad_rows_are_reported_and_the_rest_counted(tmp_path: Path) -> None:
    rows = _score_rows(10)
    for i in (1, 3, 4, 6, 7, 8, 9):  # lines 2, 4, 5, 7, 8, 9, 10
        rows[i]["human_accuracy"] = 7
    err = refused(fairjudge("score", _jsonl(tmp_path / "s.jsonl", rows), "--judge", SCORER))
    assert err.startswith("error: ")
    assert "s.jsonl:2: 'human_accuracy' is 7, outside the rubric's scale 1-5" in err
    for line in (4, 5, 7, 8):
        assert f"| line {line}: 'human_accuracy' is 7" in err
    assert "line 9:" not in err
    assert "| and 2 more invalid rows (7 invalid rows; fix them, or pass --skip-invalid" in err


def test_two_bad_rows_are_both_reported(tmp_path: Path) -> None:
    text = (EXAMPLES / "demo_pairs.jsonl").read_text(encoding="utf-8")
    lines = text.splitlines()
    lines[1], lines[4] = "not json", '{"question": "q"}'
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    err = refused(fairjudge("compare", path, "--judge", PAIRWISE), "p.jsonl:2: invalid JSON")
    assert "| line 5: missing column 'answer_1'" in err
    assert "(2 invalid rows;" in err
