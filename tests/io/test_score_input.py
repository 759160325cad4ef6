"""Loading pointwise files: whole-file validation with file:line, systems, human scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairjudge import InputError
from fairjudge.io import load_score_items

DIMS = ("accuracy", "relevance", "usefulness")


def _jsonl(tmp_path: Path, rows: list[object], name: str = "items.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_rows_become_items(tmp_path: Path) -> None:
    conversation = [
        {"role": "user", "content": "Hi, I'm Ada."},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "Name?"},
    ]
    path = _jsonl(
        tmp_path,
        [
            {"question": "2+2?", "answer": "4", "human_accuracy": 5, "category": "math"},
            {"id": 7, "question": conversation, "answer": "Ada.", "reference": "Ada"},
        ],
    )
    items = load_score_items(path, dimensions=DIMS).items
    assert (items[0].id, items[0].human, items[0].category) == ("1", {"accuracy": 5.0}, "math")
    assert (items[1].id, items[1].reference) == ("7", "Ada")
    assert items[1].question == (
        ("user", "Hi, I'm Ada."),
        ("assistant", "Hello!"),
        ("user", "Name?"),
    )


def test_csv_with_systems_and_shared_ids(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text(
        "id,system,question,answer,human_relevance\n"
        "q1,a,Why?,Because.,4\nq1,b,Why?,No idea.,\nq2,a,How?,Like so.,2\n",
        encoding="utf-8",
    )
    items = load_score_items(path, dimensions=DIMS).items
    assert [(i.id, i.system) for i in items] == [("q1", "a"), ("q1", "b"), ("q2", "a")]
    assert [i.human for i in items] == [{"relevance": 4.0}, {}, {"relevance": 2.0}]


@pytest.mark.parametrize(
    ("rows", "line", "message"),
    [
        ([{"question": "q", "answer": "a"}, {"question": "q"}], 2, "missing column 'answer'"),
        ([{"question": "q", "answer": 3}], 1, "'answer' must be a string"),
        ([{"question": "", "answer": "a"}], 1, "'question' is empty"),
        (
            [{"question": [{"role": "assistant", "content": "x"}], "answer": "a"}],
            1,
            "must end with a 'user' message",
        ),
        ([{"question": "q", "answer": "a", "human_accuracy": "high"}], 1, "must be a number"),
        ([{"question": "q", "answer": "a", "human_tone": 3}], 1, "names no dimension"),
        (
            [
                {"id": "x", "question": "q", "answer": "a"},
                {"id": "x", "question": "q", "answer": "b"},
            ],
            2,
            "duplicate id 'x'",
        ),
        (
            [{"question": "q", "answer": "a", "system": "s"}, {"question": "q", "answer": "b"}],
            2,
            "names no system, but others do",
        ),
    ],
)
def test_problems_name_the_file_and_line(
    tmp_path: Path, rows: list[object], line: int, message: str
) -> None:
    path = _jsonl(tmp_path, rows)
    with pytest.raises(InputError, match=message) as caught:
        load_score_items(path, dimensions=DIMS)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}:")


def test_csv_header_is_checked_once(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("question,response\nq,a\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"missing column 'answer'.*columns.answer=NAME"):
        load_score_items(path)
    assert load_score_items(path, answer_col="response").items[0].answer == "a"


def test_skip_invalid_lists_bad_rows(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [{"question": "q", "answer": "a"}, {"question": "q"}])
    loaded = load_score_items(path, skip_invalid=True)
    assert [i.answer for i in loaded.items] == ["a"]
    assert loaded.skipped_records()[0]["line"] == 2
