"""Mends from a review of the issue-10/11/14 work, each pinned by a test."""

from __future__ import annotations

import pytest

from fairjudge import ConfigError, Item, ParseFailure, evaluate_pairs
from fairjudge.backends import OpenAIBackend
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


def test_a_python_judges_error_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-live-0123456789abcdefXYZ"

    def leaky(q: str, a: str, b: str) -> str:
        raise RuntimeError(f"upstream refused key {secret}")

    result = evaluate_pairs(leaky, [Item("q", "a", "b")])
    message = result.judgments[0].calls[0].reply.failure.message  # type: ignore[union-attr]
    assert secret not in message
    assert "***" in message


@pytest.mark.parametrize("query", ["api_key=sk-abc", "token=xyz", "x=1&access_token=y"])
def test_a_key_in_the_base_urls_query_is_refused(query: str) -> None:
    with pytest.raises(ConfigError, match="query string"):
        OpenAIBackend("m", base_url=f"http://127.0.0.1:9/v1?{query}")


def test_a_plain_query_is_allowed() -> None:
    backend = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1?api-version=2024")
    assert backend.base_url is not None


def test_calls_a_budget_never_made_are_not_call_errors() -> None:
    from fairjudge._items import Call, Judgment
    from fairjudge._types import CallError, Order, Reply, Resolution

    not_run = Reply(None, failure=CallError("NotRun", "the call was not made"))
    j = Judgment(Item("q", "a", "b"), (Call(Order.ORIGINAL, 0, not_run),), Resolution.CONSERVATIVE,
                 None, None, None)  # fmt: skip
    assert j.call_errors == 0


def test_three_levels_do_not_trip_the_adjacent_share_alarm() -> None:
    from fairjudge.evaluation._scores_stats import CollapseRule, collapse_of

    spread = collapse_of({1: 5, 2: 50, 3: 45}, CollapseRule())
    assert spread.reason is None or "of scores are" not in spread.reason
