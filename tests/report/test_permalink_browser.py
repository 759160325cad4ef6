"""A permalink (``page.html#item=KEY``) in headless Chromium: the window shows the item.

Opened at ``#item=q03``, a page scrolls its explorer's detail pane, which now draws
q03, to the top of the window (permalink.js: only when the pane starts outside it).
``chromium --headless --screenshot=shot.png 'page.html#item=q03'`` saves one flat
white image of it all the same. That blank comes from the switch, not the page. Its
capture is clipped to the document's first window-full (document coordinates 0, 0),
while only the scrolled window is painted. Any page that scrolls itself while it
loads does the same: a plain page that calls ``scrollTo(0, 300)`` comes out with its
top 300 rows white and its window drawn 300 rows down. A capture of the window
itself (DevTools' ``Page.captureScreenshot`` without a clip, which is what
Playwright takes), or a headed Chromium on a display, shows the item. So these tests
look at what a user sees: the item's heading and its question lie inside the window,
drawn (``checkVisibility``), on top (``elementFromPoint``), and the window's pixels,
and those under the heading, are not one flat colour.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.report import pages
from tests.report.conftest import Opened, OpenReport, run_json

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LONGER = "python:examples.judges:longer"
QUESTION_OF = {
    "q03": "What is the boiling point of water at sea level in Celsius?",
    "q07": "What is the largest ocean on Earth?",
}

# Where the item's heading and its question are, in the window's coordinates, and
# whether each is drawn and is what a click at its middle would reach.
SEEN = """(question) => {
  const box = document.getElementById("fj-detail");
  const pre = Array.from(box.querySelectorAll("pre")).find((p) => p.textContent === question);
  const seen = (el) => {
    if (!el) { return null; }
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return {
      top: r.top, bottom: r.bottom, left: r.left, right: r.right,
      drawn: el.checkVisibility({ opacityProperty: true, visibilityProperty: true,
                                  contentVisibilityAuto: true }),
      onTop: hit !== null && (el === hit || el.contains(hit)),
    };
  };
  return {
    scrollTop: document.scrollingElement.scrollTop,
    width: window.innerWidth, height: window.innerHeight,
    heading: box.querySelector("h3") ? box.querySelector("h3").textContent : null,
    h3: seen(box.querySelector("h3")), question: seen(pre),
  };
}"""

# How much a PNG's pixels vary: the standard deviation of their grey level and how
# many colours it holds (up to 1,000), over the whole image and over one rectangle
# of it. Decoded by a canvas in a blank page: no imaging library is needed.
PIXELS = """async ([png, rect]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width;
  canvas.height = img.height;
  const g = canvas.getContext("2d");
  g.drawImage(img, 0, 0);
  const spread = (x, y, w, h) => {
    const d = g.getImageData(x, y, w, h).data, colours = new Set();
    let sum = 0, squares = 0;
    for (let i = 0; i < d.length; i += 4) {
      const grey = (d[i] + d[i + 1] + d[i + 2]) / 3;
      sum += grey;
      squares += grey * grey;
      if (colours.size < 1000) { colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]); }
    }
    const n = d.length / 4, mean = sum / n;
    return { std: Math.sqrt(Math.max(0, squares / n - mean * mean)), colours: colours.size };
  };
  return { size: [img.width, img.height], all: spread(0, 0, img.width, img.height),
           part: spread(rect[0], rect[1], rect[2], rect[3]) };
}"""


@pytest.fixture(scope="module")
def demo_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's demo comparison (20 items) as a page, made once: tests only read it."""
    page = tmp_path_factory.mktemp("permalink") / "demo.html"
    run_json("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER,
             "--html", str(page))  # fmt: skip
    return page


@pytest.fixture(scope="module")
def blank_tab(browser: Any) -> Iterator[Any]:
    """A tab of its own that decodes screenshots for ``pixels``."""
    context = browser.new_context()
    yield context.new_page()
    context.close()


def pixels(tab: Any, png: bytes, rect: list[int]) -> dict[str, Any]:
    """``PIXELS`` of the screenshot ``png``, the rectangle being [x, y, width, height]."""
    result: dict[str, Any] = tab.evaluate(PIXELS, [base64.b64encode(png).decode(), rect])
    return result


def assert_item_seen(opened: Opened, tab: Any, key: str) -> dict[str, Any]:
    """The window shows item ``key``: its heading and question in view, drawn, on top."""
    page = opened.page
    seen: dict[str, Any] = page.evaluate(SEEN, QUESTION_OF[key])
    assert seen["heading"] == f"Item {key} permalink", seen
    for part in ("h3", "question"):
        box = seen[part]
        assert box is not None, f"no {part} in the detail pane: {seen}"
        assert box["bottom"] > box["top"], f"{part} has no height: {seen}"
        assert box["right"] > box["left"], f"{part} has no width: {seen}"
        assert box["top"] >= 0, f"{part} above the window: {seen}"
        assert box["bottom"] <= seen["height"], f"{part} below the window: {seen}"
        assert box["left"] >= 0, f"{part} left of the window: {seen}"
        assert box["right"] <= seen["width"], f"{part} right of the window: {seen}"
        assert box["drawn"], f"{part} is hidden: {seen}"
        assert box["onTop"], f"something covers {part}: {seen}"
    shot = page.screenshot()  # the window, as it is scrolled: what a user sees
    h3 = seen["h3"]
    rect = [int(h3["left"]), int(h3["top"]), max(1, int(h3["right"] - h3["left"])),
            max(1, int(h3["bottom"] - h3["top"]))]  # fmt: skip
    drawn = pixels(tab, shot, rect)
    assert drawn["size"] == [seen["width"], seen["height"]], drawn
    # A blank capture is one colour (standard deviation 0). This window holds text,
    # borders and tinted rows: measured 36 at 390 px and 30 at 1,440 px, with 991 and
    # 1,000 or more colours; the heading's own box 63 and 44, with 278 and 301 colours.
    assert drawn["all"]["std"] > 10, drawn
    assert drawn["all"]["colours"] > 50, drawn
    # The heading's own pixels hold its letters: not the page's background alone.
    assert drawn["part"]["std"] > 10, drawn
    assert drawn["part"]["colours"] > 2, drawn
    return seen


@pytest.mark.parametrize("width", pages.WIDTHS)
def test_a_permalink_opens_with_its_item_in_the_window(
    demo_page: Path, open_report: OpenReport, blank_tab: Any, width: int
) -> None:
    opened = pages.open_at(open_report, demo_page, width, "#item=q03")
    assert opened.problems == []
    seen = assert_item_seen(opened, blank_tab, "q03")
    # The explorer starts below the first window-full, so the page did scroll to it:
    # the case a screenshot from the document's top would miss.
    assert seen["scrollTop"] > seen["height"], seen
    opened.shot(f"permalink-q03-{width}.png")


def test_a_permalink_typed_after_the_page_loaded_brings_its_item_into_the_window(
    demo_page: Path, open_report: OpenReport, blank_tab: Any
) -> None:
    opened = pages.open_at(open_report, demo_page, pages.DESKTOP)
    page = opened.page
    assert page.evaluate("document.scrollingElement.scrollTop") == 0
    assert page.text_content("#fj-detail") == "Choose one to see everything recorded about it."
    page.evaluate("location.hash = '#item=q07'")  # as from the address bar: a hashchange
    page.wait_for_function("() => (document.querySelector('#fj-detail h3') || {}).textContent"
                           " === 'Item q07 permalink'")  # fmt: skip
    seen = assert_item_seen(opened, blank_tab, "q07")
    assert seen["scrollTop"] > 0, seen
    assert opened.problems == []
