"""``fairjudge.audit_judge`` with your own audit judge: what it says about the calls.

An object with ``pairwise``/``pointwise`` methods runs its judges itself, outside the
audit's session and store, so the audit cannot count what it made or what a store
served. It must say nothing about them rather than "0 made now, all from the store".
"""

from __future__ import annotations

from typing import Any

import fairjudge
from fairjudge.examples.judges import longer
from fairjudge.judges import CallableJudge, CallablePointwiseJudge
from fairjudge.prompts import get_rubric


class LengthJudge:
    name = "longer"

    def pairwise(self, template: Any) -> CallableJudge:
        return CallableJudge(longer)

    def pointwise(self, rubric: Any) -> CallablePointwiseJudge:
        dims = get_rubric(rubric).names
        return CallablePointwiseJudge(
            lambda q, a: {d: min(5, 1 + len(a.split()) // 20) for d in dims}, rubric=rubric
        )


def test_own_audit_judge_claims_no_store_and_no_count_of_calls() -> None:
    card = fairjudge.audit_judge(LengthJudge(), experiments="position", limit=3)
    summary = card.summary()
    assert "from the store" not in summary
    assert "calls: 6 asked for." in summary
    payload = card.to_dict()
    assert "calls_made" not in payload
    assert "calls" not in payload
    assert payload["n_calls"] == 6
