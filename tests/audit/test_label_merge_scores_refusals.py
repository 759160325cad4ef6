"""A score sheet's problems are said as a sheet's: a column once, and only fixes that exist.

``label-merge`` (and ``label``) show and write back every row, so no row can be set
aside: the loader's "or pass skip_invalid=True" remedy is not offered, and a
``human_`` column of another rubric, a problem of the file's columns, is said once
rather than for rows 1-5 "and 35 more". A tolerance of inf is not "below 0".
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from fairjudge._errors import ConfigError, InputError
from fairjudge.audit import merge_score_labels
from tests.audit.test_label_merge_scores import sheet
from tests.cli._invoke import invoke

ROWS = 40


def _rows(path: Path, **scores: object) -> Path:
    lines = [json.dumps({"id": f"q{i}", "question": "Q?", "answer": f"a {i}", **scores})
             for i in range(ROWS)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_column_of_another_rubric_is_said_once(tmp_path: Path) -> None:
    a = _rows(tmp_path / "a.jsonl", human_helpfulnes=3)
    b = _rows(tmp_path / "b.jsonl", human_helpfulnes=3)
    with pytest.raises(InputError) as caught:
        merge_score_labels(a, b, tmp_path / "m.jsonl")
    text = str(caught.value)
    assert text.count("human_helpfulnes") == 1, text
    assert "more invalid rows" not in text
    assert "skip_invalid" not in text
    assert caught.value.line == 1
    assert "rename it human_<dimension>, or pick the rubric it was labelled with" in text


def test_many_bad_rows_offer_no_skip_invalid_on_the_command_line(tmp_path: Path) -> None:
    a = _rows(tmp_path / "a.jsonl", human_accuracy=9)  # off the 1-5 scale on every row
    b = _rows(tmp_path / "b.jsonl", human_accuracy=3)
    done = invoke("label-merge", str(a), str(b), "--out", str(tmp_path / "m.jsonl"))
    assert done.exit_code == 2, done.output
    text = " ".join(done.output.split())
    assert f"and {ROWS - 5} more invalid rows ({ROWS} invalid rows; fix them)" in text
    assert "--skip-invalid" not in text
    assert not (tmp_path / "m.jsonl").exists()


@pytest.mark.parametrize("tolerance", [math.inf, math.nan])
def test_a_tolerance_that_is_no_finite_number_is_said_so(tmp_path: Path, tolerance: float) -> None:
    a, b = sheet(tmp_path / "a.jsonl", [(1,), (2,)]), sheet(tmp_path / "b.jsonl", [(1,), (3,)])
    with pytest.raises(ConfigError) as caught:
        merge_score_labels(a, b, tmp_path / "m.jsonl", tolerance=tolerance)
    assert str(caught.value) == (
        "tolerance must be a finite number of score points, from 0 up to less than 4 "
        f"(rubric production's scale 1-5); got {tolerance!r}"
    )
    assert caught.value.params == ("tolerance",)


def test_the_label_page_refuses_bad_rows_without_skip_invalid(tmp_path: Path) -> None:
    a = _rows(tmp_path / "a.jsonl", human_accuracy=9)
    done = invoke("label", str(a), "--rubric", "production", "--no-open")
    assert done.exit_code == 2, done.output
    assert "skip-invalid" not in done.output
    assert "invalid rows; fix them)" in " ".join(done.output.split())
