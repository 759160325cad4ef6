"""``Judgment``: calls a budget never made are not counted as call errors."""

from __future__ import annotations

from fairjudge import Item


def test_calls_a_budget_never_made_are_not_call_errors() -> None:
    from fairjudge._items import Call, Judgment
    from fairjudge._types import CallError, Order, Reply, Resolution

    not_run = Reply(None, failure=CallError("NotRun", "the call was not made"))
    j = Judgment(Item("q", "a", "b"), (Call(Order.ORIGINAL, 0, not_run),), Resolution.CONSERVATIVE,
                 None, None, None)  # fmt: skip
    assert j.call_errors == 0
