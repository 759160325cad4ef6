"""The kit's layout at a phone's width and a desktop's, on labels built to break it.

A page of short words in narrow columns ("usefulness", "position consistency": a
table's row labels once broke them mid-word at 390 px) and of long unbroken names (a
judge spec, a path: a bulleted list of them once scrolled sideways), and a page's main
forest plot, which fills its card with no viewBox. The harness's
checks (tests/report/pages.py) must pass on it, and must fail on the rules that let
those through, so a check that stops looking is noticed here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge.report._page import (
    FigureTable,
    Headline,
    Page,
    Paragraphs,
    PlotBlock,
    Section,
    page_html,
    run_facts,
)
from fairjudge.report._page_plots import Figure, forest_plot, heatmap
from tests.report import pages
from tests.report.conftest import OpenReport

SPEC = "python:fairjudge.examples.judges:knows_facts_and_nothing_but_the_facts"
PATH = "/home/someone/projects/evaluations/2026-12-02/runs/score_answers_with_a_long_name.jsonl"
WORDS = ("usefulness", "position consistency", "collapse alarm", "disagreement")


def layout_page() -> Page:
    """Short words where columns are narrow, long names where lines are short."""
    cells = ("-0.113 [-0.207, -0.010]", "3.30 [3.00, 3.60]", "40 answers")
    rows = tuple((w, *cells) for w in (*WORDS, SPEC))
    columns = ("dimension", "shift [95% CI]", "baseline mean", "answers")
    table = FigureTable(f"members: {SPEC}", columns, rows)
    figures = [Figure(w, 0.2, 0.1, 0.3, "0.20 [0.10, 0.30]") for w in (*WORDS, SPEC)]
    matrix = heatmap([SPEC, "usefulness"], ["consistency", SPEC], [[0.5, 0.1], [1.0, 0.2]],
                     title="agreement")  # fmt: skip
    skipped = ("Input rows skipped:", f"{PATH}:3: {SPEC}", f"{PATH}:9: no answer")
    plot = forest_plot(figures, title="agreement", ref=0.0, ref_label="chance")
    blocks = (
        PlotBlock(plot, table),
        PlotBlock(matrix, table),
        Paragraphs(skipped, bullets=True),
        Paragraphs((f"{SPEC} scored {PATH}", "usefulness disagreement position")),
    )
    # In a card of its own: a card with a fluid plot has narrower margins on a phone.
    main = PlotBlock(plot, FigureTable("agreement", ("figure", "estimate"), ()), fluid=True)
    command = ["fairjudge", "score-jury", PATH, "--judge", SPEC, "--judge", SPEC]
    return Page(
        kind="score-jury",
        title=f"{PATH} by {SPEC}",
        headline=Headline(f"The members do not agree on usefulness ({SPEC})."),
        facts=run_facts(None, kind="score-jury", command=command, judge_or_members=[SPEC, SPEC]),
        sections=(
            Section("fj-layout", "Position consistency and usefulness", blocks),
            Section("fj-figures", "Agreement", (main,)),
        ),
        explorer=None,
        summary={},
    )


@pytest.fixture(scope="module")
def layout_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("layout") / "layout.html"
    path.write_text(page_html(layout_page()), "utf-8")
    return path


@pytest.mark.parametrize("width", pages.WIDTHS)
def test_short_words_stay_whole_and_long_names_wrap(
    open_report: OpenReport, layout_file: Path, width: int
) -> None:
    opened = pages.open_at(open_report, layout_file, width)
    pages.assert_sound(opened)  # no sideways scroll, inside a box or not; no word broken
    labels = opened.page.eval_on_selector_all(
        "table.fj-ptable th[scope=row]", "n => n.map(x => x.textContent)"
    )
    assert labels[: len(WORDS) + 1] == [*WORDS, SPEC]
    opened.shot(f"layout-{width}.png", full_page=True)


def test_the_checks_fail_on_the_rules_they_guard_against(
    open_report: OpenReport, layout_file: Path
) -> None:
    opened = pages.open_at(open_report, layout_file, pages.PHONE)
    # The old rules: a row label broke anywhere, and a bullet did not break at all.
    opened.page.add_style_tag(content=".fj-ptable th[scope=row] { overflow-wrap: anywhere; "
                                      "max-width: none; min-width: 0 }")  # fmt: skip
    broken = pages.broken_words(opened)
    assert any(word in b for b in broken for w in WORDS for word in w.split()), broken
    opened.page.add_style_tag(content="ul.fj-lines li { overflow-wrap: normal }")
    assert pages.sideways_scroll(opened) > 0
    opened.page.add_style_tag(content="main .fj-scroll { container-type: normal }")
    opened.page.add_style_tag(content=".fj-ptable th[scope=row] { overflow-wrap: normal }")
    assert pages.scrolled_inside(opened) != []


def test_the_label_check_measures_each_plot_as_drawn(
    open_report: OpenReport, layout_file: Path
) -> None:
    """A label is cut where its plot's box on the page ends, with a viewBox or without.

    The page's main plot has no viewBox (it fills its card): measured against a
    viewBox, each of its labels read as cut; a label past either plot's edge is cut.
    """
    opened = pages.open_at(open_report, layout_file, pages.PHONE)
    page = opened.page
    assert page.locator(".fj-fluid svg:not([viewBox]) text.fj-label").count() == len(WORDS) + 1
    assert pages.clipped(opened) == []
    page.add_style_tag(content=".fj-fluid svg .fj-label { font-size: 80px }")
    cut = pages.clipped(opened)
    assert f"svg text: {WORDS[0]}" in cut, cut  # the fluid plot's, past its right edge
    assert len(cut) == len(WORDS) + 1, cut
    page.add_style_tag(content=".fj-plot svg[viewBox] .fj-value { font-size: 80px }")
    assert len(pages.clipped(opened)) == 2 * (len(WORDS) + 1)  # and the viewBox plot's values


def test_an_ellipsis_says_a_box_is_cut_and_a_bare_cut_is_found(
    open_report: OpenReport, layout_file: Path
) -> None:
    """A one-line box that hides its overflow is a cut label unless it ends in an ellipsis.

    The explorer's snippets are one line, ended by an ellipsis when longer, with the
    whole text in the item's detail: the check passes them, and finds the same box
    without its ellipsis.
    """
    opened = pages.open_at(open_report, layout_file, pages.PHONE)
    narrow = ".fj-verdict { overflow: hidden; white-space: nowrap; max-width: 5rem; "
    opened.page.add_style_tag(content=narrow + "text-overflow: ellipsis }")
    assert pages.clipped(opened) == []
    opened.page.add_style_tag(content=".fj-verdict { text-overflow: clip }")
    assert [c.split(":")[0] for c in pages.clipped(opened)] == ["P.fj-verdict"]
