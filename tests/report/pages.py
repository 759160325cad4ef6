"""Browser checks shared by the tests of the kit's pages (score, audit, jury, score-jury).

On top of conftest.py's ``browser`` and ``open_report`` fixtures: open a page at a
phone's width (390 px) and a desktop's (1,440 px), and check what every page
promises: no console error, no request but the file itself, no sideways scroll, no
label cut; read the headline, the explorer's filter counts and its records (the
counts are compared with ones computed here from the records); time the page until
it is interactive (reported, never asserted); and save screenshots to
``tests/report/artifacts/<page>-<width>.png``. With ``FAIRJUDGE_DOCS_SCREENSHOTS=1``
the 1,440 px view of the page's top is also saved as ``docs/img/<page>.png`` for the
README; without it the tests leave the tree as it was.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tests.report.conftest import Opened, OpenReport

PHONE, DESKTOP = 390, 1440
WIDTHS = (PHONE, DESKTOP)
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

# Every element whose text is cut: an HTML box that hides its overflow and is narrower
# than its text, or an SVG text drawn past its plot's edge. A box that ends its text in
# an ellipsis (an explorer row's one-line snippet) says it is cut, and the whole text is
# a click away, so it is not counted. An SVG text is measured against the SVG's box on
# the page, not its viewBox: a page's main forest plot has no viewBox (it fills its card,
# plots.html.j2's fluid_forest), and an SVG without one clips at its own box, which is
# also where a viewBox's plot ends once scaled.
_CLIPPED = """() => {
  const cut = [];
  for (const node of document.querySelectorAll("body *")) {
    if (node instanceof SVGElement || !node.textContent.trim()) { continue; }
    const style = getComputedStyle(node);
    const hides = ["hidden", "clip"].includes(style.overflowX) && style.display !== "none";
    const says = style.textOverflow === "ellipsis";
    if (hides && !says && node.scrollWidth > node.clientWidth + 1) {
      cut.push(node.tagName + "." + node.className + ": " + node.textContent.slice(0, 60));
    }
  }
  for (const svg of document.querySelectorAll("svg")) {
    const box = svg.getBoundingClientRect();
    for (const text of svg.querySelectorAll("text")) {
      const b = text.getBoundingClientRect();
      if (b.width && (b.left < box.left - 1 || b.right > box.right + 1
                      || b.top < box.top - 1 || b.bottom > box.bottom + 1)) {
        cut.push("svg text: " + text.textContent.slice(0, 60));
      }
    }
  }
  return cut;
}"""
# Every word shorter than SHORT_WORD characters that the page breaks across lines: a
# label squeezed into a narrow column ("usefulnes|s", "posit|ion" at 390 px). A word is
# a run of letters and digits inside a token (a run without spaces), so "anti-verbose"
# may still break after its hyphen; a token of SHORT_WORD characters or more (a judge
# spec, a path) may break anywhere when it cannot fit. SVG text is laid out by the
# plots, not by the browser, and is checked by _CLIPPED instead.
SHORT_WORD = 13
_BROKEN_WORDS = """(short) => {
  const broken = [];
  const skip = "svg, script, style, noscript, template, select";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: n => n.parentElement.closest(skip) ? NodeFilter.FILTER_REJECT
                                                  : NodeFilter.FILTER_ACCEPT,
  });
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const token of node.data.matchAll(/\\S+/g)) {
      if (token[0].length >= short) { continue; }
      for (const word of token[0].matchAll(/[\\p{L}\\p{N}]{2,}/gu)) {
        const start = token.index + word.index;
        range.setStart(node, start);
        range.setEnd(node, start + word[0].length);
        const lines = new Set(Array.from(range.getClientRects(), r => Math.round(r.bottom)));
        if (lines.size > 1) {
          const box = node.parentElement;
          broken.push(box.tagName + "." + box.className + ": " + word[0] + " in " + token[0]);
        }
      }
    }
  }
  return broken;
}"""
# Every box that scrolls sideways inside the page (a table wider than its card): the
# page itself does not scroll, but a reader still has to swipe to read it.
_SCROLLED = """() => {
  const wide = [];
  for (const node of document.querySelectorAll("body *")) {
    const style = getComputedStyle(node);
    if (["auto", "scroll"].includes(style.overflowX) && node.clientWidth
        && node.scrollWidth > node.clientWidth + 1) {
      wide.push(node.tagName + "." + node.className + " " + (node.scrollWidth - node.clientWidth)
                + " px: " + node.textContent.trim().slice(0, 60));
    }
  }
  return wide;
}"""
_SCRIPT_JSON = r'<script type="application/json" id="{}">(.*?)</script>'


def embedded(html_path: Path, element_id: str) -> Any:
    """The JSON a page embeds in ``<script type="application/json" id=element_id>``."""
    text = html_path.read_text("utf-8")
    match = re.search(_SCRIPT_JSON.format(re.escape(element_id)), text, re.S)
    assert match is not None, f"no #{element_id} in {html_path}"
    return json.loads(match.group(1))


def records(html_path: Path) -> list[dict[str, Any]]:
    """The explorer's records, as embedded in the page, each shared label read back.

    A heading or row label that is a number is the spec's ``labels`` at that index,
    as explorer.js reads it.
    """
    found: list[dict[str, Any]] = embedded(html_path, "fj-records")
    labels = embedded(html_path, "fj-explorer-spec").get("labels", [])
    return [{**r, "d": _read_labels(r["d"], labels)} if "d" in r else r for r in found]


def _read_labels(sections: list[dict[str, Any]], labels: list[str]) -> list[dict[str, Any]]:
    def word(value: Any) -> Any:
        return labels[value] if isinstance(value, int) else value

    out = []
    for section in sections:
        section = dict(section)
        if "h" in section:
            section["h"] = word(section["h"])
        if "rows" in section:
            section["rows"] = [[word(row[0]), *row[1:]] for row in section["rows"]]
        if "two" in section:
            section["two"] = _read_labels(section["two"], labels)
        out.append(section)
    return out


def expected_counts(found: list[dict[str, Any]], spec: dict[str, Any]) -> dict[str, int]:
    """Each filter's count, computed here from the records: what the page must show."""
    return {s["key"]: sum(bool((r.get("f") or {}).get(s["key"])) for r in found)
            for s in spec.get("flags", [])}  # fmt: skip


