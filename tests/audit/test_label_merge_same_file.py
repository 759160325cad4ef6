"""``label-merge`` of one file with itself is refused: its kappa of 1 would measure nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairjudge import InputError
from fairjudge.audit import merge_labels


def test_one_file_twice_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "alice.jsonl"
    rows = [{"id": f"q{i}", "question": "q", "answer_1": "a", "answer_2": "b", "human": "1"}
            for i in range(4)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "merged.jsonl"
    with pytest.raises(InputError, match="the same file"):
        merge_labels(path, tmp_path / "." / "alice.jsonl", out)
    assert not out.exists()
