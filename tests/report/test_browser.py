"""The HTML report in headless Chromium, opened from disk as a user would.

Each test checks that the page logs no error, asks for nothing but its own file,
and that what it shows is what the JSON says. Screenshots go to
``tests/report/artifacts/``.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.out_file import out_records
from tests.report import pages
from tests.report._data import MODEL_1, bidi_rows, hostile_rows, large_rows, write_rows
from tests.report.conftest import Opened, OpenReport

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LONGER = "python:examples.judges:longer"
MIXED = "python:tests.report.judges:mixed"
HIDDEN = "python:tests.report.judges:hidden"
CATEGORY = "select[data-facet='category']"
# Where each character of `needle` is drawn, left to right on screen, inside `selector`.
CHARACTER_LEFTS = """([selector, needle]) => {
  const root = typeof selector === "string" ? document.querySelector(selector) : selector;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(needle);
    if (at < 0) { continue; }
    const lefts = [];
    for (let i = at; i < at + needle.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      lefts.push(range.getBoundingClientRect().left);
    }
    return lefts;
  }
  return null;
}"""


def run_json(*args: str) -> dict[str, Any]:
    # In a worker thread: while Playwright is open, an event loop runs in this one, and
    # a judge may start its own with asyncio.run(), which refuses to nest.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(runner.invoke, app, [*args, "--json"]).result()
    assert result.exit_code in (0, 3), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def assert_clean(opened: Opened) -> None:
    assert opened.problems == []
    assert opened.foreign_requests == []
    assert opened.page.evaluate("typeof window.pwned") == "undefined"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The hostile rows' report and ``--out`` records, made once: the tests only read them."""
    tmp_path = tmp_path_factory.mktemp("hostile")
    items = write_rows(tmp_path / "hostile.jsonl", hostile_rows())
    out, page = tmp_path / "out.jsonl", tmp_path / "hostile.html"
    run_json("compare", str(items), "--judge", MIXED, "--out", str(out), "--html", str(page))
    records = out_records(out)
    return page, records


def test_demo_compare_report(tmp_path: Path, open_report: OpenReport) -> None:
    page = tmp_path / "demo.html"
    summary = run_json(
        "compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER, "--html", str(page)
    )
    for width in pages.WIDTHS:  # the item open: its detail is laid out too
        at = pages.open_at(open_report, page, width, "#item=q03")
        pages.assert_sound(at)  # the list's snippets end in an ellipsis, never a bare cut
        at.shot(f"demo_compare-{width}.png", full_page=True)
    opened = open_report(page, fragment="#item=q03")
    assert_clean(opened)
    w = summary["win_rate"]
    headline = opened.page
    assert headline.text_content("#fj-headline-estimate") == f"{w['estimate']:.3f}"
    ci = f"[{w['ci']['low']:.3f}, {w['ci']['high']:.3f}]"
    assert headline.text_content("#fj-headline-ci") == ci
    assert headline.text_content("#fj-verdict") == (
        "Model 1 is better: the whole interval lies above 0.5."
        if w["ci"]["low"] > 0.5
        else headline.text_content("#fj-verdict")
    )
    embedded = json.loads(headline.text_content("#fj-summary") or "")
    assert embedded == summary
    assert "Item q03" in (headline.text_content("#fj-detail h3") or "")
    assert opened.count() == 20
    # The heading and the line under each title are said once, in the spec; each row
    # still shows its outcome and question.
    records = pages.records(page)
    assert not any("h" in r or "x" in r for r in records)
    assert pages.embedded(page, "fj-explorer-spec")["head"] == "Item "
    first = headline.text_content("#fj-list li:first-child .fj-snippet")
    assert first == "assistant-v1 better · What is the capital of Australia?"
    opened.shot("demo_compare.png", full_page=True)
    dark = open_report(page, fragment="#item=q03", color_scheme="dark")
    assert_clean(dark)
    background = "getComputedStyle(document.documentElement).backgroundColor"
    assert dark.page.evaluate(background) == "rgb(20, 22, 26)"
    dark.shot("demo_compare_dark.png", full_page=True)
    dark.page.emulate_media(media="print")
    assert dark.page.evaluate(background) == "rgb(255, 255, 255)"  # print is light
    assert dark.page.is_hidden(".fj-controls")
    dark.shot("demo_compare_print.png", full_page=True)


