"""The jury and score-jury pages at 10,000 items × 5 members, in headless Chromium.

A module of its own, apart from ``test_page_panel.py``: each test judges 50,000
answers or calls first, and ``--dist loadscope`` runs a module on one worker, so the
two slow tests here and the rest there run side by side. Each measures the time to
interactive and the file's size (printed and saved in the artifacts, never asserted)
and checks that the explorer pages the list and counts every filter right at that
size.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.report import pages
from tests.report._data import large_rows, write_rows
from tests.report.conftest import ARTIFACTS, OpenReport
from tests.report.test_page_panel import run_json


def _measure(open_report: OpenReport, page: Path, name: str, n: int) -> dict[str, Any]:
    seconds = pages.time_to_interactive(open_report, page)
    opened = pages.open_at(open_report, page, pages.DESKTOP)
    assert opened.problems == []
    assert opened.count() == n
    assert opened.page.locator("#fj-list li").count() == 50  # one page of the list, not n
    found = pages.records(page)
    spec = pages.embedded(page, "fj-explorer-spec")
    assert pages.shown_counts(opened) == pages.expected_counts(found, spec)
    opened.page.check('.fj-filter[data-filter="split"]')
    assert opened.count() == pages.expected_counts(found, spec)["split"]
    figures = {"page": name, "items": n, "bytes": page.stat().st_size,
               "time_to_interactive_s": round(seconds, 2)}  # fmt: skip
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"{name}-10000.json").write_text(json.dumps(figures) + "\n", "utf-8")
    print(figures)
    return figures


MEMBERS = [
    "python:fairjudge.examples.judges:longer",
    "python:fairjudge.examples.judges:knows_facts",
    "python:fairjudge.examples.judges:first_position",
    "python:tests.report.panel_judges:contrary",
    "python:tests.report.judges:explained",
]


@pytest.mark.slow
def test_ten_thousand_items_by_five_members(tmp_path: Path, open_report: OpenReport) -> None:
    items = write_rows(tmp_path / "large.jsonl", large_rows(10_000))
    page = tmp_path / "jury-large.html"
    members = [a for m in MEMBERS for a in ("--judge", m)]
    run_json("jury", str(items), *members, "--bootstrap", "100", "--html", str(page))
    figures = _measure(open_report, page, "jury", 10_000)
    assert figures["bytes"] > 0


SCORERS = [
    "python:fairjudge.examples.judges:scorer",
    "python:tests.report.panel_judges:harsh",
    "python:tests.report.panel_judges:lenient",
    "python:tests.report.panel_judges:moody",
    "python:tests.report.panel_judges:wordy",
]


@pytest.mark.slow
def test_ten_thousand_answers_by_five_members(tmp_path: Path, open_report: OpenReport) -> None:
    rows = [{"id": r["id"], "question": r["question"], "answer": r["answer_1"],
             "system": f"system {i % 3}", "category": r["category"],
             "human_accuracy": 1 + i % 5} for i, r in enumerate(large_rows(10_000))]  # fmt: skip
    items = write_rows(tmp_path / "large.jsonl", rows)
    page = tmp_path / "score-jury-large.html"
    members = [a for m in SCORERS for a in ("--judge", m)]
    summary = run_json("score-jury", str(items), *members, "--bootstrap", "20", "--html",
                       str(page), codes=(0, 4))  # fmt: skip
    assert not math.isnan(summary["n_items"])
    _measure(open_report, page, "score-jury", 10_000)
