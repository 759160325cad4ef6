from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.cli.conftest import GOOD_ROWS
from tests.out_file import out_records

runner = CliRunner()
LONGER = "python:tests.judge_fixtures:longer"


def run(*args: str) -> tuple[int, str]:
    """Exit code, and stdout alone for --json (stderr carries the notes), else all output."""
    result = runner.invoke(app, ["compare", *args])
    return result.exit_code, result.stdout if "--json" in args else result.output


def test_compare_prints_table(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    code, out = run(str(write_jsonl(GOOD_ROWS)), "--judge", LONGER)
    assert code == 0, out
    assert "win rate of model 1 (debiased)" in out
    assert "single-order win rate (naive)" in out
    assert "position consistency" in out


def test_compare_json_and_out(write_jsonl, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out_file = tmp_path / "results.jsonl"
    code, out = run(
        str(write_jsonl(GOOD_ROWS)), "--judge", LONGER, "--json", "--out", str(out_file)
    )
    assert code == 0, out
    summary = json.loads(out)
    # longer judge: item a -> ans2 longer (loss), b -> ans2 longer (loss), c -> ans1 (win)
    assert summary["win_rate"]["wins"] == 1
    assert summary["win_rate"]["losses"] == 2
    assert summary["win_rate"]["estimate"] == pytest.approx(1 / 3)
    assert summary["position_consistency"]["estimate"] == 1.0
    records = out_records(out_file, "compare")
    assert [r["id"] for r in records] == ["a", "b", "c"]
    assert all(len(r["calls"]) == 2 and r["calls"][0]["raw"] for r in records)
    assert records[2]["outcome"] == "1"


def test_parse_failures_are_reported_not_ties(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    code, out = run(
        str(write_jsonl(GOOD_ROWS)), "--judge", "python:tests.judge_fixtures:garbage", "--json"
    )
    assert code == 4, out  # no item resolved: the numbers cannot be trusted
    summary = json.loads(out)
    assert summary["n_parse_failures"] == 6
    assert summary["n_unresolved"] == 3
    assert summary["win_rate"] is None


def test_rich_replies_are_parsed(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    code, out = run(
        str(write_jsonl(GOOD_ROWS)), "--judge", "python:tests.judge_fixtures:explains", "--json"
    )
    assert code == 0, out
    assert json.loads(out)["n_parse_failures"] == 0


def test_fatal_backend_error_exits_1(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    code, out = run(str(write_jsonl(GOOD_ROWS)), "--judge", "python:tests.judge_fixtures:fatal")
    assert code == 1
    assert "judging failed" in out


@pytest.mark.parametrize(
    ("rows", "needle"),
    [
        ([{"question": "q", "answer_1": "a"}], "missing column 'answer_2'"),
        ([{"question": "  ", "answer_1": "a", "answer_2": "b"}], "'question' is empty"),
        ([{"question": "q", "answer_1": 3, "answer_2": "b"}], "'answer_1' must be a string"),
        (
            [
                {"id": "x", "question": "q", "answer_1": "a", "answer_2": "b"},
                {"id": "x", "question": "q2", "answer_1": "a", "answer_2": "b"},
            ],
            "duplicate id 'x' (first seen on line 1)",
        ),
        ([{"question": "q", "answer_1": "a", "answer_2": "b", "human": "maybe"}], "'human'"),
        ([["q", "a", "b"]], "expected a JSON object"),
    ],
)
def test_bad_rows_exit_2_naming_file_and_line(write_jsonl, rows, needle) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(rows)
    code, out = run(str(path), "--judge", LONGER)
    assert code == 2, out
    flat = " ".join(out.split())
    assert needle in flat
    assert "items.jsonl:" in flat


def test_invalid_json_line_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps(GOOD_ROWS[0])
    path.write_text(f"{good}\n{{not json\n", encoding="utf-8")
    code, out = run(str(path), "--judge", LONGER)
    assert code == 2
    assert "bad.jsonl:2: invalid JSON" in " ".join(out.split())


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    code, out = run(str(path), "--judge", LONGER)
    assert code == 2
    assert "file is empty" in out


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"question": "caf\xe9", "answer_1": "a", "answer_2": "b"}\n')
    code, out = run(str(path), "--judge", LONGER)
    assert code == 2
    assert "not UTF-8" in out


def test_missing_file_and_unknown_type(tmp_path: Path) -> None:
    code, out = run(str(tmp_path / "nope.jsonl"), "--judge", LONGER)
    assert code == 2
    assert "no such file" in out
    other = tmp_path / "x.txt"
    other.write_text("hello", encoding="utf-8")
    code, out = run(str(other), "--judge", LONGER)
    assert code == 2
    assert "unknown file type" in out


def test_skip_invalid_lists_skipped_rows_and_judges_the_rest(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [*GOOD_ROWS, {"question": "", "answer_1": "a", "answer_2": "b"}]
    path = write_jsonl(rows)
    code, out = run(str(path), "--judge", LONGER)
    assert code == 2, out
    result = runner.invoke(
        app, ["compare", str(path), "--judge", LONGER, "--skip-invalid", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "skipped" in result.stderr
    assert "items.jsonl:4" in result.stderr
    summary = json.loads(result.stdout)
    assert summary["n_items"] == 3
    (skipped,) = summary["skipped_rows"]  # listed in the JSON too (issue 10)
    assert skipped["line"] == 4
    assert skipped["source"].endswith("items.jsonl")


def test_csv_input_and_column_mapping(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("prompt,x,y\nCapital?,Paris,Lyon is it\n2+2?,4,five\n", encoding="utf-8")
    code, out = run(
        str(path),
        "--judge",
        LONGER,
        "--question-col",
        "prompt",
        "--answer1-col",
        "x",
        "--answer2-col",
        "y",
        "--json",
    )
    assert code == 0, out
    assert json.loads(out)["n_items"] == 2
    code, out = run(str(path), "--judge", LONGER)
    assert code == 2
    assert "missing column 'question'" in " ".join(out.split())


def test_parquet_input(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "items.parquet"
    pq.write_table(pa.Table.from_pylist(GOOD_ROWS), path)
    code, out = run(str(path), "--judge", LONGER, "--json")
    assert code == 0, out
    assert json.loads(out)["n_items"] == 3


def test_bad_judge_spec_exits_2(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    code, out = run(str(write_jsonl(GOOD_ROWS)), "--judge", "python:no_such_module_xyz:f")
    assert code == 2
    assert "no_such_module_xyz" in out


def test_rounds_and_rules(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = str(write_jsonl(GOOD_ROWS))
    code, out = run(
        path, "--judge", "python:tests.judge_fixtures:always_a", "--rounds", "4", "--json"
    )
    assert code == 0, out
    s = json.loads(out)
    assert s["position_consistency"]["estimate"] == 0.0
    assert s["first_position_call_rate"]["estimate"] == 1.0
    code, out = run(path, "--judge", LONGER, "--rounds", "3")
    assert code == 2


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/v1", "http://127.0.0.1:port/v1"])
def test_a_bad_port_in_the_base_url_is_a_usage_error(write_jsonl, tmp_path: Path, url: str) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(GOOD_ROWS)
    result = runner.invoke(
        app,
        ["compare", str(path), "--judge", "openai/m", "--base-url", url,
         "--store", str(tmp_path / "s.sqlite")],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "bad port" in result.output
    assert "Traceback" not in result.output