def test_filters_search_and_sort_count_correctly(hostile, open_report: OpenReport) -> None:  # type: ignore[no-untyped-def]
    page, records = hostile
    opened = open_report(page)
    assert_clean(opened)
    p = opened.page
    expected = {
        "inconsistent": [r for r in records if r["consistent"] is False],
        "parse": [r for r in records if any((c["failure"] or {}).get("type") == "parse_failure"
                                            for c in r["calls"])],
        "error": [r for r in records if any((c["failure"] or {}).get("type") == "call_error"
                                            for c in r["calls"])],
        "disagrees": [r for r in records if r["human"] is not None and r["outcome"] is not None
                      and r["human"] != r["outcome"]],
    }  # fmt: skip
    assert {k: len(v) for k, v in expected.items()} == {
        "inconsistent": 3, "parse": 1, "error": 1, "disagrees": 8,
    }  # fmt: skip
    assert opened.count() == len(records) == 12
    for name, matching in expected.items():
        box = f".fj-filter[data-filter='{name}']"
        p.check(box)
        assert opened.count() == len(matching)
        assert p.locator("#fj-list li").count() == len(matching)
        ids = [t.split()[1] for t in p.locator("#fj-list li .fj-num").evaluate_all(
            "els => els.map(e => e.textContent + ' ' + e.nextSibling.textContent)")]  # fmt: skip
        assert ids == [r["id"] for r in matching]
        p.uncheck(box)
    p.check(".fj-filter[data-filter='inconsistent']")
    p.check(".fj-filter[data-filter='disagrees']")
    both = [r for r in expected["inconsistent"] if r in expected["disagrees"]]
    assert opened.count() == len(both) == 3
    p.uncheck(".fj-filter[data-filter='inconsistent']")
    p.uncheck(".fj-filter[data-filter='disagrees']")
    p.select_option(CATEGORY, "markers")
    assert opened.count() == sum(r["category"] == "markers" for r in records) == 7
    p.select_option(CATEGORY, "")
    p.fill("#fj-search", "PRIME")  # case-insensitive; finds a conversation's later turn
    p.wait_for_selector("#fj-count[data-count='1']")
    assert p.text_content("#fj-list .fj-title") == "conv"
    p.fill("#fj-search", "")
    p.wait_for_selector("#fj-count[data-count='12']")
    p.select_option("#fj-sort", "score-asc")
    scores = [r["score"] for r in records if r["score"] is not None]
    first = p.text_content("#fj-list li:first-child .fj-title")
    assert next(r for r in records if r["id"] == first)["score"] == min(scores)
    last = p.text_content("#fj-list li:last-child .fj-title")
    assert next(r for r in records if r["id"] == last)["score"] is None  # unresolved last
    assert_clean(opened)
    opened.shot("filters.png", full_page=True)


def test_hostile_text_shows_as_text_and_never_runs(hostile, open_report: OpenReport) -> None:  # type: ignore[no-untyped-def]
    page, records = hostile
    opened = open_report(page)
    p = opened.page
    for record in records:  # every item's detail: question, answers, replies, failures
        p.click(f"#fj-list a[href='#item={record['id']}']")
        # The detail is drawn on hashchange, which fires after the hash is set:
        # wait for the heading, or a fast read sees the previous item.
        p.wait_for_function(
            "id => (document.querySelector('#fj-detail h3') || {}).textContent"
            " === 'Item ' + id + ' permalink'",
            arg=record["id"],
        )
        detail = p.text_content("#fj-detail") or ""
        assert record["answer_1"] in detail
        assert record["answer_2"] in detail
        for call in record["calls"]:
            assert (call["raw"] or "(no reply)") in detail
    p.click("#fj-list a[href='#item=x0']")
    p.wait_for_selector("#fj-detail h3:has-text('Item x0')")
    answer = p.text_content("#fj-detail .fj-two pre") or ""
    assert answer == "<script>window.pwned = 'script'</script>"
    assert_clean(opened)
    assert p.evaluate("document.querySelectorAll('script').length") == 4  # 3 JSON, 1 script
    assert p.evaluate("document.querySelectorAll('img, textarea, b, i').length") == 0


def test_permalink_opens_the_item(hostile, open_report: OpenReport) -> None:  # type: ignore[no-untyped-def]
    page, _ = hostile
    opened = open_report(page, fragment="#item=conv")
    p = opened.page
    assert (p.text_content("#fj-detail h3") or "").startswith("Item conv")
    assert "Conversation (3 turns)" in (p.text_content("#fj-detail") or "")
    assert p.get_attribute("#fj-detail h3 a", "href") == "#item=conv"
    p.evaluate("location.hash = '#item=m0'")
    p.wait_for_selector("#fj-detail h3:has-text('Item m0')")
    assert "Parse failure: " in (p.text_content("#fj-detail") or "")
    p.evaluate("location.hash = '#item=nope'")
    p.wait_for_selector("#fj-detail .fj-warning:has-text('No item nope')")
    assert_clean(opened)


