"""The ``score`` page: a view of the score report, checked against the result and in Chromium.

The library tests check that every figure on the page is the result's own (the
histograms, the means, the paired differences, the shifts); the browser tests run
``score --html`` (and ``--baseline``, and ``fairjudge report`` on the ``--out``
file) on answers whose text, systems, categories and the judge's reasons carry
``<script>``, ``onerror`` and bidi payloads, and check what the issue asks of every
page. The time to interactive at 10,000 answers is measured and written to
``tests/report/artifacts/score-timing.json`` with the file's size; never asserted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fairjudge._items import ScoreItem
from fairjudge._types import ExpectedScore, Reply, ScoreReading
from fairjudge.evaluation import ScoredItem, score_answers, summarise_scores
from fairjudge.prompts import AnswerScores, ScoreCall, get_rubric
from fairjudge.report import score_page, score_report
from fairjudge.report._page import PlotBlock
from fairjudge.report._page_plots import ForestPlot, Histogram
from fairjudge.report._page_score import score_records
from tests.report import pages
from tests.report.conftest import ARTIFACTS, OpenReport, run_json

SCRIPT = "<script>window.__pwned = 1</script>"
ONERROR = '<img src=x onerror="window.__pwned = 1">'
BIDI = "\u202egnp.exe"
HOSTILE = (SCRIPT, ONERROR, BIDI)
SYSTEMS = (f"alpha {SCRIPT}", f"beta {ONERROR}", f"gamma{BIDI}")
CATEGORIES = (f"cat {ONERROR}", f"cat{BIDI}")
JUDGE = "python:tests.report.test_page_score:hostile_scorer"
SHIFTED = "python:tests.report.test_page_score:shifted_scorer"
EXAMPLE = "python:fairjudge.examples.judges:scorer"
LENGTH = "python:fairjudge.examples.judges:length_scorer"
EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"


def hostile_scorer(question: str, answer: str) -> str:
    """Scores read from the answer's first digit; off the scale when it starts with "x".

    Relevance is always 4, so its collapse alarm trips; the reason carries payloads.
    """
    if answer.startswith("x"):
        return json.dumps({"accuracy": 9, "relevance": 4, "usefulness": 4, "reason": SCRIPT})
    level = int(answer[0])
    return json.dumps({"accuracy": level, "relevance": 4, "usefulness": 6 - level,
                       "reason": f"because {ONERROR} {BIDI}"})  # fmt: skip


def shifted_scorer(question: str, answer: str) -> str:
    """As :func:`hostile_scorer`, one level lower on accuracy (floored at 1)."""
    reply = json.loads(hostile_scorer(question, answer))
    reply["accuracy"] = max(1, min(reply["accuracy"], 5) - 1)
    return json.dumps(reply)


def _rows(n: int) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        system = i % 3
        level = min(5, 1 + system + (i // 3) % 3)
        start = "x" if i % 17 == 5 else str(level)
        row = {"id": f"a{i}", "question": f"question {i // 3} {HOSTILE[i % 3]}",
               "answer": f"{start} answer {i} {HOSTILE[(i + 1) % 3]}", "system": SYSTEMS[system],
               "category": CATEGORIES[i % 2]}  # fmt: skip
        if i % 4 == 0:
            row["human_accuracy"] = (i // 4) % 5 + 1
        rows.append(row)
    return rows


def _write(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows(n)), "utf-8")
    return path


def _out_records(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


# ---- the view model: every figure is the result's own ---------------------------------


def _expected_items() -> list[ScoredItem]:
    """Label-mode answers: one call per dimension, with probability-weighted scores."""
    rubric = get_rubric("production")
    items = []
    for i in range(30):
        calls = []
        for name in rubric.names:
            score = 4 if name == "relevance" else 1 + i % 5
            weighted = {name: ExpectedScore(score - 0.3 + (i % 3) * 0.2, {score: 1.0}, 1.0)}
            calls.append(ScoreCall(name, Reply(ScoreReading({name: score}, None, weighted))))
        item = ScoreItem(f"q{i // 2}", f"answer {i}", id=f"i{i}", system=("s1", "s2")[i % 2])
        items.append(ScoredItem(item, AnswerScores.from_calls(calls)))
    return items


def test_the_page_draws_the_results_figures() -> None:
    result = summarise_scores(_expected_items(), get_rubric("production"), n_resamples=200)
    report = score_report(result, title="t")
    page = score_page(report)
    assert page.summary == report.to_dict()
    dims = page.sections[0].blocks
    for d, block in zip(result.dimensions, dims, strict=True):
        assert isinstance(block, PlotBlock)
        assert isinstance(block.plot, Histogram)
        assert [(b.level, int(b.text)) for b in block.plot.bars] == list(d.histogram.items())
        assert block.plot.points  # the probability-weighted scores' density
        assert (block.plot.alarm_x is not None) is bool(d.collapse.collapsed)
        assert {r[0]: r[1] for r in block.table.rows}["mean"] == (
            f"{d.mean.estimate:.2f}  {d.mean.ci:.2f}"  # its note too, when all alike
        )
    assert result.collapsed == ["relevance"]
    assert any("Collapse alarm on relevance" in w for w in page.headline.warnings)
    for d in result.dimensions:
        assert d.mean.estimate is not None
        assert f"{d.name} {d.mean.estimate:.2f}" in page.headline.verdict
    systems = page.sections[1]
    assert systems.id == "fj-systems"
    means = systems.blocks[0]
    assert isinstance(means, PlotBlock)
    accuracy = [s.means["accuracy"] for s in result.systems]
    assert [row[1] for row in means.table.rows] == [
        f"{m.estimate:.2f}  [{m.ci.low:.2f}, {m.ci.high:.2f}]" for m in accuracy
    ]
    diffs = systems.blocks[-1]
    assert isinstance(diffs, PlotBlock)
    assert [r[2] for r in diffs.table.rows] == [f"n = {d.n_questions}" for d in result.differences]


def test_a_figure_that_cannot_be_estimated_shows_its_reason_and_no_point() -> None:
    items = _expected_items()[:2]  # one question: each system's mean rests on one answer
    result = summarise_scores(items, get_rubric("production"), n_resamples=200)
    page = score_page(score_report(result, title="t"))
    means = page.sections[1].blocks[0]
    assert isinstance(means, PlotBlock)
    assert isinstance(means.plot, ForestPlot)
    for row, s in zip(means.plot.rows, result.systems, strict=True):
        m = s.means["accuracy"]
        if not m.ci.estimable:
            assert row.x is None
            assert row.text == f"not estimated: {m.ci.reason}"
    assert any(not s.means["accuracy"].ci.estimable for s in result.systems)


def test_records_hold_every_answer_with_its_scores_reason_and_failures() -> None:
    rows = _rows(40)
    items = [ScoreItem(r["question"], r["answer"], id=r["id"], system=r["system"],
                       category=r["category"],
                       human={"accuracy": r["human_accuracy"]} if "human_accuracy" in r else {})
             for r in rows]  # fmt: skip
    result = score_answers(hostile_scorer, items, n_resamples=200)
    records = score_records(result)
    assert [r["k"] for r in records] == [r["id"] for r in rows]
    for record, item in zip(records, result.items, strict=True):
        assert record["f"]["parse"] is (item.scored.parse_failures > 0)
        assert record["v"]["d:accuracy"] == str(item.scored.scores.get("accuracy", "unscored"))
        human = item.item.human.get("accuracy")
        score = item.scored.scores.get("accuracy")
        disagrees = human is not None and score is not None and abs(score - human) >= 1
        assert record["f"]["disagrees"] is disagrees
    assert sum(r["f"]["parse"] for r in records) == result.n_parse_failures == 3


# ---- in Chromium ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("score")
    answers = _write(tmp / "answers.jsonl", 90)
    out, html = tmp / "out.jsonl", tmp / "score.html"
    summary = run_json("score", str(answers), "--judge", JUDGE, "--out", str(out), "--html",
                   str(html), "--bootstrap", "500")  # fmt: skip
    base_html = tmp / "baseline.html"
    trend = run_json("score", str(answers), "--judge", SHIFTED, "--baseline", str(out), "--html",
                 str(base_html), "--bootstrap", "500", "--allow-different")  # fmt: skip
    rebuilt = tmp / "rebuilt.html"
    again = run_json("report", str(out), "-o", str(rebuilt), "--bootstrap", "500")
    return {"summary": summary, "out": out, "html": html, "trend": trend,
            "baseline_html": base_html, "rebuilt": rebuilt, "again": again}  # fmt: skip


def test_score_page_in_chromium(open_report: OpenReport, runs: dict[str, Any]) -> None:
    html, summary = runs["html"], runs["summary"]
    means = ", ".join(f"{d['name']} {d['mean']['estimate']:.2f}" for d in summary["dimensions"])
    spec = pages.embedded(html, "fj-explorer-spec")
    found = pages.records(html)
    out = _out_records(runs["out"])
    parse = sum(any(c.get("failure") == "parse_failure" for c in r["calls"]) for r in out)
    human = sum(
        any(abs(r["scores"][d] - h) >= 1 for d, h in r["human"].items() if d in r["scores"])
        for r in out
    )
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, html, width)
        pages.assert_sound(opened)
        verdict = pages.verdict(opened)
        assert verdict.startswith(f"Mean scores on rubric production@1 (scale 1-5): {means}.")
        assert pages.embedded(html, "fj-summary") == summary
        assert pages.shown_counts(opened) == pages.expected_counts(found, spec)
        assert pages.shown_counts(opened)["parse"] == parse == summary["n_parse_failures"] == 5
        assert pages.shown_counts(opened)["disagrees"] == human
        for facet in ("d:accuracy", "system", "category"):
            assert pages.shown_facets(opened, facet) == dict(pages.expected_facets(found, facet))
        assert opened.count() == len(out) == 90
        assert opened.page.evaluate("() => window.__pwned") is None
        # The collapse alarm is drawn on relevance's histogram, and only there.
        alarms = opened.page.eval_on_selector_all(
            "#fj-dimensions .fj-plotblock", "bs => bs.map(b => !!b.querySelector('.fj-alarm-band'))"
        )
        assert alarms == [d["collapse"]["collapsed"] for d in summary["dimensions"]] == [
            False, True, False]  # fmt: skip
    pages.screenshots(open_report, html, "score-hostile", docs=False)


def test_hostile_text_shows_as_text(open_report: OpenReport, runs: dict[str, Any]) -> None:
    opened = pages.open_at(open_report, runs["html"], pages.PHONE, fragment="#item=a5")
    page = opened.page
    detail = page.text_content("#fj-detail") or ""
    assert "parse failure:" in detail  # a5 starts with "x": its scores are off the scale
    assert SCRIPT in detail  # the reason the judge gave, as text
    assert page.locator("#fj-detail script, #fj-detail img").count() == 0
    again = pages.open_at(open_report, runs["html"], pages.DESKTOP, fragment="#item=a1")
    text = again.page.text_content("#fj-detail") or ""
    assert f"because {ONERROR} ⟨U+202E⟩gnp.exe" in text
    assert "\u202e" not in text
    assert again.page.evaluate("() => window.__pwned") is None
    again.page.select_option('select[data-facet="system"]', SYSTEMS[1])
    assert again.count() == 30
    assert pages.explorer_keys(again) == "#item=a7"
    assert pages.sideways_scroll(opened) == 0


def test_report_draws_the_out_file_as_score_did(
    open_report: OpenReport, runs: dict[str, Any]
) -> None:
    again, summary = runs["again"], runs["summary"]
    assert again == summary
    opened = pages.open_at(open_report, runs["rebuilt"], pages.DESKTOP)
    pages.assert_sound(opened)
    texts = "n => n.map(x => x.textContent)"
    labels = opened.page.eval_on_selector_all("#fj-run dt", texts)
    facts = dict(zip(labels, opened.page.eval_on_selector_all("#fj-run dd", texts), strict=True))
    assert facts["judge"] == JUDGE
    assert facts["rubric"] == "production@1"
    assert facts["calls"] == "90 made, 0 cached"
    assert facts["command"].startswith("fairjudge score")


def test_baseline_page_draws_the_shift_and_both_distributions(
    open_report: OpenReport, runs: dict[str, Any]
) -> None:
    html, trend = runs["baseline_html"], runs["trend"]["trend"]
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, html, width)
        pages.assert_sound(opened)
        first_and_last = "r => [r.cells[0], r.cells[3]].map(c => c.textContent)"
        rows = opened.page.eval_on_selector(  # the first table: the shifts
            "#fj-trend table.fj-ptable", f"t => Array.from(t.tBodies[0].rows, {first_and_last})"
        )
        assert rows == [[d["dimension"], d["reading"]] for d in trend["dimensions"]]
        # Relevance is 4 in both runs: its shift is alike on every question, marked as the
        # terminal marks it, and read as no verdict (QA41b #2).
        shifts = opened.page.eval_on_selector(
            "#fj-trend table.fj-ptable",
            "t => Array.from(t.tBodies[0].rows, r => r.cells[1].textContent)",
        )
        by_name = dict(zip((d["dimension"] for d in trend["dimensions"]), shifts, strict=True))
        assert by_name["relevance"] == "+0.00  [0.00, 0.00] (all alike, the bootstrap cannot vary)"
        assert "(all alike" not in by_name["accuracy"]
        assert opened.page.locator("#fj-trend-dists svg .fj-bar2 > title").count() == 3 * 5
        assert "accuracy fell by" in " ".join(
            opened.page.eval_on_selector_all(".fj-warning", "n => n.map(x => x.textContent)")
        )
    pages.screenshots(open_report, html, "score-baseline-hostile", docs=False)


def test_time_to_interactive_at_10000_answers(open_report: OpenReport, tmp_path: Path) -> None:
    answers = _write(tmp_path / "big.jsonl", 10_000)
    html = tmp_path / "big.html"
    run_json("score", str(answers), "--judge", JUDGE, "--html", str(html), "--bootstrap", "200")
    seconds = pages.time_to_interactive(open_report, html)
    opened = pages.open_at(open_report, html, pages.PHONE)
    assert opened.count() == 10_000
    assert pages.sideways_scroll(opened) == 0
    ARTIFACTS.mkdir(exist_ok=True)
    timing = {"answers": 10_000, "bytes": html.stat().st_size, "interactive_s": round(seconds, 2)}
    (ARTIFACTS / "score-timing.json").write_text(json.dumps(timing), "utf-8")


def test_readme_pictures(
    open_report: OpenReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's pictures (score, score-baseline): its commands on the example data.

    The baseline run swaps in the example judge that scores length, so every dimension
    moves; run in the folder of ``scores.jsonl``, the page names it as the README does.
    """
    monkeypatch.chdir(tmp_path)
    answers, html, moved = EXAMPLES / "score_answers.jsonl", "score.html", "baseline.html"
    run_json("score", str(answers), "--judge", EXAMPLE, "--out", "scores.jsonl", "--html", html)
    run_json("score", str(answers), "--judge", LENGTH, "--baseline", "scores.jsonl",
         "--allow-different", "--html", moved)  # fmt: skip
    pages.screenshots(open_report, tmp_path / html, "score", docs=True)
    pages.screenshots(open_report, tmp_path / moved, "score-baseline", docs=True)
