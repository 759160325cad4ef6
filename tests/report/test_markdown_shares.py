"""A score table's shares: each the exact share of its counts, rounded half to even.

The Markdown summary's score tables are the score page's own rows, so one rule words
a share everywhere it is shown: the table (page and Markdown), the baseline
histogram's bar labels, and the collapse alarm's reason. The rule works from the two
counts, not the float ``count / total``, which lies a hair off an exact half where
binary cannot hold it: 23 of 40 read 57% (beside 17 of 40's 42%: 99% in all).
"""

from __future__ import annotations

from fairjudge._items import ScoreItem
from fairjudge.evaluation import CollapseRule, score_answers
from fairjudge.evaluation._scores_stats import _percent
from fairjudge.report import score_page, score_report
from fairjudge.report._markdown import page_markdown
from fairjudge.report._page import PlotBlock
from fairjudge.report._page_plots import histogram
from fairjudge.report._text import share_text
from tests.report._markdown_read import read


def scorer(question: str, answer: str) -> dict[str, int]:
    """Accuracy and usefulness read from the answer's two first characters; relevance 4."""
    return {"accuracy": int(answer[0]), "relevance": 4, "usefulness": int(answer[1])}


def _answers() -> list[ScoreItem]:
    """40 answers: accuracy 1 on 17 and 5 on 23; usefulness 4 on 37 and 2 on 3."""
    return [
        ScoreItem(f"question {i}", f"{1 if i < 17 else 5}{2 if i < 3 else 4} answer {i}")
        for i in range(40)
    ]


def _shares(tables: list[list[list[str]]], dimension_rows: int = 5) -> list[dict[str, str]]:
    """Each dimension's share column by score, from the tables headed score/answers/share."""
    return [
        {row[0]: row[2] for row in table[1 : 1 + dimension_rows]}
        for table in tables
        if table[0] == ["score", "answers", "share"]
    ]


def test_the_score_tables_shares_are_rounded_half_to_even_from_the_counts() -> None:
    # An alarm at 55% on one level: accuracy's 23 fives trip it.
    rule = CollapseRule(max_adjacent_share=0.55)
    result = score_answers(scorer, _answers(), n_resamples=50, collapse=rule)
    page = score_page(score_report(result, title="answers.jsonl"))
    seen = read(page_markdown(page))
    accuracy, relevance, usefulness = _shares(seen.tables)

    # 17 and 23 of 40 are 42.5% and 57.5%: to even, 42% and 58%, and the column adds
    # up to 100% as its answers do (it read 42% and 57%).
    assert accuracy == {"1": "42%", "2": "0%", "3": "0%", "4": "0%", "5": "58%"}
    assert relevance["4"] == "100%"
    assert usefulness == {"1": "0%", "2": "8%", "3": "0%", "4": "92%", "5": "0%"}
    # The collapse alarm's reason words the share of its one-level band as the row
    # does (it said 57% beside the row's share).
    accuracy_table = next(t for t in seen.tables if t[0] == ["score", "answers", "share"])
    alarm = next(row for row in accuracy_table if row[0] == "collapse alarm")
    assert alarm[1] == "TRIPPED: 58% of scores are 5 (>= 55%)"
    # The Markdown's rows are the page's: the HTML shows the same text.
    blocks = [b for b in page.sections[0].blocks if isinstance(b, PlotBlock)]
    on_page = blocks[0].table.rows
    assert [tuple(r) for r in accuracy_table[1:6]] == list(on_page[:5])
    assert ("collapse alarm", alarm[1], "") in on_page


def test_the_baseline_histograms_bars_word_their_shares_by_the_same_rule() -> None:
    plot = histogram({1: 17, 2: 0, 5: 23}, compare={1: 34, 2: 0, 5: 46}, title="t")

    texts = [[b.text for b in plot.bars if b.series == s] for s in (0, 1)]
    assert texts == [["42%", "0%", "58%"], ["42%", "0%", "58%"]]  # 58% read 57%


def test_a_share_is_the_nearest_whole_percent_and_halves_go_to_even() -> None:
    assert share_text(2, 3) == "67%"
    assert share_text(1, 3) == "33%"
    assert share_text(1, 8) == "12%"  # 12.5%
    assert share_text(3, 8) == "38%"  # 37.5%
    assert share_text(109, 200) == "54%"  # 54.5%: the float read 55%
    assert share_text(0, 7) == "0%"
    assert share_text(7, 7) == "100%"
    # The collapse alarm (a layer below the report) rounds by the same rule.
    for total in range(1, 201):
        for count in range(total + 1):
            assert _percent(count, total) == share_text(count, total)
