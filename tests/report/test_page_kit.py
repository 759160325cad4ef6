"""The page kit: plots, the run-facts card, the page and its explorer in Chromium.

The kit's page here is built by hand, with every kind of block and hostile text in
every place a page puts untrusted text (titles, labels, records), so each page
engineer's tests can rely on the kit and test their own view.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, get_args

import pytest

from fairjudge.io import OutHeader, OutKind
from fairjudge.report._page import (
    NOT_RECORDED,
    Details,
    Explorer,
    FigureTable,
    Headline,
    Highlighted,
    Page,
    PageKind,
    Paragraphs,
    PlotBlock,
    Section,
    asset,
    compact_css,
    compact_script,
    page_html,
    page_script,
    run_facts,
)
from fairjudge.report._page_plots import Figure, forest_plot, heatmap, histogram
from fairjudge.report._pages import PAGES
from tests.report import pages
from tests.report.conftest import OpenReport

SCRIPT = "<script>window.__pwned = 1</script>"
ONERROR = '<img src=x onerror="window.__pwned = 1">'
BIDI = "safe\u202egnp.exe"


def test_histogram_bars_are_the_counts_and_the_alarm_spans_its_bins() -> None:
    plot = histogram({1: 0, 2: 1, 3: 2, 4: 12, 5: 5}, title="t", alarm=(4, 5), alarm_text="x")
    assert [(b.level, b.text) for b in plot.bars] == [(1, "0"), (2, "1"), (3, "2"), (4, "12"),
                                                     (5, "5")]  # fmt: skip
    tallest = max(plot.bars, key=lambda b: b.height)
    assert tallest.level == 4
    assert plot.bars[2].height == pytest.approx(tallest.height * 2 / 12, abs=0.02)
    assert plot.alarm_x is not None
    assert plot.alarm_width is not None
    four, five = plot.bars[3], plot.bars[4]
    assert plot.alarm_x <= four.x
    assert five.x + five.width <= plot.alarm_x + plot.alarm_width
    assert plot.alarm_lines == ("x",)
    assert [label for _, label in plot.bins] == ["1", "2", "3", "4", "5"]


def test_histogram_density_is_scaled_to_counts_and_two_runs_are_shares() -> None:
    values = [3.0, 3.2, 3.9, 4.1, 4.4, 4.0]
    plot = histogram({1: 0, 2: 0, 3: 2, 4: 4, 5: 0}, title="t", density=values)
    ys = [float(p.split(",")[1]) for p in plot.points.split()]
    assert len(ys) == 5 * 4 + 1
    # The curve integrates to n over bins of width 1: its area in pixels equals the
    # bars' total area at the same scale (trapezoids, quarter-bin steps).
    per_unit = (plot.base_y - plot.bars[3].y) / 4  # pixels per count
    area = sum((plot.base_y - y) / per_unit for y in ys) / 4
    assert area == pytest.approx(len(values), rel=0.05)
    both = histogram({1: 1, 2: 3}, title="t", compare={1: 2, 2: 2})
    assert [b.text for b in both.bars] == ["25%", "75%", "50%", "50%"]
    assert [name for name, _ in both.legend] == ["this run", "baseline"]
    assert both.points == ""


def test_heatmap_prints_each_number_and_says_why_a_cell_has_none() -> None:
    plot = heatmap(["a", "b"], ["x", "y"], [[0.5, None], [1.0, 0.0]], title="t",
                   reasons={(0, 1): "no shared items"})  # fmt: skip
    assert [[c.text for c in row] for row in plot.cells] == [["0.50", "n/a"], ["1.00", "0.00"]]
    assert plot.cells[0][1].reason == "no shared items"
    assert plot.cells[1][0].background != plot.cells[1][1].background


def _heat_page(*plots: Any) -> str:
    table = FigureTable("the counts", ("row", "x"), (("a", "1"),))
    section = Section("fj-heats", "Matrices", tuple(PlotBlock(p, table) for p in plots))
    return page_html(Page("score", "heatmaps", Headline("v"), (), (section,), None, {}))


def test_a_heatmap_is_headed_only_when_its_layout_asks() -> None:
    plain = heatmap(["a"], ["x"], [[0.5]], title="agreement: member x member")
    assert plain.heading is None  # opt-in: a matrix alone in a titled card has no heading
    html = _heat_page(plain)
    assert "fj-plottitle" not in html.split("</style>")[1]  # the page's CSS names it
    assert 'aria-label="agreement: member x member"' in html
    assert "<figcaption>agreement: member x member; colour from" in html
    headed = heatmap(["a"], ["x"], [[0.5]], title="Answers by human score and judge score",
                     heading=f"accuracy {SCRIPT}")  # fmt: skip
    html = _heat_page(plain, headed)
    body = html.split("</style>")[1]
    heading = '<h3 class="fj-plottitle" id="fj-heats-2-heading">accuracy &lt;script&gt;'
    assert body.count('class="fj-plottitle"') == 1
    assert body.index(heading) < body.index('<table class="fj-heat" id="fj-heats-2"')
    # Its accessible name leads with the heading; its caption does not repeat it.
    assert ('aria-label="accuracy &lt;script&gt;window.__pwned = 1&lt;/script&gt;: answers by '
            'human score and judge score"') in body  # fmt: skip
    assert "<figcaption>Answers by human score and judge score; colour from" in body
    assert "<script>window" not in body.split("<script type=")[0]


def test_run_facts_reads_the_header_and_the_live_run_overrides_it() -> None:
    header = OutHeader("score", "0.9.0", "python:x:y", None, "production@1", {"seed": 7},
                       ("fairjudge", "score", "in.jsonl"))  # fmt: skip
    facts = dict(run_facts(header, kind="score", calls_made=3, calls_cached=2))
    assert facts == {
        "command": "fairjudge score in.jsonl", "judge": "python:x:y", "rubric": "production@1",
        "seed": "7", "calls": "3 made, 2 cached", "cost": NOT_RECORDED, "fairjudge": "0.9.0",
    }  # fmt: skip
    live = dict(run_facts(None, kind="jury", judge_or_members=["a", "b"], seed=1, cost=0.5))
    assert live["members"] == "a, b"
    assert live["cost"] == "$0.5000 (estimated)"
    assert live["command"] == NOT_RECORDED


def _records(n: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        hostile = (SCRIPT, ONERROR, BIDI)[i % 3]
        out.append({
            "k": f"id {i}/{hostile}" if i == 4 else f"id-{i}",
            "t": f"item {i}: {hostile}",
            "s": f"answer {hostile}",
            "f": {"parse": i % 3 == 0, "human": i % 5 == 0},
            "v": {"system": f"sys {i % 2} {hostile if i % 2 else ''}", "score": [f"a={i % 5}"]},
            "d": [{"h": "Answer", "rows": [["answer", hostile], ["reason", BIDI]]},
                  {"h": "Scores", "cols": ["dimension", "score"], "cells": [["a", str(i % 5)]]}],
        })  # fmt: skip
    return out


SPEC = {
    "flags": [{"key": "parse", "label": "have a parse failure"},
              {"key": "human", "label": f"disagree with a human {SCRIPT}"}],
    "facets": [{"key": "system", "label": "system"}, {"key": "score", "label": "score"}],
}  # fmt: skip


def kit_page(n: int = 130) -> Page:
    """A page with every kind of block, and hostile text everywhere a page shows text."""
    figures = [Figure(f"system {ONERROR}", 3.2, 3.0, 3.4, "3.20 [3.00, 3.40]"),
               Figure("system b", None, None, None, "no scores", reason="no scores")]  # fmt: skip
    table = FigureTable(f"caption {SCRIPT}", ("score", "answers"), (("1", "2"), ("2", BIDI)),
                        {1: "fj-noci"})  # fmt: skip
    blocks = (
        PlotBlock(histogram({1: 2, 2: 3, 3: 9, 4: 40, 5: 6}, title=f"accuracy {BIDI}",
                            density=[3.1, 4.0, 4.2, 3.9], alarm=(4, 5),
                            alarm_text="collapse alarm: 87% of scores in 4-5"), table),
        PlotBlock(histogram({1: 2, 2: 3}, title="vs baseline", compare={1: 1, 2: 1}), table),
        PlotBlock(heatmap([f"member {SCRIPT}", "b"], ["x", f"family {BIDI}"],
                          [[0.5, None], [1.0, 0.2]], title="agreement",
                          reasons={(0, 1): "no shared items"}), table),
        PlotBlock(forest_plot(figures, title="means", ref=3.0, ref_label="the middle"), table,
                  ("fj-v-severe", "")),
        Paragraphs((f"a line {ONERROR}", "another"), bullets=True),
        Highlighted((("concise", (("It is 4.", False),)),
                     ("padded", (("It is 4. ", False), (f"Also {SCRIPT}.", True))))),
        Details("the rule", (f"severe when {BIDI}",)),
    )  # fmt: skip
    return Page(
        kind="score",
        title=f"kit {SCRIPT} {BIDI}",
        headline=Headline(f"The verdict {ONERROR}", label="accuracy", estimate="4.10",
                          ci="[3.90, 4.30]", note="n = 60", warnings=(f"warn {BIDI}",)),
        facts=run_facts(None, kind="score", command=["fairjudge", "score", f"x{BIDI}.jsonl"]),
        sections=(Section("fj-dims", f"Dimensions {SCRIPT}", blocks),),
        explorer=Explorer(SPEC, _records(n), noun="answers"),
        summary={"verdict": f"The verdict {ONERROR}", "hidden": BIDI},
    )  # fmt: skip


def test_page_html_escapes_every_text_and_shows_hidden_characters() -> None:
    html = page_html(kit_page(10))
    body = html.split("<script type=")[0]
    assert "<script>window" not in body
    assert "<img src=x" not in body
    assert "\u202e" not in html  # in the text as a marker, in the JSON as an escape
    assert "safe⟨U+202E⟩gnp.exe" in body
    assert html.count("<script") == 4  # three JSON blocks and the one script
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', html)
    assert csp is not None
    assert "default-src 'none'" in html_lib.unescape(csp.group(1))


@pytest.fixture(scope="module")
def kit_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kit") / "kit.html"
    path.write_text(page_html(kit_page()), "utf-8")
    return path


def test_kit_page_in_chromium(open_report: OpenReport, kit_file: Path) -> None:
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, kit_file, width)
        pages.assert_sound(opened)
        assert pages.verdict(opened) == "The verdict " + ONERROR
        assert opened.page.evaluate("() => window.__pwned") is None
        found = pages.records(kit_file)
        assert pages.shown_counts(opened) == pages.expected_counts(found, SPEC) == {
            "parse": 44, "human": 26}  # fmt: skip
        shown = pages.shown_facets(opened, "system")
        assert shown == dict(pages.expected_facets(found, "system"))
        assert opened.count() == 130
        assert opened.page.locator(".fj-list li").count() == 50
    pages.screenshots(open_report, kit_file, "kit")


def test_kit_explorer_filters_search_keys_and_permalinks(
    open_report: OpenReport, kit_file: Path
) -> None:
    opened = pages.open_at(open_report, kit_file, pages.DESKTOP)
    page = opened.page
    page.check('.fj-filter[data-filter="parse"]')
    assert opened.count() == 44
    page.select_option('select[data-facet="score"]', "a=0")
    found = pages.records(kit_file)
    # a false flag and a missing facet are left out of the page's JSON, as explorer.js reads them
    both = [r for r in found if r.get("f", {}).get("parse") and "a=0" in r["v"]["score"]]
    assert opened.count() == len(both) == 9
    page.uncheck('.fj-filter[data-filter="parse"]')
    page.select_option('select[data-facet="score"]', "")
    page.fill("#fj-search", "ONERROR=")
    page.wait_for_function("() => document.getElementById('fj-count').dataset.count !== '130'")
    assert opened.count() == pages.matching(found, "onerror=") == 43
    page.fill("#fj-search", "")
    page.wait_for_function("() => document.getElementById('fj-count').dataset.count === '130'")
    assert pages.explorer_keys(opened) == "#item=id-2"
    assert "item 2:" in page.text_content("#fj-detail h3")
    assert page.evaluate("() => window.__pwned") is None
    # The hostile key round-trips through its permalink, exactly.
    key = found[4]["k"]
    link = page.evaluate("k => '#item=' + encodeURIComponent(k)", key)
    again = pages.open_at(open_report, kit_file, pages.PHONE, fragment=link)
    assert "item 4:" in again.page.text_content("#fj-detail h3")
    assert again.page.evaluate("() => window.__pwned") is None
    assert pages.sideways_scroll(again) == 0
    again.page.evaluate("location.hash = '#item=nope'")
    again.page.wait_for_selector("#fj-detail .fj-warning:has-text('No item nope in this report.')")


def test_every_page_kind_has_the_loader_its_module_registers() -> None:
    """``fairjudge report`` draws every kind of page, each by its own module's loader."""
    assert set(get_args(PageKind)) == set(PAGES) == set(get_args(OutKind))
    assert {kind: loader.__name__ for kind, loader in PAGES.items()} == {
        "compare": "compare_page_from_file",
        "calibrate": "calibrate_page_from_file",
        "compare-via-scores": "via_scores_page_from_file",
        "rank": "rank_page_from_file",
        "score": "score_page_from_file",
        "audit": "audit_page_from_file",
        "jury": "jury_page_from_file",
        "score-jury": "score_jury_page_from_file",
    }


