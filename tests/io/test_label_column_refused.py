"""A label column that is one of the file's own fields is refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.io import Columns, LabelSheet


@pytest.mark.parametrize("column", ["question", "answer_1", "answer_2", "id", "reference"])
def test_a_label_column_that_is_a_field_of_the_file_is_refused(tmp_path: Path, column: str) -> None:
    path = tmp_path / "pairs.jsonl"
    text = json.dumps({"id": "a", "question": "q", "answer_1": "x", "answer_2": "y"}) + "\n"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigError, match=f"columns.human {column} is the file's") as e:
        LabelSheet.open(path, seed=1, columns=Columns(human=column))
    assert e.value.params == ("columns.human",)
    assert path.read_text("utf-8") == text  # nothing written
    assert not list(tmp_path.glob("*.label.json"))  # no order recorded either
