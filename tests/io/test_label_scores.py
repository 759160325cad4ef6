"""The scoring sheet: human_<dimension> scores written to the right row, durably."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from fairjudge._errors import ConfigError
from fairjudge.io import ScoreSheet, is_pointwise_file, load_score_items, order_path
from fairjudge.io._labels import SheetChangedError, shown_order

DIMS = ("accuracy", "relevance")


def answers(path: Path, n: int = 6) -> Path:
    rows = [
        {"id": f"q{i // 2}", "question": f"Question {i // 2}?", "answer": f"answer {i}",
         "system": "alpha" if i % 2 else "beta"}
        for i in range(n)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_score_lands_on_the_row_of_the_answer_shown(tmp_path: Path) -> None:
    path = answers(tmp_path / "a.jsonl")
    sheet = ScoreSheet.open(path, dimensions=DIMS, scale=(1, 5), seed=4)
    assert sorted(sheet.order) == list(range(6))
    assert sheet.order != list(range(6))  # seed 4 shuffles these six
    first_shown = sheet.order[0]
    sheet.set_score(first_shown, "accuracy", 4)
    sheet.set_score(first_shown, "relevance", 2)
    assert sheet.complete(first_shown)
    assert sheet.done == 1
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert rows[first_shown]["human_accuracy"] == 4
    assert rows[first_shown]["human_relevance"] == 2
    assert rows[first_shown]["answer"] == sheet.items[first_shown].answer
    assert sum("human_accuracy" in r for r in rows) == 1
    loaded = load_score_items(path, dimensions=DIMS, scale=(1, 5)).items
    assert dict(loaded[first_shown].human) == {"accuracy": 4.0, "relevance": 2.0}
    sheet.set_score(first_shown, "relevance", None)
    assert not sheet.complete(first_shown)
    assert "human_relevance" not in json.loads(path.read_text("utf-8").splitlines()[first_shown])


def test_the_order_is_recorded_and_kept_on_resume(tmp_path: Path) -> None:
    path = answers(tmp_path / "a.jsonl")
    first = ScoreSheet.open(path, dimensions=DIMS, scale=(1, 5))
    recorded = json.loads(order_path(path).read_text("utf-8"))
    assert recorded["seed"] == first.seed
    assert recorded["shown_order"] == [first.items[i].key for i in first.order]
    assert recorded["shown_order"][0] in {"q0/alpha", "q0/beta", "q1/alpha", "q1/beta",
                                          "q2/alpha", "q2/beta"}  # fmt: skip
    first.set_score(2, "accuracy", 5)
    again = ScoreSheet.open(path, dimensions=DIMS, scale=(1, 5))
    assert again.order == first.order
    assert again.scores[2] == {"accuracy": 5.0}
    assert shown_order(3, ["a", "b", "c"]) == shown_order(3, ["a", "b", "c"])


def test_scores_off_the_scale_or_dimension_are_refused(tmp_path: Path) -> None:
    path = answers(tmp_path / "a.jsonl")
    sheet = ScoreSheet.open(path, dimensions=DIMS, scale=(1, 5), seed=0)
    before = path.read_bytes()
    with pytest.raises(ConfigError, match="off the rubric's scale 1-5"):
        sheet.set_score(0, "accuracy", 6)
    with pytest.raises(ConfigError, match="not one of"):
        sheet.set_score(0, "tone", 3)
    assert path.read_bytes() == before


def test_csv_gains_the_dimension_columns(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("id,question,answer\nx,Q?,A one\ny,Q2?,A two\n", encoding="utf-8")
    assert is_pointwise_file(path)
    sheet = ScoreSheet.open(path, dimensions=DIMS, scale=(1, 5), seed=1)
    sheet.set_score(1, "relevance", 3)
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["id", "question", "answer", "human_accuracy", "human_relevance"]
    assert (rows[1]["human_relevance"], rows[0]["human_relevance"]) == ("3", "")


def test_pairs_are_not_pointwise(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"question": "q", "answer_1": "a", "answer_2": "b"}\n', encoding="utf-8")
    assert not is_pointwise_file(path)
    assert is_pointwise_file(answers(tmp_path / "a.jsonl"))
    assert not is_pointwise_file(tmp_path / "missing.jsonl")


def test_a_stale_score_sheet_never_erases_anothers_scores(tmp_path: Path) -> None:
    path = answers(tmp_path / "a.jsonl")
    first = ScoreSheet.open(path, dimensions=DIMS, scale=(1, 5))
    second = ScoreSheet.open(path, dimensions=DIMS, scale=(1, 5))
    first.set_score(0, "accuracy", 4)
    with pytest.raises(SheetChangedError, match="changed on disk"):
        second.set_score(1, "accuracy", 2)
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert [r.get("human_accuracy") for r in rows[:2]] == [4, None]