def test_one_permalink_serves_every_explorer() -> None:
    """The address code is written once: each page's script is it, then its explorer."""
    shared = asset("permalink.js")
    assert 'function href(key) { return "#item=" + encodeURIComponent(key); }' in shared
    assert "#item=" not in asset("explorer.js")
    assert page_script("explorer.js") == compact_script(shared + asset("explorer.js"))


def test_a_page_ships_its_script_and_stylesheet_without_comments_or_indentation() -> None:
    """Every code line of the scripts and every rule of page.css survive; only prose goes."""
    source = asset("permalink.js") + asset("explorer.js")
    shipped = page_script("explorer.js")
    # The code as written, comments dropped wherever they are: the same tokens in order.
    code = re.sub(r"^\s*//.*$", "", re.sub(r"/\*.*?\*/", "", source, flags=re.S), flags=re.M)
    assert "".join(shipped.split()) == "".join(code.split())
    stripped = {line.strip() for line in source.splitlines()}
    assert all(line in stripped for line in shipped.splitlines())  # whole lines, none cut
    assert "/*" not in shipped
    assert "\n  " not in shipped
    assert len(shipped) < 0.85 * len(source)
    css = compact_css(asset("page.css"))
    assert "/*" not in css
    assert ".fj-calls .fj-two>.fj-dsec{border:1px solid var(--border);" in css
    assert "@media (prefers-color-scheme: dark){:root{--bg:#14161a;" in css
    assert len(css) < 0.75 * len(asset("page.css"))