def test_a_click_or_enter_draws_the_item_before_the_click_returns(  # type: ignore[no-untyped-def]
    hostile, open_report: OpenReport
) -> None:
    """The detail is drawn in the click itself, not on the hashchange that follows it.

    The script clicks and reads in one task, before any hashchange can fire: a page
    that drew only on hashchange shows the previous item there (a reader, or a test,
    reading right after a click saw stale details).
    """
    page, records = hostile
    opened = open_report(page)
    p = opened.page
    read_at_once = """([id, how]) => {
        const link = document.querySelector(`#fj-list a[href='#item=${id}']`);
        if (how === "click") { link.click(); } else {
            const list = document.getElementById("fj-list");
            const rows = Array.from(list.querySelectorAll("li"));
            const at = rows.findIndex(li => li.contains(link));
            rows[at].click();  // selects the row without following its link
            list.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
        }
        return [location.hash, document.querySelector("#fj-detail h3").textContent];
    }"""
    for record in records[:4]:
        hash_, heading = p.evaluate(read_at_once, [record["id"], "click"])
        assert (hash_, heading) == (f"#item={record['id']}", f"Item {record['id']} permalink")
    hash_, heading = p.evaluate(read_at_once, [records[5]["id"], "enter"])
    assert (hash_, heading) == (f"#item={records[5]['id']}", f"Item {records[5]['id']} permalink")
    p.go_back()  # Back still follows the address
    p.wait_for_function(
        "id => document.querySelector('#fj-detail h3').textContent === 'Item ' + id + ' permalink'",
        arg=records[3]["id"])  # fmt: skip
    assert_clean(opened)


def drawn_in_order(opened: Opened, selector: str, needle: str) -> bool:
    """Whether ``needle``, found in ``selector``'s text, is drawn left to right as written."""
    lefts = opened.page.evaluate(CHARACTER_LEFTS, [selector, needle])
    assert lefts is not None, f"{needle!r} is not in {selector}"
    return bool(lefts == sorted(lefts) and len(set(lefts)) == len(lefts))


def test_bidi_overrides_show_as_markers_and_reorder_nothing(
    tmp_path: Path, open_report: OpenReport
) -> None:
    items = write_rows(tmp_path / "bidi.jsonl", bidi_rows())
    page = tmp_path / "bidi.html"
    run_json("compare", str(items), "--judge", HIDDEN, "--html", str(page))
    opened = open_report(page, fragment="#item=r%E2%80%AE0")  # the key holds the override
    assert_clean(opened)
    p = opened.page
    # The check can see a reordering: a live override draws "gnp.exe" right to left.
    p.evaluate(
        "t => { const e = document.createElement('p'); e.id = 'probe'; e.textContent = t; "
        "document.body.appendChild(e); }",
        MODEL_1,
    )
    assert not drawn_in_order(opened, "#probe", "gnp.exe")
    p.evaluate("document.getElementById('probe').remove()")
    shown = "a\u27e8U+202E\u27e9gnp.exe"
    text = p.evaluate("document.body.innerText")
    assert not [c for c in text if c in "\u202e\u2066\u2069\u200b\u200d\ufeff"]
    assert f"model 1 is {shown}, model 2 is b\u27e8U+2066\u27e9" in text
    assert drawn_in_order(opened, "#fj-headline .fj-note", shown)
    detail = p.text_content("#fj-detail") or ""
    assert "Item r\u27e8U+202E\u27e90" in detail
    assert f"Answer 1 ({shown})" in detail
    assert f"Open {shown} now 0" in detail  # the answer itself
    assert "The other answer reads \u27e8U+202E\u27e9elbaliava\u27e8U+202C\u27e9" in detail
    assert drawn_in_order(opened, "#fj-detail .fj-two h4", shown)
    assert drawn_in_order(opened, "#fj-detail .fj-two pre", f"Open {shown} now 0")
    p.evaluate("location.hash = '#item=r%E2%80%AE5'")  # the call error's message
    p.wait_for_selector("#fj-detail .fj-failure")
    failure = p.text_content("#fj-detail .fj-failure") or ""
    assert "server said \u27e8U+202E\u27e9on\u27e8U+202C\u27e9" in failure
    assert "\u27e8U+001B\u27e9[2J" in failure
    assert_clean(opened)
    opened.shot("bidi.png", full_page=True)


