"""The page of a pointwise ``calibrate``: a scoring judge against human scores.

Drawn three ways, one page: ``calibrate --rubric ... --html``, ``Result.to_html`` of
``fairjudge.calibrate(..., rubric=...)`` (the same but for the command row, which only
a command knows) and ``fairjudge report`` of the ``--out`` file (byte for byte: its
command row is the header's, the command that wrote it). Per dimension the
Spearman/Kendall figures with the gate, a confusion of judge score against human
score, and the answers' explorer. The Chromium test opens it at a phone's and a
desktop's width with the strict layout check; screenshots go to
``tests/report/artifacts/``.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import fairjudge
from fairjudge.cli import app
from fairjudge.evaluation import EvalSettings
from fairjudge.report import out_file_page
from tests.report import pages
from tests.report.conftest import OpenReport
from tests.scorers import digits

DIGITS = "python:tests.scorers:digits"
runner = CliRunner()


def _rows(humans: tuple[str, ...]) -> list[dict[str, Any]]:
    """Answers whose leading digit is the judge's accuracy (6 - it, usefulness; 3, relevance).

    ``human_accuracy`` follows the digit but for one question (Spearman high: passes);
    ``human_usefulness`` is the digit (the judge mirrors it: fails); ``human_relevance``
    varies while the judge always says 3 (no correlation: not gated).
    """
    rows = []
    for q in range(8):
        for i, system in enumerate(("s0", "s1", "s2")):
            level = min(5, 1 + i + q % 3)
            scores = {"accuracy": min(5, level + (q == 2)), "usefulness": level,
                      "relevance": 3 + q % 2}  # fmt: skip
            rows.append({"id": f"q{q}-{system}", "system": system, "question": f"Question {q}?",
                         "answer": f"{level} from {system}",
                         **{f"human_{d}": scores[d] for d in humans}})  # fmt: skip
    return rows


def _labelled(folder: Path, humans: tuple[str, ...]) -> Path:
    path = folder / f"labelled-{'-'.join(humans)}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows(humans)), "utf-8")
    return path


def _invoke(*args: str) -> Any:
    # In a worker thread: while Playwright is open an event loop runs in this one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(runner.invoke, app, list(args)).result()


def _three(folder: Path, humans: tuple[str, ...]) -> dict[str, Any]:
    """The ``--html`` page, ``report``'s page of the ``--out`` file and the notebook's."""
    labelled = _labelled(folder, humans)
    out, html, drawn = folder / "run.jsonl", folder / "run.html", folder / "drawn.html"
    done = _invoke("calibrate", str(labelled), "--rubric", "production", "--judge", DIGITS,
                   "--bootstrap", "300", "--seed", "3", "--out", str(out), "--html", str(html),
                   "--json", "-q")  # fmt: skip
    assert done.exit_code in (0, 3, 7), done.output
    again = _invoke("report", str(out), "-o", str(drawn), "--json")
    assert again.exit_code == 0, again.output
    calibrated = fairjudge.calibrate(
        str(labelled), digits, rubric="production", options={"progress": "quiet"},
        settings=EvalSettings(seed=3, n_resamples=300),
    )  # fmt: skip
    notebook = calibrated.to_html(folder / "notebook.html")
    return {"code": done.exit_code, "run_json": json.loads(done.stdout), "labelled": labelled,
            "report_json": json.loads(again.stdout), "report_err": again.stderr, "out": out,
            "html": html, "drawn": drawn, "notebook": notebook}  # fmt: skip


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """All three dimensions labelled: accuracy passes, usefulness fails, relevance not gated."""
    return _three(tmp_path_factory.mktemp("failing"), ("accuracy", "relevance", "usefulness"))


_COMMAND = re.compile(r"(<dt>command</dt><dd[^>]*>)(.*?)(</dd>)", re.DOTALL)


def _command_row(page: str) -> str:
    found = _COMMAND.search(page)
    assert found is not None
    return re.sub(r"<[^>]+>", "", found.group(2))


def _without_command(page: str) -> str:
    return _COMMAND.sub("<dt>command</dt><dd></dd>", page, count=1)


def _timeless(page: str) -> str:
    """The page without the calls' wall times its embedded ``--json`` holds (they vary)."""
    return re.sub(r'"(wall_s|mean_latency_s)":[-+.e0-9]+', r'"\1":0', page)


