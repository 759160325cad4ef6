"""Calibration on rubric scores needs a human score on every item, and says so."""

from __future__ import annotations

import pytest

from fairjudge import InputError, ScoreItem
from fairjudge.audit import check_score_labels


def test_a_file_with_no_human_score_is_pointed_at_score() -> None:
    items = [ScoreItem("q?", "a", id="one"), ScoreItem("q?", "b", id="two")]
    with pytest.raises(InputError) as raised:
        check_score_labels(items)
    message = str(raised.value)
    assert message.startswith("2 item(s) have no human_<dimension> score (first: id 'one')")
    assert "run fairjudge score FILE (fairjudge.score in Python)" in message


def test_a_file_with_some_human_scores_names_the_missing_ones_only() -> None:
    items = [
        ScoreItem("q?", "a", id="one", human={"accuracy": 3.0}),
        ScoreItem("q?", "b", id="two"),
    ]
    with pytest.raises(InputError) as raised:
        check_score_labels(items)
    message = str(raised.value)
    assert message.startswith("1 item(s) have no human_<dimension> score (first: id 'two')")
    assert "fairjudge score" not in message
    # A merge's unsettled disagreements, most often: a person scores them on the sheet.
    assert message.endswith(
        "; score them with fairjudge label FILE [rubric=NAME], on the rubric the others were "
        "scored on"
    )
    assert raised.value.params == ("rubric",)
