"""The jury and score-jury pages in headless Chromium, as a user opens them from disk.

Each page is written by its command (``--html``) from hostile input: markup, an
``onerror`` image and bidi controls in the answers, the judges' replies and reasons,
the members' names and the categories. Every test checks what issue 25 asks of a
page: no console error and no request but the file; the headline is the JSON's;
each filter's count is the one computed from the records; the hostile text does
nothing and shows as text; no sideways scroll at 390 px; screenshots at both widths.
The 10,000-item pages are in ``test_page_panel_large.py`` (a module of their own,
so the two test workers share the slow ones).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.report import pages
from tests.report._data import HOSTILE, bidi_rows, hostile_rows, write_rows
from tests.report.conftest import Opened, OpenReport

runner = CliRunner()
SCRIPT_NAME = "<script>window.pwned='member'</script> m\u202eixed"
IMG_NAME = "<img src=x onerror=\"window.pwned='member2'\">"
SYSTEM = "<b>sys</b>\u202e1"
BAR = 0.667  # Krippendorff's lowest bar, as score-jury's conclusions use it


def run_json(*args: str, codes: tuple[int, ...] = (0,)) -> dict[str, Any]:
    # In a worker thread: while Playwright is open an event loop runs in this one.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(runner.invoke, app, [*args, "--json"]).result()
    assert result.exit_code in codes, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _toml_name(name: str) -> str:
    return json.dumps(name)  # a JSON string is a TOML basic string (\u escapes included)


def _panel_file(path: Path, judges: list[str]) -> Path:
    names = [SCRIPT_NAME, IMG_NAME, None]
    blocks = []
    for judge, name in zip(judges, names, strict=True):
        block = f'[[member]]\njudge = "{judge}"\n'
        blocks.append(block + (f"name = {_toml_name(name)}\n" if name else ""))
    path.write_text("\n".join(blocks), "utf-8")
    return path


@pytest.fixture(scope="module")
def jury_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("jury")
    items = write_rows(folder / "items.jsonl", hostile_rows() + bidi_rows())
    panel = _panel_file(folder / "panel.toml", [
        "python:tests.report.judges:mixed", "python:tests.report.panel_judges:contrary",
        "python:fairjudge.examples.judges:longer"])  # fmt: skip
    page = folder / "jury.html"
    summary = run_json("jury", str(items), "--jury", str(panel), "--allow-python-judges",
                       "--max-unresolved", "1", "--html", str(page))  # fmt: skip
    return page, summary


def _score_rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for i, text in enumerate(HOSTILE):
        rows.append({"id": f"h{i}", "question": f"Is this safe? {text}", "answer": text,
                     "system": SYSTEM, "category": "<i>hostile</i>",
                     "human_accuracy": 1 + i % 5})  # fmt: skip
    answers = ["Canberra.", "Eight legs [parse]", "Paris is the capital [error]",
               "A very long answer that goes on and on about nothing in particular at all.",
               "Water boils at 100 degrees Celsius at sea level.", "No idea."]  # fmt: skip
    for i, answer in enumerate(answers):
        rows.append(
            {
                "id": f"s\u202e{i}",
                "question": f"Question {i}",
                "answer": answer,
                "system": "plain",
                "category": "zw\u200dj",
                "human_accuracy": 5 - i % 5,
            }
        )
    return rows  # fmt: skip


@pytest.fixture(scope="module")
def score_jury_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("score-jury")
    items = write_rows(folder / "answers.jsonl", _score_rows())
    panel = _panel_file(folder / "panel.toml", [
        "python:tests.report.panel_judges:moody", "python:tests.report.panel_judges:harsh",
        "python:fairjudge.examples.judges:scorer"])  # fmt: skip
    page = folder / "score-jury.html"
    summary = run_json("score-jury", str(items), "--jury", str(panel), "--allow-python-judges",
                       "--max-unresolved", "1", "--html", str(page))  # fmt: skip
    return page, summary


def _jury_headline(opened: Opened, summary: dict[str, Any]) -> None:
    w = summary["win_rate"]
    ci = w["ci"]
    assert opened.page.text_content("#fj-headline-estimate") == f"{w['estimate']:.3f}"
    assert opened.page.text_content("#fj-headline-ci") == f"[{ci['low']:.3f}, {ci['high']:.3f}]"
    said = ("Model 1 is better by the panel" if ci["low"] > 0.5 else
            "Model 2 is better by the panel" if ci["high"] < 0.5 else
            "No clear winner by the panel")  # fmt: skip
    assert pages.verdict(opened).startswith(said)


def _score_jury_headline(opened: Opened, summary: dict[str, Any]) -> None:
    sides: dict[str, list[str]] = {}
    for d in summary["diagnostics"]:
        a = d["krippendorff_alpha_ordinal"]
        ci = a.get("ci") or {}
        if a.get("alpha") is None or not ci.get("estimable"):
            side = "no conclusion on"
        else:
            side = ("agree on" if ci["low"] >= BAR else "do not agree on" if ci["high"] < BAR
                    else "unclear on")  # fmt: skip
        sides.setdefault(side, []).append(d["dimension"])
    for side, dims in sides.items():
        listed = dims[0] if len(dims) == 1 else f"{', '.join(dims[:-1])} and {dims[-1]}"
        assert f"{side} {listed}" in pages.verdict(opened)
    n, unscored = summary["n_items"], summary["n_unscored"]
    assert opened.page.text_content("#fj-headline-estimate") == f"{n - unscored} of {n}"


RUNS = {
    "jury": ("jury_run", _jury_headline),
    "score-jury": ("score_jury_run", _score_jury_headline),
}


@pytest.mark.parametrize("kind", list(RUNS))
def test_the_page_is_sound_and_says_what_the_json_says(
    kind: str, request: pytest.FixtureRequest, open_report: OpenReport
) -> None:
    fixture, headline = RUNS[kind]
    page, summary = request.getfixturevalue(fixture)
    found = pages.records(page)
    spec = pages.embedded(page, "fj-explorer-spec")
    assert pages.embedded(page, "fj-summary") == json.loads(json.dumps(summary))
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, page, width)
        pages.assert_sound(opened)  # no error, no request, no sideways scroll, no label cut
        assert opened.page.evaluate("() => typeof window.pwned") == "undefined"
        headline(opened, summary)
        counts = pages.shown_counts(opened)
        assert counts == pages.expected_counts(found, spec)
        assert counts["split"] > 0
        assert counts["failure"] > 0
        for facet in spec["facets"]:
            key = facet["key"]
            assert pages.shown_facets(opened, key) == dict(pages.expected_facets(found, key))
        assert opened.count() == summary["n_items"] == len(found)
    pages.screenshots(open_report, page, f"{kind}-hostile", docs=False)


@pytest.mark.parametrize("kind", list(RUNS))
def test_the_members_split_filter_and_the_keys(
    kind: str, request: pytest.FixtureRequest, open_report: OpenReport
) -> None:
    page, _ = request.getfixturevalue(RUNS[kind][0])
    found = pages.records(page)
    opened = pages.open_at(open_report, page, pages.DESKTOP)
    opened.page.check('.fj-filter[data-filter="split"]')
    assert opened.count() == pages.expected_counts(found, {"flags": [{"key": "split"}]})["split"]
    opened.page.uncheck('.fj-filter[data-filter="split"]')
    key = opened.page.evaluate("k => '#item=' + encodeURIComponent(k)", found[2]["k"])
    assert pages.explorer_keys(opened) == key


def _detail(open_report: OpenReport, page: Path, key: str, width: int) -> Opened:
    opened = pages.open_at(open_report, page, width)
    link = opened.page.evaluate("k => '#item=' + encodeURIComponent(k)", key)
    return pages.open_at(open_report, page, width, fragment=link)


def _inert(opened: Opened) -> None:
    page = opened.page
    assert page.evaluate("() => typeof window.pwned") == "undefined"
    assert page.locator("#fj-detail img, #fj-detail script, #fj-detail b, main img").count() == 0
    assert pages.sideways_scroll(opened) == 0


def test_hostile_jury_text_does_nothing_and_shows_as_text(
    jury_run: tuple[Path, dict[str, Any]], open_report: OpenReport
) -> None:
    page, _ = jury_run
    for width in pages.WIDTHS:
        opened = _detail(open_report, page, "x0", width)
        _inert(opened)
        detail = opened.page.text_content("#fj-detail") or ""
        assert HOSTILE[0] in detail  # the answer, as text
        assert "<script>window.pwned='member'</script> m⟨U+202E⟩ixed" in detail  # a member
        assert IMG_NAME in detail
        assert "a⟨U+202E⟩gnp.exe" in detail  # the contrary member's reply
        main = opened.page.text_content("main") or ""
        assert "<script>window.pwned='member'</script> m⟨U+202E⟩ixed" in main  # the roster
        categories = pages.shown_facets(opened, "category")
        assert "<i>hostile</i>" in categories
        assert "zw⟨U+200D⟩j⟨U+E0041⟩" in categories  # a joiner and a tag character, shown
        failures = opened.page.text_content("#fj-failures") or ""
        assert "RuntimeError: <img src=x onerror=" in failures  # the card, as text
        failed = _detail(open_report, page, "m1", width)  # [error]: markup in the message
        _inert(failed)
        assert "onerror" in (failed.page.text_content("#fj-detail") or "")
    bidi = _detail(open_report, page, "r\u202e0", pages.PHONE)
    _inert(bidi)
    assert "r⟨U+202E⟩0" in (bidi.page.text_content("#fj-detail") or "")
    assert "\u202e" not in page.read_text("utf-8")


def test_hostile_scoring_text_does_nothing_and_shows_as_text(
    score_jury_run: tuple[Path, dict[str, Any]], open_report: OpenReport
) -> None:
    page, _ = score_jury_run
    for width in pages.WIDTHS:
        opened = _detail(open_report, page, "h0", width)
        _inert(opened)
        detail = opened.page.text_content("#fj-detail") or ""
        assert HOSTILE[0] in detail
        assert "<script>window.pwned='reason'</script>" in detail  # harsh's reason
        assert SCRIPT_NAME.replace("\u202e", "⟨U+202E⟩") in detail
        assert "<b>sys</b>⟨U+202E⟩1" in detail
        assert "<b>sys</b>⟨U+202E⟩1" in pages.shown_facets(opened, "system")
        failed = _detail(open_report, page, "s\u202e2", width)  # moody raised on [error]
        _inert(failed)
        text = failed.page.text_content("#fj-detail") or ""
        assert "call error" in text
        assert "onerror" in text
    assert "\u202e" not in page.read_text("utf-8")


EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
README_RUNS = {
    "jury": ["jury", str(EXAMPLES / "demo_pairs.jsonl"),
             "--judge", "python:fairjudge.examples.judges:knows_facts",
             "--judge", "python:fairjudge.examples.judges:longer",
             "--judge", "python:fairjudge.examples.judges:first_position"],
    "score-jury": ["score-jury", str(EXAMPLES / "score_answers.jsonl"),
                   "--judge", "python:fairjudge.examples.judges:scorer",
                   "--judge", "python:fairjudge.examples.judges:length_scorer"],
}  # fmt: skip


@pytest.mark.parametrize("kind", list(README_RUNS))
def test_the_example_pages_for_the_readme(
    kind: str, tmp_path: Path, open_report: OpenReport
) -> None:
    """The README's pictures: the example data, sound at both widths (docs/img with the env)."""
    page = tmp_path / f"{kind}.html"
    summary = run_json(*README_RUNS[kind], "--html", str(page), codes=(0, 4))
    assert pages.embedded(page, "fj-summary") == json.loads(json.dumps(summary))
    pages.screenshots(open_report, page, kind, docs=True)
