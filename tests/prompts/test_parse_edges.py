"""Replies the parsers must not misread.

Prose about the worse answer, a changed mind, a truncated score object.
"""

from __future__ import annotations

import pytest

from fairjudge import ParseFailure
from fairjudge.prompts import parse_verdict


@pytest.mark.parametrize(
    "reply", ["The worse answer is A.", "Neither answer is B.", "I see. The weaker answer is B."]
)
def test_prose_about_the_worse_answer_is_not_a_verdict(reply: str) -> None:
    assert isinstance(parse_verdict(reply, "explained"), ParseFailure)


@pytest.mark.parametrize(
    ("reply", "label"),
    [("Overall, the better answer is B", "B"), ("So the verdict is A.", "A")],
)  # fmt: skip
def test_keyed_slots_still_read(reply: str, label: str) -> None:
    assert parse_verdict(reply, "explained").value == label  # type: ignore[union-attr]


def test_a_changed_mind_is_two_slots() -> None:
    # Read as tie (the line's last word) until issue 20: two slots are a parse failure.
    assert isinstance(parse_verdict("Verdict: A ... wait. Verdict: tie", "explained"), ParseFailure)


def test_a_truncated_score_reply_is_not_read_from_its_inner_object() -> None:
    from fairjudge.prompts import get_rubric, parse_scores

    rubric = get_rubric("production")
    inner = '{"accuracy": 4, "relevance": 4, "usefulness": 4, "reason": "ok"}'
    reading = parse_scores('{"scores": ' + inner + ', "reason": "trunc', rubric)
    assert isinstance(reading, ParseFailure)
