"""The jury and score-jury pages as values: every number is the result model's.

The view of a panel (:mod:`fairjudge.report._panel`) is checked against
the diagnostics it is made from, a figure that cannot be estimated against its
reason, and a page read back from an ``--out`` file against the command's own
``--json``. The browser tests are in ``test_page_panel.py``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairjudge import InputError
from fairjudge.cli import app
from fairjudge.evaluation import EvalSettings, evaluate_jury, score_with_jury
from fairjudge.io import load_items, load_score_items
from fairjudge.judges import Jury, MemberSpec
from fairjudge.report import jury_report, score_jury_report
from fairjudge.report._page import FigureTable, page_html
from fairjudge.report._page_panel import (
    jury_page,
    jury_page_from_file,
    score_jury_page,
    score_jury_page_from_file,
)
from fairjudge.report._page_panel_jury import jury_view, score_jury_view
from fairjudge.report._page_plots import Heatmap

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
LONGER = "python:fairjudge.examples.judges:longer"
FACTS = "python:fairjudge.examples.judges:knows_facts"
CONTRARY = "python:tests.report.panel_judges:contrary"
SCORER = "python:fairjudge.examples.judges:scorer"
HARSH = "python:tests.report.panel_judges:harsh"
MOODY = "python:tests.report.panel_judges:moody"
BOOT = {"seed": 0, "level": 0.95, "n_resamples": 200}
runner = CliRunner()


def _jury_report(path: Path = EXAMPLES / "demo_pairs.jsonl") -> Any:
    jury = Jury.from_specs([MemberSpec(LONGER), MemberSpec(FACTS), MemberSpec(CONTRARY)])
    result = evaluate_jury(jury, load_items(path).items, EvalSettings(n_resamples=200))
    return jury_report(result, title="demo")


def _score_report() -> Any:
    items = load_score_items(EXAMPLES / "score_answers.jsonl").items
    specs = [MemberSpec(SCORER), MemberSpec(HARSH), MemberSpec(MOODY)]
    return score_jury_report(score_with_jury(specs, items, **BOOT), title="demo")


def test_the_jury_view_is_the_diagnostics() -> None:
    report = _jury_report()
    view, diag, w = jury_view(report), report.diagnostics, report.result.win_rate
    assert view.headline.estimate == f"{w.estimate:.3f}" == "0.075"
    assert (
        view.headline.verdict
        == "Model 2 is better by the panel: the whole interval lies below 0.5."
    )
    assert view.headline.note == (
        "95% CI; n = 20 items; W/T/L 0/3/17. Known truth, from the input's human labels: model "
        "2 is better (model 1's win rate by the labels: 0.000, 20 items). The panel's result "
        "found it."
    )
    assert view.matrices[0].cells == diag.agreement
    assert view.matrices[0].cells[1][2] == 0.75
    position, rest, human = view.member_plots
    for k, m in enumerate(diag.members):
        assert position.figures[k].estimate == m.position_consistency.estimate
        assert (rest.figures[k].low, rest.figures[k].high) == (
            m.agreement_with_panel.ci.low, m.agreement_with_panel.ci.high)  # fmt: skip
        assert human.figures[k].estimate == m.human.s1.estimate
    assert [f.estimate for f in human.figures] == [0.1, 0.85, 0.9]
    kappa, effective = view.panel_plots
    assert kappa.figures[0].estimate == diag.fleiss.kappa
    assert effective.figures[0].estimate == diag.effective.estimate
    assert effective.ref == 3.0  # the panel's size, the line the estimate is read against
    votes = [len({v for v in j.votes if v is not None}) > 1 for j in report.result.judgments]
    assert [r["f"]["split"] for r in view.records] == votes
    assert sum(votes) == 20


def test_a_figure_that_cannot_be_estimated_has_its_reason_and_no_number(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (EXAMPLES / "demo_pairs.jsonl").read_text().splitlines()]
    unlabelled = tmp_path / "pairs.jsonl"
    unlabelled.write_text("".join(json.dumps({**r, "human": None}) + "\n" for r in rows[:1]))
    view = jury_view(_jury_report(unlabelled))
    human = view.member_plots[2].figures
    assert all(f.estimate is None and f.low is None and f.high is None for f in human)
    assert {f.reason for f in human} == {"the items carry no human labels"}
    effective = view.panel_plots[1].figures[0]
    assert effective.estimate is None
    assert effective.text == "not estimated: needs at least two items resolved by every member"
    assert "Known truth" not in view.headline.note
    page = jury_page(_jury_report(unlabelled))
    block = page.sections[1].blocks[0]
    assert isinstance(block.plot, Heatmap)  # type: ignore[union-attr]
    assert block.plot.heading is None  # type: ignore[union-attr]  # its card titles it


def test_the_score_jury_view_is_the_diagnostics() -> None:
    report = _score_report()
    view, dims = score_jury_view(report), report.diagnostics.dimensions
    assert view.headline.verdict == (
        "The members do not agree on accuracy, relevance and usefulness (Krippendorff's "
        "ordinal alpha against 0.667)."
    )
    assert view.headline.estimate == "40 of 40"
    for matrix, d in zip(view.matrices, dims, strict=True):
        assert matrix.cells == d.effective.correlation
    alphas, effective = view.panel_plots
    assert [f.estimate for f in alphas.figures] == [d.alpha_ordinal.alpha for d in dims]
    assert [f.estimate for f in effective.figures] == [d.effective.estimate for d in dims]
    means, rest, human = view.member_plots
    flat = [m for d in dims for m in d.members]
    assert [f.estimate for f in means.figures] == [m.mean.estimate for m in flat]
    for f, m in zip(rest.figures, flat, strict=True):
        if isinstance(m.with_rest, str):  # not computed: the reason, and no number
            assert (f.estimate, f.reason) == (None, m.with_rest)
        else:
            assert (f.estimate, f.low) == (m.with_rest.spearman, m.with_rest.spearman_ci.low)
    assert sum(f.reason is not None for f in rest.figures) == 1
    assert [f.reason for f in human.figures] == ["no answer carries a human score"] * 3
    splits = [
        any(len(set(i.member_scores(d))) > 1 for d in report.result.rubric.names)
        for i in report.result.items
    ]
    assert [r["f"]["split"] for r in view.records] == splits


def test_an_undefined_matrix_shows_its_reason_in_every_cell() -> None:
    items = load_score_items(EXAMPLES / "score_answers.jsonl").items[:1]
    result = score_with_jury([MemberSpec(SCORER), MemberSpec(HARSH)], items, **BOOT)
    page = score_jury_page(score_jury_report(result, title="one"))
    heat = page.sections[1].blocks[0].plot  # type: ignore[union-attr]
    assert isinstance(heat, Heatmap)
    cells = [c for row in heat.cells for c in row]
    assert {c.text for c in cells} == {"n/a"}
    assert {c.reason for c in cells} == {"1 answer(s) scored by every member; needs at least 2"}
    html = page_html(page)
    assert "n/a: 1 answer(s) scored by every member" in html


def _cli(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _without(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}


def test_a_jury_out_file_draws_the_commands_own_figures(tmp_path: Path) -> None:
    out, html = tmp_path / "jury.jsonl", tmp_path / "jury.html"
    summary = _cli("jury", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER, "--judge",
                   FACTS, "--judge", CONTRARY, "--out", str(out), "--html", str(html),
                   "--bootstrap", "300")  # fmt: skip
    assert html.stat().st_size > 0
    page = jury_page_from_file(out, seed=0, level=0.95, n_resamples=300)
    again = json.loads(json.dumps(dict(page.summary)))
    assert again["win_rate"] == summary["win_rate"]
    for key in ("fleiss_kappa", "effective_judges", "agreement_matrix", "human_agreement",
                "alternative_aggregations", "n_complete_items"):  # fmt: skip
        assert again[key] == summary[key], key
    usage = ("usage",)
    assert [_without(m, *usage) for m in again["members"]] == [
        _without(m, *usage) for m in summary["members"]]  # fmt: skip
    assert page.headline.estimate == f"{summary['win_rate']['estimate']:.3f}"
    assert dict(page.facts)["command"].startswith("fairjudge jury")


def test_a_score_jury_out_file_draws_the_commands_own_figures(tmp_path: Path) -> None:
    out = tmp_path / "sj.jsonl"
    summary = _cli("score-jury", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER,
                   "--judge", HARSH, "--judge", MOODY, "--weight", "2", "--weight", "1",
                   "--weight", "1", "--aggregate", "median", "--out", str(out),
                   "--bootstrap", "300")  # fmt: skip
    page = score_jury_page_from_file(out, seed=0, level=0.95, n_resamples=300)
    again = json.loads(json.dumps(dict(page.summary)))
    # the run's usage and calls are the run's own: the file records neither
    run = ("member_usage", "calls")
    assert _without(again, *run) == _without(summary, *run)
    assert again["aggregation"] == "median"
    assert not math.isnan(again["diagnostics"][0]["effective_judges"]["estimate"])


def test_files_it_cannot_draw_are_refused_naming_why(tmp_path: Path) -> None:
    out = tmp_path / "compare.jsonl"
    _cli("compare", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", LONGER, "--out", str(out))
    with pytest.raises(InputError, match="a compare file"):
        jury_page_from_file(out, seed=0, level=0.95, n_resamples=100)
    scored = tmp_path / "sj.jsonl"
    _cli("score-jury", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER, "--judge", HARSH,
         "--out", str(scored), "--bootstrap", "100")  # fmt: skip
    # A rubric read from a .toml file is drawn from the dimensions and scale the header
    # records; a file written before headers recorded them cannot be, and says so.
    lines = scored.read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["fairjudge"]["rubric"] = "mine@3"
    scored.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    page = score_jury_page_from_file(scored, seed=0, level=0.95, n_resamples=100)
    assert page.summary["rubric"]["name"] == "mine"
    assert page.summary["rubric"]["dimensions"] == ["accuracy", "relevance", "usefulness"]
    for key in ("dimensions", "scale"):
        del header["fairjudge"]["settings"][key]
    scored.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    with pytest.raises(InputError, match="rubric mine@3 is not a built-in rubric"):
        score_jury_page_from_file(scored, seed=0, level=0.95, n_resamples=100)


def _verdict(html: Path) -> str:
    found = re.search(r'id="fj-verdict"[^>]*>([^<]*)<', html.read_text("utf-8"))
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(
    "args",
    [
        ["jury", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", FACTS, "--judge", CONTRARY],
        ["score-jury", str(EXAMPLES / "score_answers.jsonl"), "--judge", SCORER, "--judge",
         HARSH],
    ],
)  # fmt: skip
def test_report_draws_the_page_the_command_wrote(args: list[str], tmp_path: Path) -> None:
    out, live, drawn = tmp_path / "out.jsonl", tmp_path / "live.html", tmp_path / "drawn.html"
    _cli(*args, "--out", str(out), "--html", str(live))
    result = runner.invoke(app, ["report", str(out), "-o", str(drawn)])
    assert result.exit_code == 0, result.output
    assert _verdict(drawn) == _verdict(live)
    assert _verdict(live).startswith(("Model 2 is better by the panel", "The members"))


def test_an_adaptive_jury_file_says_what_its_page_lacks(tmp_path: Path) -> None:
    out, drawn = tmp_path / "out.jsonl", tmp_path / "drawn.html"
    _cli("jury", str(EXAMPLES / "demo_pairs.jsonl"), "--judge", FACTS, "--judge", CONTRARY,
         "--stop-when", "decided", "--batch", "4", "--out", str(out))  # fmt: skip
    result = runner.invoke(app, ["report", str(out), "-o", str(drawn)])
    assert result.exit_code == 0, result.output
    assert "This run stopped adaptively (--stop-when)" in drawn.read_text("utf-8")
    page = jury_page_from_file(out, seed=0, level=0.95, n_resamples=100)
    assert page.summary["n_items"] == 16  # the items it judged before it stopped


def test_failures_have_their_card_and_the_headline_points_to_it(tmp_path: Path) -> None:
    rows = [{"id": f"e{i}", "question": f"Q{i} [error]", "answer_1": "a", "answer_2": "bb"}
            for i in range(3)]  # fmt: skip
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    jury = Jury.from_specs([MemberSpec("python:tests.report.judges:mixed"), MemberSpec(LONGER)])
    report = jury_report(evaluate_jury(jury, load_items(items).items, EvalSettings()), title="e")
    page = jury_page(report)
    assert page.headline.verdict == "No item could be resolved: see the Failures card below."
    assert page.headline.warnings[-1].startswith("6 member call(s) gave no reading")
    card = page.sections[0]
    assert card.id == "fj-failures"
    table = card.blocks[0]
    assert isinstance(table, FigureTable)
    assert table.rows == tuple((r, str(n)) for r, n in report.failures.most_common())
    assert table.rows[0][1] == "6"
