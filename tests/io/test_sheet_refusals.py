"""A file of pairs to label offers no remedy its commands lack.

``label`` and ``label-merge`` show and write back every row, take no empty answer
and have neither ``--skip-invalid`` nor ``--allow-empty``: a bad row's only fix is
the file, and the message says just that.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairjudge._errors import InputError
from fairjudge.io import LabelSheet
from tests.cli._invoke import invoke


def _pairs(path: Path, rows: int) -> Path:
    lines = [json.dumps({"id": f"q{i}", "question": "Q", "answer_1": "a", "answer_2": "",
                         "human": "1"}) for i in range(rows)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("rows", [1, 10])
def test_a_sheet_offers_neither_skip_invalid_nor_allow_empty(tmp_path: Path, rows: int) -> None:
    path = _pairs(tmp_path / "p.jsonl", rows)
    with pytest.raises(InputError) as caught:
        LabelSheet.read_items(path)
    text = str(caught.value)
    assert "'answer_2' is empty; fill it in" in text
    assert "allow_empty" not in text
    assert "skip_invalid" not in text
    assert not {"allow_empty", "skip_invalid"} & set(caught.value.params)


def test_label_merge_of_pairs_says_only_the_fix_that_exists(tmp_path: Path) -> None:
    a, b = _pairs(tmp_path / "a.jsonl", 10), _pairs(tmp_path / "b.jsonl", 10)
    done = invoke("label-merge", str(a), str(b), "--out", str(tmp_path / "m.jsonl"))
    assert done.exit_code == 2, done.output
    text = " ".join(done.output.split())
    assert "and 5 more invalid rows (10 invalid rows; fix them)" in text
    assert "--skip-invalid" not in text
    assert "--allow-empty" not in text
