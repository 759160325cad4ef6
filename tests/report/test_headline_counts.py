"""Headlines say what they count: "n = 1 item", and the interval's mark where it has one.

The win rate's note under a headline (jury, comparison via scores, their Markdown)
is written by one helper, singular for one item; the comparison via scores'
headline shows its interval as the terminal does, the "(Wilson, all alike)" of a
model that won every question included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fairjudge
from fairjudge.evaluation._results import WinRate
from fairjudge.stats import ConfidenceInterval


def test_one_item_is_one_item_in_every_headline() -> None:
    from fairjudge.report._text import counted, win_note

    one = WinRate(1.0, ConfidenceInterval.not_estimable("one question"), 1, 1, 0, 0, 0)
    assert win_note(one) == "95% CI; n = 1 item; W/T/L 1/0/0"
    two = WinRate(0.5, ConfidenceInterval(0.0, 1.0), 2, 1, 0, 1, 0)
    assert win_note(two) == "95% CI; n = 2 items; W/T/L 1/0/1"
    assert [counted(n, "item") for n in (0, 1, 2)] == ["0 items", "1 item", "2 items"]


def _via_scores(tmp_path: Path, n: int) -> Any:
    """A comparison via scores of ``n`` pairs whose first answer is the longer (it wins)."""
    from fairjudge._api import EvalSettings, via_scores
    from fairjudge.io import load_items
    from fairjudge.prompts import get_rubric

    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer_1": "A long answer " * 8,
             "answer_2": "Short."} for i in range(n)]  # fmt: skip
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return via_scores("python:fairjudge.examples.judges:length_scorer", load_items(path).items,
                      EvalSettings(), setup=fairjudge.JudgeSetup(options={"progress": "quiet"}),
                      rubric=get_rubric("production"))  # fmt: skip


def test_one_pair_via_scores_is_one_item_on_the_page_and_in_the_markdown(tmp_path: Path) -> None:
    from fairjudge.report._pages import out_file_page

    done = _via_scores(tmp_path, 1)
    page = out_file_page(done.save(tmp_path / "via.jsonl"), "compare-via-scores")
    assert page.headline.note.startswith("95% CI; n = 1 item; W/T/L 1/0/0")
    assert "n = 1 item; W/T/L 1/0/0" in done.markdown()
    assert "1 items" not in done.markdown()


def test_the_via_scores_pages_headline_shows_the_mark(tmp_path: Path) -> None:
    from fairjudge.report._pages import out_file_page

    done = _via_scores(tmp_path, 6)
    w = done.result.win_rate
    assert w is not None
    assert (w.estimate, w.wins, w.n) == (1.0, 6, 6)
    assert str(w.ci).endswith("(Wilson, all alike)")
    saved = done.save(tmp_path / "via.jsonl")
    page = out_file_page(saved, "compare-via-scores")
    assert page.headline.ci == f"{w.ci:.3f}"  # the bounds and the note's head
    assert page.headline.ci.endswith("(Wilson, all alike)")
