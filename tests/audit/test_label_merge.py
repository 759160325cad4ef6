"""Two labellers' files merged: kappa between them, and every disagreement kept."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from fairjudge._errors import InputError
from fairjudge.audit import merge_labels
from fairjudge.io import load_items

A = ["1", "1", "1", "2", "2", "2", "tie", "tie", "1", "2", None, "1"]
B = ["1", "1", "2", "2", "2", "tie", "tie", "tie", "1", "2", "1", None]


def sheet(path: Path, labels: list[str | None]) -> Path:
    rows = []
    for i, label in enumerate(labels):
        row: dict[str, object] = {"id": f"q{i}", "question": f"Q{i}?", "answer_1": f"a{i}",
                                  "answer_2": f"b{i}", "category": "c"}  # fmt: skip
        if label is not None:
            row["human"] = label
        rows.append(row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def kappa(a: list[str], b: list[str]) -> float:
    """Cohen's kappa by its definition, written out independently of fairjudge.stats."""
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    chance = sum((a.count(k) / n) * (b.count(k) / n) for k in ("1", "2", "tie"))
    return (observed - chance) / (1 - chance)


def test_kappa_counts_and_the_merged_file(tmp_path: Path) -> None:
    out = tmp_path / "merged.jsonl"
    merged = merge_labels(sheet(tmp_path / "a.jsonl", A), sheet(tmp_path / "b.jsonl", B), out,
                          n_resamples=200)  # fmt: skip
    both = [(x, y) for x, y in zip(A, B, strict=True) if x is not None and y is not None]
    assert merged.items == 12
    assert merged.both == 10
    assert merged.only_one == 2
    assert merged.agreed == 8
    assert [(d.id, d.line, d.a, d.b) for d in merged.disagreements] == [
        ("q2", 3, "1", "2"),
        ("q5", 6, "2", "tie"),
    ]
    assert merged.agreement is not None
    expected = kappa([x for x, _ in both], [y for _, y in both])
    assert merged.agreement.kappa == pytest.approx(expected)
    assert merged.agreement.kappa == pytest.approx(23 / 33)  # (0.8 - 0.34) / (1 - 0.34)
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["label_a"] for r in rows] == A
    assert [r["label_b"] for r in rows] == B
    assert rows[2]["human"] is None  # a disagreement is not resolved
    assert rows[2]["labels_agree"] is False
    assert rows[10]["labels_agree"] is None  # one label only: no agreement to speak of
    assert rows[10]["human"] is None
    assert rows[0]["category"] == "c"
    humans = [i.human.value if i.human else None for i in load_items(out).items]
    assert humans == [x if x == y else None for x, y in zip(A, B, strict=True)]
    text = merged.summary()
    assert "id q2 (line 3): A 1, B 2" in text
    assert merged.to_dict()["agreement"]["confusion"]["rows"] == "a"


def test_a_csv_merge_has_every_column(tmp_path: Path) -> None:
    out = tmp_path / "merged.csv"
    merge_labels(sheet(tmp_path / "a.jsonl", A), sheet(tmp_path / "b.jsonl", B), out,
                 n_resamples=50)  # fmt: skip
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["id", "question", "answer_1", "answer_2", "category", "human",
                             "label_a", "label_b", "labels_agree"]  # fmt: skip
    assert (rows[2]["human"], rows[2]["label_a"], rows[2]["label_b"]) == ("", "1", "2")
    assert load_items(out).items[0].human is not None


def test_no_item_labelled_by_both_gives_no_kappa(tmp_path: Path) -> None:
    a = sheet(tmp_path / "a.jsonl", ["1", None])
    merged = merge_labels(a, sheet(tmp_path / "b.jsonl", [None, "2"]), tmp_path / "m.jsonl")
    assert merged.agreement is None
    assert "Cohen's kappa: n/a" in merged.summary()


def test_files_of_other_items_are_refused_naming_the_line(tmp_path: Path) -> None:
    a = sheet(tmp_path / "a.jsonl", ["1", "2", "1"])
    b = sheet(tmp_path / "b.jsonl", ["1", "2", "1"])
    rows = b.read_text("utf-8").splitlines()
    changed = json.loads(rows[1])
    changed["answer_2"] = "something else"
    rows[1] = json.dumps(changed)
    b.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="answer_2 differs from line 2") as caught:
        merge_labels(a, b, tmp_path / "m.jsonl")
    assert f"{b}:2" in str(caught.value)
    short = sheet(tmp_path / "c.jsonl", ["1", "2"])
    with pytest.raises(InputError, match="id 'q2' is not in"):
        merge_labels(a, short, tmp_path / "m.jsonl")
