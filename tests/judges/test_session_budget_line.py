"""A budget stop's line counts the session's stored calls, as it counts the calls made.

``--stop-when`` runs a session batch by batch. A rerun whose first batch the store
answered and whose second batch met the budget said "8 calls made in this session, 0
served from the store" (the last batch's count) beside ``calls.cached`` 8 and
``adaptive.calls`` "16 used, 8 new".
"""

from __future__ import annotations

from pathlib import Path

import fairjudge

PAIRS = Path(fairjudge.__file__).parent / "examples" / "demo_pairs.jsonl"


@fairjudge.judge_function(name="longer-for-budget-line", version="1")
def longer(question: str, answer_a: str, answer_b: str) -> str:
    return "A" if len(answer_a) >= len(answer_b) else "B"


def test_rerun_stop_line_counts_every_batch_the_store_served(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    options = {"max_calls": 8, "progress": "quiet"}
    fairjudge.compare(str(PAIRS), longer, store=store, stop_when="decided", options=options)
    again = fairjudge.compare(str(PAIRS), longer, store=store, stop_when="decided",
                              options=options)  # fmt: skip
    calls = again.to_dict()["calls"]
    assert (calls["made"], calls["cached"]) == (8, 8)
    assert again.stopped is not None
    assert "8 calls made in this session, 8 served from the store" in again.stopped
