"""Where no item was resolved, each output points at the failures where it shows them.

The conclusion said "see the failures above" on the terminal (true: it prints them
first), on the page (its Failures card is below) and in the Markdown (its counts and
a panel's reasons are below); a jury's Markdown said "above" and "the Failures card
below" in one text, though Markdown has no cards.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from tests.cli._invoke import invoke

PAIRS = Path(__file__).resolve().parents[2] / "src/fairjudge/examples/demo_pairs.jsonl"
FAILING = ("--judge", "python:tests.judge_fixtures:garbage")
PANEL = (*FAILING, "--judge", "python:tests.judge_fixtures:raises")


def _page_text(path: Path) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", path.read_text())).split())


@pytest.mark.parametrize(("command", "judges"), [("jury", PANEL), ("compare", FAILING)])
def test_each_output_points_where_it_shows_the_failures(
    command: str, judges: tuple[str, ...], tmp_path: Path
) -> None:
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    result = invoke(command, str(PAIRS), *judges, "--markdown", str(md), "--html", str(page))
    assert result.exit_code == 4, result.output  # every item unresolved: the gate fails
    terminal = " ".join(result.output.split())
    assert "No item could be resolved: see the failures above." in terminal
    shown = _page_text(page)
    assert "No item could be resolved: see the Failures card below." in shown
    assert "failures above" not in shown
    text = md.read_text()
    assert "No item could be resolved: see the parse failures and call errors counted below." in (
        text
    )
    assert "above" not in text, text
    assert "card" not in text.lower(), text
    counts = text.index("| items | unresolved |")
    assert text.index("No item could be resolved") < counts  # the counts are below it
    if command == "jury":
        assert "the table of reasons below lists why" in text
        assert text.index("the table of reasons below") < text.index("*Why members' calls")


def test_a_panel_pages_warning_is_the_shared_phrase_the_markdown_rewrites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The panel page's warning repeated the phrase as its own words: reworded in one
    # place, the page and the Markdown's rewrite of it would part. Both read it from
    # report/_comparison now, so a new wording reaches the page, and the Markdown
    # still swaps it for its own pointer.
    import fairjudge.report._markdown as markdown
    import fairjudge.report._page_panel as page_panel

    monkeypatch.setattr(page_panel, "PAGE_FAILURES", "the Reasons card further down")
    monkeypatch.setattr(markdown, "PAGE_FAILURES", "the Reasons card further down")
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    result = invoke("jury", str(PAIRS), *PANEL, "--markdown", str(md), "--html", str(page))
    assert result.exit_code == 4, result.output
    shown = _page_text(page)
    assert "member call(s) gave no reading (parse failures, call errors); the Reasons card " \
        "further down lists why." in shown  # fmt: skip
    assert "Failures card below lists why" not in shown
    text = md.read_text()
    assert "the table of reasons below lists why" in text
    assert "Reasons card" not in text