def test_headings_and_labels_every_record_repeats_are_written_once_in_the_spec(
    tmp_path: Path,
) -> None:
    """A repeated heading or row label is an index into spec labels; a unique one stays."""
    records = [
        {"k": "a", "t": "a", "d": [{"h": f"Item {SCRIPT}", "rows": [["outcome", "won"]]},
                                   {"h": "only once", "pre": "outcome"}]},
        {"k": "b", "t": "B", "d": [{"h": f"Item {SCRIPT}", "rows": [["outcome", "lost"]]}]},
    ]  # fmt: skip
    page = kit_page(1)
    path = tmp_path / "labels.html"
    path.write_text(page_html(replace(page, explorer=Explorer(SPEC, records))), "utf-8")
    raw = pages.embedded(path, "fj-records")
    labels = pages.embedded(path, "fj-explorer-spec")["labels"]
    assert labels == [f"Item {SCRIPT}", "outcome"]
    assert raw[0]["d"] == [{"h": 0, "rows": [[1, "won"]]}, {"h": "only once", "pre": "outcome"}]
    assert "t" not in raw[0]  # the title is its key
    assert raw[1]["t"] == "B"
    assert pages.records(path)[1]["d"] == records[1]["d"]  # read back, as explorer.js does
    assert SCRIPT not in path.read_text("utf-8")  # in the spec as in the records: escaped