def test_the_three_pages_are_one_but_for_the_command_row(failing: dict[str, Any]) -> None:
    html = failing["html"].read_text("utf-8")
    drawn = failing["drawn"].read_text("utf-8")
    notebook = failing["notebook"].read_text("utf-8")
    assert drawn == html  # report names the command its file's header records
    typed = _command_row(html)
    assert typed.split() == ["fairjudge", "calibrate"]  # in-process: the command's name
    assert "not recorded" in _command_row(notebook)  # only a command knows its line
    assert _timeless(_without_command(notebook)) == _timeless(_without_command(html))
    assert failing["report_json"] == failing["run_json"]  # report --json: the run's
    assert "24 items" in failing["report_err"]
    assert "note:" not in failing["report_err"]


def test_the_page_shows_each_dimension_against_the_humans_and_the_gate(
    failing: dict[str, Any],
) -> None:
    assert failing["code"] == 3  # usefulness fails the gate
    page = out_file_page(failing["out"], "calibrate")
    assert page.kind == "calibrate"
    assert page.title == f"{failing['labelled'].name}: calibration"
    gate = page.headline.gate
    assert gate.startswith("The judge fails the gate: Spearman below 0.7 on usefulness -1.00")
    assert "relevance: the judge's scores are all equal" in " ".join(page.headline.warnings)
    ids = [s.id for s in page.sections]
    assert ids == ["fj-agreement", "fj-confusion", "fj-systems"]
    html = failing["html"].read_text("utf-8")
    for text in ("Agreement with the human scores", "Judge score against human score",
                 "System-level agreement", "gate: 0.7", "Spearman [95% CI]: gate",
                 "Kendall [95% CI]", ": FAIL", ": PASS", "human \\ judge", "human mean",
                 "not estimated: not gated"):  # fmt: skip
        assert text in html, text
    assert html.count('<table class="fj-heat"') == 3  # a confusion per dimension
    facts = dict(page.facts)
    assert facts["rubric"] == "production@1"
    assert facts["gate"] == "Spearman >= 0.7"
    assert facts["seed"] == "3"
    assert page.explorer is not None
    assert len(page.explorer.records) == 24
    first = page.explorer.records[0]["d"][1]  # the scores table: judge's and human's
    assert first["cols"] == ["dimension", "score", "human"]


def test_a_dimension_not_gated_says_its_reason_once_on_its_card(failing: dict[str, Any]) -> None:
    agreement = out_file_page(failing["out"], "calibrate").sections[0]
    (block,) = agreement.blocks
    plot, table = block.plot, block.table  # type: ignore[union-attr]
    reason = "the judge's scores are all equal: no rank correlation; the gate is not applied"
    (row,) = [r for r in plot.rows if r.label == "relevance"]  # type: ignore[union-attr]
    assert row.full_text == f"relevance: not estimated: {reason}"  # the plot row says why
    cells = {r[0]: r[2] for r in table.rows}
    assert cells["relevance"] == "not estimated: not gated"  # the table does not say it again
    assert not any(reason in cell for r in table.rows for cell in r)


def test_the_confusion_counts_every_answer_once(failing: dict[str, Any]) -> None:
    page = out_file_page(failing["out"], "calibrate")
    confusion = page.sections[1]
    for block in confusion.blocks:
        table = block.table  # type: ignore[union-attr]
        assert table.columns == ("human \\ judge", "1", "2", "3", "4", "5")
        assert sum(int(c) for row in table.rows for c in row[1:]) == 24


def test_each_confusion_is_headed_by_its_dimension_above_it(failing: dict[str, Any]) -> None:
    confusion = out_file_page(failing["out"], "calibrate").sections[1]
    dims = ["accuracy", "relevance", "usefulness"]
    assert [b.plot.heading for b in confusion.blocks] == dims  # type: ignore[union-attr]
    html = failing["html"].read_text("utf-8").split("</style>")[1]
    for n, dim in enumerate(dims, 1):
        heading = f'<h3 class="fj-plottitle" id="fj-confusion-{n}-heading">{dim}</h3>'
        table = f'<table class="fj-heat" id="fj-confusion-{n}" aria-label="{dim}: answers by '
        assert 0 < html.index(heading) < html.index(table)
        figure = html[html.index(heading) : html.index("</figure>", html.index(heading))]
        caption = figure.split("<figcaption>")[1]
        assert caption.startswith("Answers by human score (rows) and judge score (columns);")
        assert dim not in caption  # said once above the matrix, not again under it
    assert html.count('class="fj-plottitle"') == 3  # the other cards keep their own titles


