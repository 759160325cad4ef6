"""The known truth is said for every reading (QA 38 #10).

``compare --rounds 1`` dropped the "Known truth" line (terminal, page, Markdown),
though the labels could tell a single-order result pointing the wrong way.
"""

from __future__ import annotations

from pathlib import Path

from tests.report._truth_run import DEMO, compare_outputs


def test_rounds_1_keeps_the_known_truth(tmp_path: Path) -> None:
    truth = (
        "Known truth, from the input's human labels: model 2 is better (model 1's win rate "
        "by the labels: 0.000, 20 items)."
    )
    wrong = "The single-order result (not debiased) points the other way"
    for text in compare_outputs(DEMO, "first_position", tmp_path, "--rounds", "1"):
        assert truth in text
        assert wrong in text
    for text in compare_outputs(DEMO, "knows_facts", tmp_path, "--rounds", "1"):
        assert "The single-order result (not debiased) found it." in text