def expected_facets(found: list[dict[str, Any]], key: str) -> Counter[str]:
    """A facet's values with the number of records holding each."""
    counts: Counter[str] = Counter()
    for r in found:
        value = (r.get("v") or {}).get(key)
        values = value if isinstance(value, list) else [value]
        counts.update("\x00none" if v is None else str(v) for v in values)
    return counts


def _detail_text(sections: list[dict[str, Any]]) -> list[str]:
    """Every text of detail sections, those laid side by side (``two``) included."""
    parts: list[str] = []
    for section in sections:
        parts += [section[key] for key in ("pre", "fail") if key in section]
        parts += [row[1] for row in section.get("rows", [])]
        parts += [" ".join(cells) for cells in section.get("cells", [])]
        parts += _detail_text(section.get("two", []))
    return parts


def search_text(record: dict[str, Any]) -> str:
    """What the explorer's search reads of a record: title, search text, key, details."""
    parts = [record.get("t") or "", record.get("s") or "", record["k"]]
    parts += _detail_text(record.get("d") or [])
    return "\n".join(parts).lower()


def matching(found: list[dict[str, Any]], query: str) -> int:
    """How many records the explorer's search for ``query`` keeps."""
    return sum(query.strip().lower() in search_text(r) for r in found)


def shown_counts(opened: Opened) -> dict[str, int]:
    """Each filter's count as the page shows it, ``(n)`` beside its checkbox."""
    counts: dict[str, int] = opened.page.eval_on_selector_all(
        ".fj-n[data-for]",
        "nodes => Object.fromEntries(nodes.map(n => [n.dataset.for, "
        "parseInt(n.textContent.replace(/[()]/g, ''), 10)]))",
    )
    return counts


