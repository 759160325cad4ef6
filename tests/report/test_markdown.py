"""The Markdown summary's renderer: escaping, the one layout, what a parser reads."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fairjudge.report._markdown import (
    MarkdownSummary,
    MarkdownTable,
    escape,
    markdown_text,
    verdict_counts,
)
from fairjudge.report._page import Headline
from tests.report._markdown_read import counts, read

HOSTILE = "a|b <script>alert(1)</script> `x` *y* _z_ [l](http://evil.example) $1$ ~~s~~ &lt; @u"


def _summary(name: str = HOSTILE) -> MarkdownSummary:
    return MarkdownSummary(
        kind="rank",
        title=f"{name}.jsonl",
        headline=Headline(f"No clear leader: {name} has the highest rating.", "Top model",
                          name, "(1-2)", "95% rank intervals"),
        counts=(("wins", 3), ("ties", 1), ("losses", 2), ("parse failures", 4),
                ("call errors", 5)),
        tables=(MarkdownTable("Ratings", ("model", "rating [CI]"), (
            (name, "1000.0 [1000.0, 1000.0]"), ("# beta\nline", "967.7 [855.9, 1077.7]"))),),
    )  # fmt: skip


def test_a_hostile_name_stays_one_cell_of_plain_text() -> None:
    md = markdown_text(_summary())
    seen = read(md)
    assert seen.bold == [f"No clear leader: {HOSTILE} has the highest rating."]
    assert seen.tables[1] == [
        ["model", "rating [CI]"],
        [HOSTILE, "1000.0 [1000.0, 1000.0]"],
        ["# beta line", "967.7 [855.9, 1077.7]"],
    ]
    # No link, image, HTML, code span or strikethrough came from the name (the only
    # emphasis is the table's caption, and the name's text above is whole).
    made = {"link_open", "image", "html_inline", "html_block", "code_inline", "s_open"}
    assert not seen.token_types & made
    assert "Ratings" in seen.paragraphs
    assert "<script>" not in md
    assert "\\<script\\>" in md


def test_parse_failures_and_call_errors_are_their_own_cells() -> None:
    assert counts(markdown_text(_summary())) == {
        "wins": "3", "ties": "1", "losses": "2", "parse failures": "4", "call errors": "5",
    }  # fmt: skip


def test_the_counts_are_the_json_summarys() -> None:
    summary = {
        "n_items": 10,
        "win_rate": {"wins": 5, "ties": 1, "losses": 2},
        "n_unresolved": 2,
        "n_parse_failures": 1,
        "n_call_errors": 1,
        "n_not_run": 0,
    }
    assert verdict_counts(summary) == (
        ("wins", 5), ("ties", 1), ("losses", 2), ("items", 10), ("unresolved", 2),
        ("parse failures", 1), ("call errors", 1), ("not run", 0),
    )  # fmt: skip
    panel = {"n_items": 4, "members": [{"failed": 2}, {"failed": 1}]}
    assert verdict_counts(panel) == (
        ("items", 4), ("calls without a reading (parse failures and call errors)", 3),
    )  # fmt: skip


def test_hidden_characters_are_shown_as_markers() -> None:
    assert escape("safe\u202egnp.exe") == "safe⟨U+202E⟩gnp.exe"


def test_a_line_start_cannot_open_a_heading_or_list() -> None:
    assert escape("# h", line_start=True) == "\\# h"
    assert escape("1. x", line_start=True) == "1\\. x"
    assert escape("- y", line_start=True) == "\\- y"
    assert escape("1. x") == "1. x"  # inside a line, a number is a number


@given(st.text(alphabet=st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=40))
def test_any_ascii_text_reads_back_as_itself(text: str) -> None:
    cell = read(f"| h |\n| --- |\n| {escape(text)} |\n").tables[0][1][0]
    assert cell == " ".join(text.split())
