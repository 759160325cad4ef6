"""The explorer of judged pairs: what each item's detail shows of its question."""

from __future__ import annotations

from typing import Any

from fairjudge._items import Item, Judgment, question_text
from fairjudge._types import Resolution
from fairjudge.report._page_compare_items import pair_explorer

TURNS = (("system", "Answer briefly."), ("user", "Hi"), ("assistant", "Hello!"),
         ("user", "Name a prime number."))  # fmt: skip


def _details(question: Any) -> list[dict[str, Any]]:
    item = Item(question, "4", "7 is prime.", id="q")
    judged = Judgment(item, (), Resolution.CONSERVATIVE, None, None, None)
    explorer = pair_explorer([judged])
    assert explorer is not None
    (record,) = explorer.records
    details: list[dict[str, Any]] = record["d"]
    return details


def test_a_conversation_is_shown_as_the_transcript_the_judge_saw() -> None:
    shown = _details(TURNS)[1]
    assert shown == {"h": "Conversation (4 turns)", "pre": question_text(TURNS)}
    assert shown["pre"] == (
        "[system]\nAnswer briefly.\n\n[user]\nHi\n\n[assistant]\nHello!\n\n"
        "[user]\nName a prime number."
    )


def test_a_single_prompt_is_shown_as_it_is() -> None:
    assert _details("What is 2 + 2?")[1] == {"h": "Question", "pre": "What is 2 + 2?"}