def shown_facets(opened: Opened, key: str) -> dict[str, int]:
    """A facet select's options (but "all") with the count each shows."""
    counts: dict[str, int] = opened.page.eval_on_selector_all(
        f'select[data-facet="{key}"] option[data-count]',
        "nodes => Object.fromEntries(nodes.map(n => [n.value, parseInt(n.dataset.count, 10)]))",
    )
    return counts


def verdict(opened: Opened) -> str:
    """The headline's sentence, as drawn."""
    text: str = opened.page.text_content("#fj-verdict")
    return text.strip()


def sideways_scroll(opened: Opened) -> int:
    """How many pixels wider than the window the page is (0: no sideways scroll)."""
    over: int = opened.page.evaluate(
        "() => document.documentElement.scrollWidth - window.innerWidth"
    )
    return max(over, 0)


def clipped(opened: Opened) -> list[str]:
    """Every label cut by its box or drawn past its plot."""
    cut: list[str] = opened.page.evaluate(_CLIPPED)
    return cut


def broken_words(opened: Opened, shorter_than: int = SHORT_WORD) -> list[str]:
    """Every word shorter than ``shorter_than`` characters drawn across two lines."""
    broken: list[str] = opened.page.evaluate(_BROKEN_WORDS, shorter_than)
    return broken


def scrolled_inside(opened: Opened) -> list[str]:
    """Every box whose content scrolls sideways inside the page (a table wider than its card)."""
    wide: list[str] = opened.page.evaluate(_SCROLLED)
    return wide


def assert_sound(opened: Opened) -> None:
    """No console error, no request but the file, no sideways scroll, no label cut.

    No sideways scroll means neither the page's nor a box's inside it, and a label is
    cut when its box hides part of it or when a short word is broken across lines.
    """
    # Messages given: pytest rewrites the asserts of test modules only, not this helper's.
    assert opened.problems == [], opened.problems
    assert opened.foreign_requests == [], opened.foreign_requests
    over, cut = sideways_scroll(opened), clipped(opened)
    assert over == 0, f"{opened.url}: {over} px of sideways scroll"
    assert cut == [], cut
    wide, broken = scrolled_inside(opened), broken_words(opened)
    assert wide == [], f"{opened.url}: boxes that scroll sideways: {wide}"
    assert broken == [], f"{opened.url}: words broken across lines: {broken}"


def open_at(open_report: OpenReport, path: Path, width: int, fragment: str = "") -> Opened:
    """The page at ``width`` pixels (900 tall)."""
    return open_report(path, width=width, fragment=fragment)


def screenshots(
    open_report: OpenReport, path: Path, name: str, *, docs: bool = False
) -> list[Path]:
    """Open the page at both widths, check it is sound, and save its screenshots.

    ``<name>-390.png`` and ``<name>-1440.png`` (whole page) go to the artifacts; with
    ``FAIRJUDGE_DOCS_SCREENSHOTS=1`` and ``docs``, ``docs/img/<name>.png`` (1,440 px,
    the top) for the README: only a README picture's test gives ``docs=True``, so a page
    of test data never lands in the README's folder.
    """
    saved = []
    for width in WIDTHS:
        opened = open_at(open_report, path, width)
        assert_sound(opened)
        saved.append(opened.shot(f"{name}-{width}.png", full_page=True))
        if docs and width == DESKTOP and os.environ.get("FAIRJUDGE_DOCS_SCREENSHOTS") == "1":
            DOCS_IMG.mkdir(parents=True, exist_ok=True)
            target = DOCS_IMG / f"{name}.png"
            opened.page.screenshot(path=str(target))
            saved.append(target)
    return saved


def time_to_interactive(open_report: OpenReport, path: Path) -> float:
    """Seconds from navigation until the explorer is ready (for the closing note only)."""
    start = time.perf_counter()
    opened = open_report(path, width=DESKTOP)
    elapsed = time.perf_counter() - start
    assert opened.problems == [], opened.problems
    return elapsed


def explorer_keys(opened: Opened) -> str:
    """Press Down twice and Enter in the list; the permalink it opened (``#item=...``)."""
    page = opened.page
    page.focus("#fj-list")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.hash.startsWith('#item=')")
    hash_: str = page.evaluate("() => location.hash")
    return hash_
