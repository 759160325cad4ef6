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


def test_min_kappa_with_a_rubric_is_refused_in_the_commands_words() -> None:
    # calibrate on pointwise input leaves this check to the library: one message, which
    # cli/_flags words as the flags ("--min-kappa ... (--min-spearman)").
    from fairjudge.cli._flags import to_flags

    with pytest.raises(fairjudge.ConfigError) as e:
        fairjudge.calibrate(str(ANSWERS), "python:fairjudge.examples.judges:scorer",
                            rubric="production", min_kappa=0.5)  # fmt: skip
    assert str(e.value) == (
        "min_kappa applies to pairwise input with human labels (1/2/tie); pointwise input "
        "is gated on Spearman (min_spearman)"
    )
    assert to_flags(str(e.value), e.value.params) == (
        "--min-kappa applies to pairwise input with human labels (1/2/tie); pointwise input "
        "is gated on Spearman (--min-spearman)"
    )
