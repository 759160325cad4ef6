"""Reading scores from replies: exact when valid, a reasoned failure otherwise, never a guess."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge import ParseFailure
from fairjudge.prompts import get_rubric, parse_scores
from fairjudge.prompts._score_parse import ScoreReading, expected_score, parse_score_label

RUBRIC = get_rubric("production")
NAMES = RUBRIC.names
scores = st.fixed_dictionaries({n: st.integers(1, 5) for n in NAMES})
wrappers = st.sampled_from(
    ["{}", "```json\n{}\n```", "Here are my scores:\n{}", "Scores:\n```\n{}\n```\n", "{}\n"]
)


@given(scores, wrappers, st.text(max_size=30))
def test_valid_scores_are_read_exactly(values: dict[str, int], wrap: str, reason: str) -> None:
    reply = wrap.replace("{}", json.dumps({**values, "reason": reason}))
    read = parse_scores(reply, RUBRIC)
    assert isinstance(read, ScoreReading)
    assert dict(read.scores) == values
    assert read.reason == reason


@given(scores, st.sampled_from(NAMES), st.integers().filter(lambda v: not 1 <= v <= 5))
def test_off_scale_scores_fail_never_clip(values: dict[str, int], name: str, bad: int) -> None:
    read = parse_scores(json.dumps({**values, name: bad}), RUBRIC)
    assert isinstance(read, ParseFailure)
    assert f"'{name}' is {bad}, outside the scale 1-5" in read.reason


@given(st.text(max_size=200))
def test_any_text_gives_scores_or_a_reasoned_failure(text: str) -> None:
    read = parse_scores(text, RUBRIC)
    assert isinstance(read, ScoreReading | ParseFailure)
    if isinstance(read, ParseFailure):
        assert read.reason


def test_two_objects_are_a_failure_not_the_last_one() -> None:
    # Before issue 20 the last object was read: {4, 4, 2}.
    reply = (
        'For example {"accuracy": 1}. My scores: {"accuracy": 4, "relevance": 4, "usefulness": 2}'
    )
    read = parse_scores(reply, RUBRIC)
    assert isinstance(read, ParseFailure)
    assert read.reason == (
        "no scores: the reply holds a second JSON object after the first; it must be exactly one"
    )


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty reply"),
        ("[4, 4, 4]", "holds no JSON object"),
        ('{"accuracy": true, "relevance": 4, "usefulness": 4}', "got true"),
        ('{"accuracy": null, "relevance": 4, "usefulness": 4}', "got null"),
        ('{"accuracy": 4, "relevance": 4, "usefulness": 4, "reason": 3}', "'reason' must be"),
        ('{"Accuracy": 4, "accuracy": 5, "relevance": 4, "usefulness": 4}', "repeats 'accuracy'"),
    ],
)
def test_failure_reasons(reply: str, reason: str) -> None:
    read = parse_scores(reply, RUBRIC)
    assert isinstance(read, ParseFailure)
    assert reason in read.reason
    assert read.raw == reply


def test_keys_match_in_any_case() -> None:
    read = parse_scores('{"Accuracy": 3, " RELEVANCE ": 4, "usefulness": 5}', RUBRIC)
    assert isinstance(read, ScoreReading)
    assert dict(read.scores) == {"accuracy": 3, "relevance": 4, "usefulness": 5}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [("4", 4), (" **3**\n", 3), ('"5".', 5), ("4.5", "not a whole number"), ("6", "outside"),
     ("four", "not a whole number"), ("4\n5", "not a whole number")],
)  # fmt: skip
def test_bare_number_replies(reply: str, expected: int | str) -> None:
    read = parse_score_label(reply, RUBRIC, "accuracy")
    if isinstance(expected, int):
        assert isinstance(read, ScoreReading)
        assert dict(read.scores) == {"accuracy": expected}
    else:
        assert isinstance(read, ParseFailure)
        assert expected in read.reason


def test_expected_score_weighs_the_levels() -> None:
    logprobs = {"4": math.log(0.5), " 3": math.log(0.25), "5": math.log(0.15), "The": math.log(0.1)}
    weighted = expected_score(logprobs, RUBRIC)
    assert weighted is not None
    assert weighted.expected == pytest.approx((4 * 0.5 + 3 * 0.25 + 5 * 0.15) / 0.9)
    assert weighted.mass == pytest.approx(0.9)
    assert sum(weighted.probabilities.values()) == pytest.approx(1.0)
    assert expected_score({"The": 0.0, "²": -0.1, "٤": -0.2}, RUBRIC) is None  # ASCII digits only
    assert expected_score({"7": 0.0}, get_rubric("basic")) is None  # 1-10: "1" may start "10"


@given(st.dictionaries(st.sampled_from(["1", "2", "3", "4", "5", "x", " 2"]),
                       st.floats(-20, 0), min_size=1))  # fmt: skip
def test_expected_score_lies_on_the_scale(logprobs: dict[str, float]) -> None:
    weighted = expected_score(logprobs, RUBRIC)
    if weighted is not None:
        assert 1.0 - 1e-9 <= weighted.expected <= 5.0 + 1e-9