def _defaults_page(tmp_path: Path) -> Path:
    """Records with every default explorer.js reads when a part is missing, and without."""
    spec = {"flags": [{"key": "x", "label": "x"}, {"key": "y", "label": "y"}],
            "facets": [{"key": "c", "label": "category"}, {"key": "sys", "label": "system"}],
            "sorts": [{"key": "len", "label": "length"}]}  # fmt: skip
    records = [
        {"k": "a", "t": "a", "s": "", "f": {"x": False, "y": True},
         "v": {"c": None, "sys": "s1"}, "n": {"len": None}, "d": []},
        {"k": "b", "s": "the search", "f": {"x": False, "y": False}, "v": {"c": None, "sys": []},
         "n": {"len": 3}, "d": [{"h": "Answer", "pre": "text"}]},
    ]  # fmt: skip
    path = tmp_path / "defaults.html"
    path.write_text(page_html(replace(kit_page(1), explorer=Explorer(spec, records))), "utf-8")
    return path


def test_a_pages_records_leave_out_what_the_explorer_reads_as_its_default(
    tmp_path: Path,
) -> None:
    # An empty search text, false flags, null facets and sort numbers, and empty parts
    # made every record of a score or audit page bigger; explorer.js reads each the
    # same when it is missing (r.s || "", r.f && r.f[key], a missing or null value is
    # none). An empty facet list is not none, so it stays.
    raw = pages.embedded(_defaults_page(tmp_path), "fj-records")
    assert raw == [
        {"k": "a", "f": {"y": True}, "v": {"sys": "s1"}},
        {"k": "b", "s": "the search", "v": {"sys": []}, "n": {"len": 3},
         "d": [{"h": "Answer", "pre": "text"}]},
    ]  # fmt: skip


def test_records_without_their_defaults_filter_and_sort_as_before(
    open_report: OpenReport, tmp_path: Path
) -> None:
    opened = pages.open_at(open_report, _defaults_page(tmp_path), pages.DESKTOP)
    pages.assert_sound(opened)
    assert pages.shown_counts(opened) == {"x": 0, "y": 1}
    assert pages.shown_facets(opened, "c") == {"\x00none": 2}
    assert pages.shown_facets(opened, "sys") == {"s1": 1}
    titles = "nodes => nodes.map(n => n.textContent)"
    assert opened.page.eval_on_selector_all("#fj-list .fj-title", titles) == ["a", "b"]
    opened.page.select_option("#fj-sort", "len-asc")
    assert opened.page.eval_on_selector_all("#fj-list .fj-title", titles) == ["b", "a"]
