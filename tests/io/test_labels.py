"""The labelling sheet: labels stored in the file's orientation, durably, resumably."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from fairjudge._errors import ConfigError, InputError
from fairjudge._types import Outcome
from fairjudge.io import LabelSheet, load_items, order_path
from fairjudge.io._labels import SheetChangedError, shown_swapped


def pairs(n: int) -> list[dict[str, object]]:
    return [
        {"id": f"q{i:02d}", "question": f"Question {i}?", "answer_1": f"one {i}",
         "answer_2": f"two {i}", "model_1": "alpha", "extra": {"kept": i}}
        for i in range(n)
    ]  # fmt: skip


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def rows_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def test_a_side_is_stored_as_model_1_or_2_whatever_side_it_was_shown_on(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", pairs(12))
    sheet = LabelSheet.open(path, seed=5)
    swaps = [item.swapped for item in sheet.items]
    assert True in swaps
    assert False in swaps
    for index, item in enumerate(sheet.items):
        stored = sheet.set_shown(index, "left")
        # The left answer is model 2's exactly when the item was shown swapped.
        assert stored is (Outcome.TWO if item.swapped else Outcome.ONE)
        shown_left = item.left
        assert shown_left == (f"two {index}" if item.swapped else f"one {index}")
    on_disk = rows_of(path)
    assert [r["human"] for r in on_disk] == ["2" if s else "1" for s in swaps]
    assert on_disk[3]["extra"] == {"kept": 3}
    assert on_disk[3]["model_1"] == "alpha"


def test_right_and_tie_and_clearing(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", pairs(4))
    sheet = LabelSheet.open(path, seed=1)
    item = sheet.items[0]
    assert sheet.set_shown(0, "right") is (Outcome.ONE if item.swapped else Outcome.TWO)
    assert sheet.shown(0) == "right"
    assert sheet.set_shown(1, "tie") is Outcome.TIE
    assert sheet.shown(1) == "tie"
    assert sheet.done == 2
    assert sheet.set_shown(0, None) is None
    assert sheet.shown(0) is None
    assert sheet.done == 1
    on_disk = rows_of(path)
    assert "human" not in on_disk[0]
    assert on_disk[1]["human"] == "tie"


def test_the_file_is_what_calibrate_reads(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", pairs(3))
    sheet = LabelSheet.open(path, seed=2)
    sheet.set_shown(0, "left")
    sheet.set_shown(2, "tie")
    loaded = load_items(path).items
    assert loaded[0].human is (Outcome.TWO if sheet.items[0].swapped else Outcome.ONE)
    assert loaded[1].human is None
    assert loaded[2].human is Outcome.TIE


def test_a_resumed_sheet_shows_the_same_sides_and_keeps_the_labels(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", pairs(10))
    first = LabelSheet.open(path)  # a fresh seed, recorded beside the file
    first.set_shown(4, "left")
    recorded = json.loads(order_path(path).read_text("utf-8"))
    assert recorded["seed"] == first.seed
    assert recorded["shown_swapped"] == {i.key: i.swapped for i in first.items}
    again = LabelSheet.open(path)
    assert again.seed == first.seed
    assert [(i.left, i.right) for i in again.items] == [(i.left, i.right) for i in first.items]
    assert again.shown(4) == "left"
    assert again.done == 1


def test_the_sides_follow_the_seed_and_the_id_not_the_position() -> None:
    assert shown_swapped(7, "q01") == shown_swapped(7, "q01")
    coins = [shown_swapped(7, f"q{i}") for i in range(200)]
    assert 60 < sum(coins) < 140  # a fair coin per item: 200 draws, far from all one side
    assert coins != [shown_swapped(8, f"q{i}") for i in range(200)]


def test_another_seed_than_the_recorded_one_is_refused(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", pairs(2))
    LabelSheet.open(path, seed=3)
    with pytest.raises(ConfigError, match="seed=4 differs from the seed 3"):
        LabelSheet.open(path, seed=4)
    assert LabelSheet.open(path, seed=3).seed == 3


def test_csv_keeps_its_columns_and_gains_human(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(
        'id,question,answer_1,answer_2,note\nx,"Q, with comma?",a1,a2,"multi\nline"\n'
        "y,Q2?,b1,b2,\n",
        encoding="utf-8",
    )
    sheet = LabelSheet.open(path, seed=0)
    assert [i.line for i in sheet.items] == [2, 4]  # the record spanning lines starts on 2
    sheet.set_shown(1, "tie")
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["id", "question", "answer_1", "answer_2", "note", "human"]
    assert rows[0]["note"] == "multi\nline"
    assert rows[0]["human"] == ""
    assert rows[1]["human"] == "tie"
    assert load_items(path).items[1].human is Outcome.TIE


def test_each_label_replaces_the_file_whole(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", pairs(5))
    sheet = LabelSheet.open(path, seed=9)
    before = path.stat().st_ino
    sheet.set_shown(0, "tie")
    assert path.stat().st_ino != before  # a new file renamed over the old one
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("name", ["p.parquet", "p.json", "p.txt"])
def test_other_formats_are_refused_naming_the_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("{}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"JSON Lines \(\.jsonl\) or CSV") as caught:
        LabelSheet.open(path)
    assert caught.value.path == str(path)


def test_an_invalid_row_names_the_file_and_line(tmp_path: Path) -> None:
    rows = pairs(3)
    del rows[1]["answer_2"]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    with pytest.raises(InputError, match="answer_2") as caught:
        LabelSheet.open(path)
    assert f"{path}:2" in str(caught.value)
    assert not order_path(path).exists()  # nothing recorded for a file that cannot be used


def test_invalid_rows_are_not_offered_a_skip_the_sheet_does_not_have(tmp_path: Path) -> None:
    rows = pairs(4)
    for row in rows[:3]:
        del row["answer_2"]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    with pytest.raises(InputError, match="3 invalid rows; fix them") as caught:
        LabelSheet.open(path)
    assert "skip_invalid" not in str(caught.value)
    assert "skip_invalid" not in caught.value.params
    assert str(caught.value).startswith(f"{path}:1: ")


def test_a_second_session_on_the_file_never_erases_the_firsts_labels(tmp_path: Path) -> None:
    """Each write rewrites the whole file from the rows read; a stale sheet must not."""
    path = write_jsonl(tmp_path / "pairs.jsonl", pairs(3))
    first = LabelSheet.open(path)
    second = LabelSheet.open(path)
    first.set_shown(0, "tie")
    with pytest.raises(SheetChangedError, match="changed on disk since this page read it"):
        second.set_shown(1, "tie")
    assert [r.get("human") for r in rows_of(path)] == ["tie", None, None]
    first.set_shown(2, "tie")  # its own writes do not count as a change
    assert [r.get("human") for r in rows_of(path)] == ["tie", None, "tie"]


def test_a_row_added_while_labelling_is_kept(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", pairs(2))
    sheet = LabelSheet.open(path)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(pairs(3)[2]) + "\n")
    with pytest.raises(SheetChangedError):
        sheet.set_shown(0, "tie")
    assert len(rows_of(path)) == 3