def test_a_passing_and_an_ungated_run_say_so(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    passing = _three(tmp_path / "p", ("accuracy",))
    assert passing["code"] == 0
    page = out_file_page(passing["out"], "calibrate")
    assert page.headline.gate.startswith("The judge passes the gate: Spearman >= 0.7")
    assert passing["drawn"].read_text("utf-8") == passing["html"].read_text("utf-8")
    (tmp_path / "n").mkdir()
    ungated = _three(tmp_path / "n", ("relevance",))
    assert ungated["code"] == 7  # no check could be evaluated: not a pass
    gate = out_file_page(ungated["out"], "calibrate").headline.gate
    assert gate.startswith("No gate applied (not a pass): relevance:")


def test_a_header_without_the_threshold_is_drawn_at_the_default_and_says_so(
    failing: dict[str, Any], tmp_path: Path
) -> None:
    lines = failing["out"].read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["fairjudge"]["settings"].pop("min_spearman")
    older = tmp_path / "older.jsonl"
    older.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    said: list[str] = []
    page = out_file_page(older, "calibrate", notify=said.append)
    assert said == ["the file's header records no gate threshold min_spearman (written by an "
                    "older fairjudge): the gate is drawn at calibrate's default, 0.7"]  # fmt: skip
    assert "Spearman below 0.7" in page.headline.gate
    header["fairjudge"]["settings"]["min_spearman"] = "high"
    older.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    done = _invoke("report", str(older), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    assert "settings.min_spearman is not a threshold a calibrate run could have used" in (
        done.stderr
    )


def test_the_page_in_chromium_at_phone_and_desktop_widths(
    open_report: OpenReport, failing: dict[str, Any]
) -> None:
    shots = pages.screenshots(open_report, failing["drawn"], "calibrate-scores")
    assert [s.name for s in shots] == ["calibrate-scores-390.png", "calibrate-scores-1440.png"]
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, failing["drawn"], width)
        p = opened.page
        assert "fails the gate" in p.text_content("#fj-gate")
        assert p.locator("#fj-agreement .fj-plot svg .fj-prow").count() == 3
        assert p.locator("#fj-confusion table.fj-heat").count() == 3
        headings = p.locator("#fj-confusion .fj-plottitle")
        assert headings.all_text_contents() == ["accuracy", "relevance", "usefulness"]
        for n in range(3):  # each seen above its own matrix, none hidden or clipped
            above = headings.nth(n).bounding_box()
            heat = p.locator("#fj-confusion table.fj-heat").nth(n).bounding_box()
            assert above is not None
            assert heat is not None
            assert above["y"] + above["height"] <= heat["y"] + 1
            assert abs(above["x"] - heat["x"]) < 40
        assert opened.count() == 24
    assert pages.explorer_keys(opened).startswith("#item=")


def test_a_run_a_budget_stopped_is_drawn_again_as_it_was(tmp_path: Path) -> None:
    labelled = _labelled(tmp_path, ("accuracy", "usefulness"))
    out, html, drawn = tmp_path / "run.jsonl", tmp_path / "run.html", tmp_path / "drawn.html"
    done = _invoke("calibrate", str(labelled), "--rubric", "production", "--judge", DIGITS,
                   "--bootstrap", "200", "--max-calls", "10", "--out", str(out), "--html",
                   str(html), "-q")  # fmt: skip
    assert done.exit_code == 5, done.output  # a budget stopped it
    again = _invoke("report", str(out), "-o", str(drawn))
    assert again.exit_code == 0, again.output
    assert drawn.read_text("utf-8") == html.read_text("utf-8")
    warnings = out_file_page(out, "calibrate").headline.warnings
    assert any(w.startswith("Partial result: the --max-calls 10 budget is spent") and
               w.endswith("; 14 answer(s) left out.") for w in warnings), warnings  # fmt: skip
