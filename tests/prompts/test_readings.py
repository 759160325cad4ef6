"""One reading type: a reply's reading is a verdict or a score reading, typed either way.

The pairwise spelling (``Reply(verdict=...)``, ``.verdict``) keeps working, and the
store's record of a reply is what it was when a score reading travelled as a dict.
"""

from __future__ import annotations

import dataclasses

import pytest

from fairjudge import CallError, ParseFailure, Probabilities, Reply, Verdict
from fairjudge._call import Completion
from fairjudge.prompts import get_rubric
from fairjudge.prompts._score_parse import (
    AnswerScores,
    ExpectedScore,
    ScoreCall,
    ScoreContext,
    ScoreReading,
    read_scores,
)


def test_the_pairwise_spelling_is_the_reading() -> None:
    by_name = Reply(verdict=Verdict.B, probabilities=Probabilities(0.2, 0.7), raw="B")
    assert by_name == Reply(Verdict.B, Probabilities(0.2, 0.7), "B")
    assert by_name.reading is by_name.verdict is Verdict.B
    assert by_name.to_record() == {
        "verdict": "B",
        "probabilities": {"A": 0.2, "B": 0.7, "tie": 0.0},
    }
    assert dataclasses.replace(by_name, cached=True).verdict is Verdict.B
    with pytest.raises(TypeError, match="not both"):
        Reply(Verdict.A, verdict=Verdict.B)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"verdict": Verdict.A, "failure": ParseFailure("x", "why")}],
)
def test_a_reply_holds_a_reading_or_a_failure(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="either a reading or a failure"):
        Reply(**kwargs)  # type: ignore[arg-type]


def test_a_score_reading_is_typed_and_recorded_as_before() -> None:
    rubric = get_rubric("production")
    reply = read_scores(Completion("4", top_logprobs={"4": -0.1, "5": -2.5}),
                        ScoreContext(rubric, "accuracy"))  # fmt: skip
    reading = reply.reading
    assert isinstance(reading, ScoreReading)
    assert reply.verdict is None
    assert dict(reading.scores) == {"accuracy": 4}
    assert isinstance(reading.expected["accuracy"], ExpectedScore)
    record = reply.to_record()
    assert set(record) == {"verdict", "probabilities", "payload"}
    assert (record["verdict"], record["probabilities"]) == (None, None)
    assert record["payload"]["scores"] == {"accuracy": 4}
    assert record["payload"]["reason"] is None
    assert record["payload"]["expected"]["accuracy"] == reading.expected["accuracy"].to_dict()
    scored = AnswerScores.from_calls([ScoreCall("accuracy", reply)])
    assert scored.expected == {"accuracy": reading.expected["accuracy"].expected}
    assert ScoreCall("accuracy", reply).to_dict()["payload"] == record["payload"]


def test_a_json_score_reply_has_no_expected_scores() -> None:
    text = '{"accuracy": 4, "relevance": 5, "usefulness": 3, "reason": "ok"}'
    reply = read_scores(Completion(text), ScoreContext(get_rubric("production")))
    assert reply.to_record()["payload"] == {
        "scores": {"accuracy": 4, "relevance": 5, "usefulness": 3}, "reason": "ok",
    }  # fmt: skip


def test_a_failure_is_a_reply_of_any_kind() -> None:
    failed: Reply[ScoreReading] = Reply(failure=CallError("NotRun", "the call was not made"))
    assert failed.reading is None
    assert failed.to_record() == {
        "verdict": None, "failure": "call_error", "reason": "the call was not made",
    }  # fmt: skip
