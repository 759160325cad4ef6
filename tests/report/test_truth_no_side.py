"""An interval containing 0.5 is not said to have found that neither is better (QA 38 #16).

On labels that say neither model is better, a result whose interval contains 0.5 was
said to have "found it", as if it showed there is no gap; it only takes no side.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.report._truth_run import DEMO, compare_outputs


def test_no_side_is_not_said_to_find_that_neither_is_better(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in DEMO.read_text().splitlines()]
    ties = tmp_path / "ties.jsonl"
    ties.write_text("".join(json.dumps({**r, "human": "tie"}) + "\n" for r in rows))
    for text in compare_outputs(ties, "first_position", tmp_path):  # every item a tie: 0.5
        assert "Known truth, from the input's human labels: neither is better" in text
        assert "found it" not in text
        assert (
            "The debiased result takes no side either (its interval contains 0.5): consistent "
            "with the labels, though that alone does not show that neither is better."
        ) in text