def test_rank_report(tmp_path: Path, open_report: OpenReport) -> None:
    page = tmp_path / "rank.html"
    board = run_json(
        "rank", str(EXAMPLES / "rank_answers.jsonl"), "--judge", LONGER, "--html", str(page)
    )
    for width in pages.WIDTHS:  # the leaderboard's labels inside its plot, at both widths
        pages.assert_sound(pages.open_at(open_report, page, width))
    opened = open_report(page)
    assert_clean(opened)
    p = opened.page
    top = board["ratings"][0]
    # The headline is the top model with its rank interval, not the anchor's rating.
    assert p.text_content("#fj-headline-estimate") == top["model"]
    assert "rank intervals" in (p.text_content("#fj-headline") or "")
    assert p.locator("#fj-figure-table tbody tr").count() == len(board["ratings"]) == 4
    assert p.locator(".fj-plot svg .fj-prow").count() == 4
    assert opened.count() == 96  # the judged pairs
    opened.shot("rank.png", full_page=True)


def test_rank_interval_that_cannot_be_estimated(tmp_path: Path, open_report: OpenReport) -> None:
    games = [("a", "b", "model_a"), ("a", "b", "model_b"), ("a", "b", "model_a"),
             ("b", "c", "model_a"), ("b", "c", "tie"), ("c", "a", "model_b"),
             ("c", "a", "model_a")]  # fmt: skip
    battles = [{"model_a": a, "model_b": b, "winner": w, "question_id": "q0"} for a, b, w in games]
    page = tmp_path / "battles.html"
    board = run_json("rank", str(write_rows(tmp_path / "b.jsonl", battles)), "--html", str(page))
    refused = [r for r in board["ratings"] if not r["ci"]["estimable"]]
    assert len(refused) == 3  # one question: the bootstrap cannot vary
    opened = open_report(page)
    pages.assert_sound(opened)  # a reason in place of the interval, inside the plot
    assert_clean(opened)
    p = opened.page
    # No number and no point for a rating without an interval: only the reason (issue 21).
    assert p.locator(".fj-noci .fj-point").count() == 0
    assert p.locator(".fj-noci").count() >= len(refused)
    table = p.text_content("#fj-figure-table") or ""
    assert f"not estimated: {refused[0]['ci']['reason']}" in table
    assert p.locator("#fj-explorer").count() == 0  # judged battles: no items
    opened.shot("rank_not_estimable.png", full_page=True)


def test_calibrate_report(tmp_path: Path, open_report: OpenReport) -> None:
    page = tmp_path / "calibrate.html"
    payload = run_json(
        "calibrate", str(EXAMPLES / "calibration.jsonl"), "--judge",
        "python:examples.judges:knows_facts", "--html", str(page),
    )  # fmt: skip
    opened = open_report(page)
    assert_clean(opened)
    embedded = json.loads(opened.page.text_content("#fj-summary") or "")
    assert embedded["n_items"] == payload["n_items"]
    assert opened.page.is_visible("#fj-calibration")


def test_ten_thousand_items(tmp_path: Path, open_report: OpenReport) -> None:
    rows = large_rows(10_000)
    items = write_rows(tmp_path / "large.jsonl", rows)
    page = tmp_path / "large.html"
    run_json("compare", str(items), "--judge", "python:tests.report.judges:explained",
             "--bootstrap", "100", "--html", str(page))  # fmt: skip
    opened = open_report(page, fragment="#item=item-09999")
    assert_clean(opened)
    p = opened.page
    assert opened.count() == 10_000
    assert p.locator("#fj-list li").count() == 50  # one page in the DOM, not 10,000 rows
    assert p.text_content("#fj-page") == "page 1 of 200"
    assert (p.text_content("#fj-detail h3") or "").startswith("Item item-09999")
    snippet = p.text_content("#fj-list li:first-child .fj-snippet") or ""
    assert snippet.endswith(" better · " + rows[0]["question"][:160])
    assert len(rows[0]["question"]) > 160  # the line keeps the question's first 160 only
    p.select_option(CATEGORY, "code")
    assert opened.count() == sum(r["category"] == "code" for r in rows)
    p.check(".fj-filter[data-filter='disagrees']")
    p.uncheck(".fj-filter[data-filter='disagrees']")
    p.select_option(CATEGORY, "")
    p.fill("#fj-search", "item-0999")
    p.wait_for_selector("#fj-count[data-count='10']")
    p.fill("#fj-search", "")
    p.wait_for_selector("#fj-count[data-count='10000']")
    for _ in range(3):
        p.click("#fj-next")
    assert p.text_content("#fj-page") == "page 4 of 200"
    assert p.text_content("#fj-list li:first-child .fj-title") == "item-00150"
    assert_clean(opened)
    p.evaluate("document.getElementById('fj-explorer').scrollIntoView()")
    opened.shot("large_10000.png")
