"""``fairjudge.calibrate`` on a file of single answers, without ``rubric=``.

``fairjudge calibrate answers.jsonl`` tells a file of single answers (an ``answer``
column) from pairs and calibrates its rubric scores; the function read it as pairs and
failed on every row with "missing column 'answer_1' ... pass columns.answer_1=NAME",
a fix that does not apply. It must name the option that does: ``rubric=``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge

ANSWERS = Path(fairjudge.__file__).parent / "examples" / "score_answers.jsonl"


def test_single_answers_without_rubric_name_the_rubric_option(tmp_path: Path) -> None:
    labelled = tmp_path / "labelled.jsonl"
    rows = [json.loads(line) for line in ANSWERS.read_text(encoding="utf-8").splitlines()]
    labelled.write_text(
        "".join(json.dumps({**r, "human_accuracy": 3}) + "\n" for r in rows), encoding="utf-8"
    )
    with pytest.raises(fairjudge.ConfigError, match="pass rubric=") as e:
        fairjudge.calibrate(str(labelled), "python:fairjudge.examples.judges:scorer")
    assert "single answers" in str(e.value)
    assert e.value.params == ("rubric",)
