"""The HTML reports on a phone: 390 px wide in headless Chromium.

The pages scrolled sideways at 420 px (the item list's one-line snippets set the
least width of its grid column), and the forest plots, 760 units wide, drew their
text at 6 px and cut labels at 28 characters ("Same calls, conservative ru…").
Each report kind is written by the CLI and opened 390 px wide: the page must not be
wider than the window, and every plot label and value must be whole, inside the
plot, and drawn at a readable size. At any width the plot fills its card: at 1,280 px
it once stopped at 32rem, 45% of the card.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.report._data import write_rows
from tests.report.conftest import OpenReport

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PHONE = 390
LONG_NAME = "a-very-long-model-name-from-some-provider-2025-06-01-instruct-preview"
WIDE_NAME = "大型语言模型助手第二版本实验性预览"  # East Asian wide: each character an em

# Per plot: its drawn size, its card's width, a label's drawn font size, and per row the
# label's lines, the value's lines, the row's tooltip, and every text's box in pixels
# from the plot's top left corner (a plot with a viewBox has its font scaled with it).
PLOTS = """() => [...document.querySelectorAll('.fj-plot svg')].map(svg => {
  const frame = svg.getBoundingClientRect();
  const vb = svg.viewBox.baseVal;
  const scale = vb && vb.width ? frame.width / vb.width : 1;
  const lines = t => t ? [...t.querySelectorAll('tspan')].map(s => s.textContent) : [];
  const box = t => { const b = t.getBoundingClientRect();
    return [b.left - frame.left, b.top - frame.top, b.right - frame.left, b.bottom - frame.top]; };
  const label = svg.querySelector('.fj-label');
  return {
    size: [frame.width, frame.height],
    drawn: frame.width,
    card: svg.closest('.fj-section, .fj-card').getBoundingClientRect().width,
    label_px: parseFloat(getComputedStyle(label).fontSize) * scale,
    rows: [...svg.querySelectorAll('g.fj-prow')].map(g => ({
      label: lines(g.querySelector('.fj-label')),
      value: lines(g.querySelector('.fj-value')),
      title: g.querySelector('title').textContent,
    })),
    boxes: [...svg.querySelectorAll('text')].map(t => [t.textContent, ...box(t)]),
  };
})"""


def cli(*args: str) -> None:
    # In a worker thread: Playwright keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(CliRunner().invoke, app, list(args)).result()
    assert result.exit_code == 0, result.output


def assert_fits_a_phone(open_report: OpenReport, page: Path) -> list[dict[str, Any]]:
    """The page is no wider than the phone; every plot text whole, inside, readable."""
    opened = open_report(page, width=PHONE)
    assert opened.problems == []
    p = opened.page
    width = p.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1] == PHONE, width
    plots: list[dict[str, Any]] = p.evaluate(PLOTS)
    assert plots
    for plot in plots:
        width, height = plot["size"]
        assert plot["drawn"] <= PHONE
        assert plot["label_px"] >= 12  # a label reads at 12 px or more
        for row in plot["rows"]:
            label, value = " ".join(row["label"]), " ".join(row["value"])
            # nothing dropped from either: every character of the tooltip, in order
            # (lines break at spaces, or inside a word longer than a line)
            assert _squeeze(row["title"]) == _squeeze(f"{label}: {value}")
            assert "…" not in label + value
        for text, x0, y0, x1, y1 in plot["boxes"]:
            assert min(x0, y0) >= 0, text
            assert x1 <= width, text
            assert y1 <= height, text
    opened.shot(f"phone_{page.stem}.png", full_page=True)
    return plots


def _squeeze(text: str) -> str:
    return "".join(text.split())


def labels(plots: list[dict[str, Any]]) -> list[str]:
    return [" ".join(row["label"]) for plot in plots for row in plot["rows"]]


def test_compare_on_a_phone(tmp_path: Path, open_report: OpenReport) -> None:
    page = tmp_path / "compare.html"
    cli("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", "python:examples.judges:longer",
        "--rule", "soft", "--html", str(page))  # fmt: skip
    plots = assert_fits_a_phone(open_report, page)
    assert "Same calls, conservative rule" in labels(plots)
    # the length control cannot be estimated here: its whole reason, over several lines
    reason = next(
        r["value"] for p in plots for r in p["rows"] if r["label"] == ["Length-controlled"]
    )
    assert len(reason) > 1
    assert " ".join(reason).endswith("so the win rate at equal length is not identified")


def test_rank_with_long_and_wide_model_names_on_a_phone(
    tmp_path: Path, open_report: OpenReport
) -> None:
    names = {"alpha": LONG_NAME, "beta": WIDE_NAME}
    battles = [json.loads(line) for line in (EXAMPLES / "battles.jsonl").read_text().splitlines()]
    for b in battles:
        b["model_a"], b["model_b"] = (names.get(b[k], b[k]) for k in ("model_a", "model_b"))
    page = tmp_path / "rank.html"
    cli("rank", str(write_rows(tmp_path / "battles.jsonl", battles)), "--html", str(page))
    plots = assert_fits_a_phone(open_report, page)
    shown = labels(plots)
    # a word longer than a line is broken inside itself, never cut
    assert any(label.replace(" ", "") == LONG_NAME for label in shown), shown
    assert any(label.replace(" ", "") == WIDE_NAME for label in shown), shown


def test_calibrate_on_a_phone(tmp_path: Path, open_report: OpenReport) -> None:
    page = tmp_path / "calibrate.html"
    cli("calibrate", str(EXAMPLES / "calibration.jsonl"), "--judge",
        "python:examples.judges:knows_facts", "--html", str(page))  # fmt: skip
    assert_fits_a_phone(open_report, page)


@pytest.mark.parametrize("width", [PHONE, 768, 1280])
def test_the_plot_fills_its_card_at_any_width(
    tmp_path: Path, open_report: OpenReport, width: int
) -> None:
    page = tmp_path / "compare.html"
    cli("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", "python:examples.judges:longer",
        "--html", str(page))  # fmt: skip
    opened = open_report(page, width=width)
    p = opened.page
    assert p.evaluate("document.documentElement.scrollWidth") <= width
    plots = p.evaluate(PLOTS)
    assert len(plots) == 1
    plot = plots[0]
    # The card's width includes its padding (1.1rem each side) and border.
    assert plot["drawn"] / plot["card"] >= 0.9, (plot["drawn"], plot["card"])
    # The text does not grow with the plot: 15 px at most, 12 px at least.
    assert 12 <= plot["label_px"] <= 15
    for text, x0, y0, x1, y1 in plot["boxes"]:
        assert min(x0, y0) >= 0, text
        assert x1 <= plot["size"][0], text
        assert y1 <= plot["size"][1], text
    opened.shot(f"compare_plot_{width}.png", full_page=True)
