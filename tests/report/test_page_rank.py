"""The ``rank`` page: drawn live by ``rank --html`` and ``Result.to_html``, and again from
a ``rank --out`` file (or one ``Result.save`` wrote) by ``fairjudge report``.

The page drawn from a file is the live one: the same leaderboard (refitted with the
header's settings), the same judged pairs, the same run-facts card, read from the
header both times. A damaged file is refused naming the file, its line or the header
setting. The Chromium test opens the drawn page as a user would; its screenshot goes
to ``tests/report/artifacts/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge._errors import InputError
from fairjudge.examples.judges import longer
from fairjudge.report import out_file_page
from fairjudge.report._page import PlotBlock
from tests.report import pages
from tests.report.conftest import OpenReport, run_json

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
ANSWERS = str(EXAMPLES / "rank_answers.jsonl")
LONGER = "python:fairjudge.examples.judges:longer"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``rank`` by the command line and one in Python, each saved and drawn again."""
    tmp = tmp_path_factory.mktemp("rank")
    out, html, drawn = tmp / "rank.jsonl", tmp / "rank.html", tmp / "drawn.html"
    board = run_json("rank", ANSWERS, "--judge", LONGER, "--out", str(out), "--html", str(html))
    again = run_json("report", str(out), "-o", str(drawn))
    ranked = fairjudge.rank(ANSWERS, longer, options={"progress": "quiet"})
    saved, notebook = ranked.save(tmp / "saved.jsonl"), ranked.to_html(tmp / "notebook.html")
    return {"board": board, "out": out, "html": html, "drawn": drawn, "again": again,
            "ranked": ranked, "saved": saved, "notebook": notebook}  # fmt: skip


def _facts(path: Path, kind: str = "rank") -> dict[str, str]:
    return dict(out_file_page(path, kind).facts)


def test_report_draws_the_out_file_as_rank_drew_it(runs: dict[str, Any]) -> None:
    board = runs["board"]
    assert runs["again"] == board  # refitted with the header's settings: rank's own figures
    page = out_file_page(runs["out"], "rank")
    assert page.kind == "rank"
    assert page.title == "rank_answers.jsonl: leaderboard"
    assert page.headline.estimate == board["ratings"][0]["model"]
    table = page.sections[0].blocks[0]
    assert isinstance(table, PlotBlock)
    assert [row[0] for row in table.table.rows] == [r["model"] for r in board["ratings"]]
    assert [row[1] for row in table.table.rows] == [
        f"{r['rating']:.1f}  [{r['ci']['low']:.1f}, {r['ci']['high']:.1f}]"
        for r in board["ratings"]
    ]
    assert page.explorer is not None
    assert len(page.explorer.records) == 96
    facts = dict(page.facts)
    assert facts["command"] == "fairjudge rank"  # the header's
    assert facts["judge"] == LONGER
    assert facts["template"] == "none (a Python judge)"
    assert facts["calls"] == "192 made, 0 cached"
    assert facts["battles"] == "96"
    assert facts["bootstrap"] == "1000 rounds over questions, seed 0"
    # The live page's card is read from the header the file opens with: the same one
    live = pages.embedded(runs["html"], "fj-summary")
    assert live == pages.embedded(runs["drawn"], "fj-summary") == board
    assert runs["html"].read_text("utf-8") == runs["drawn"].read_text("utf-8")


def test_a_file_python_saved_draws_the_notebook_page(runs: dict[str, Any]) -> None:
    ranked = runs["ranked"]
    page = out_file_page(runs["saved"], "rank")
    assert page.summary == ranked.to_dict()
    facts = dict(page.facts)
    assert facts["command"] == "not recorded"  # a notebook has no command line
    assert facts["judge"] == LONGER  # named as the command names it
    # The notebook's page is the command's, but for the command line
    assert runs["notebook"].read_text("utf-8") == runs["html"].read_text("utf-8").replace(
        '<dd class="fj-command"><span>fairjudge</span> <span>rank</span></dd>',
        "<dd>not recorded</dd>",
    )


def test_a_headerless_file_draws_with_ranks_defaults(runs: dict[str, Any], tmp_path: Path) -> None:
    lines = runs["out"].read_text("utf-8").splitlines(keepends=True)
    old = tmp_path / "old.jsonl"
    old.write_text("".join(lines[1:]), "utf-8")
    page = out_file_page(old, None)
    assert page.kind == "rank"
    assert page.summary == runs["board"]
    assert dict(page.facts)["command"] == "not recorded"


def test_a_damaged_file_is_refused_naming_what_is_wrong(
    runs: dict[str, Any], tmp_path: Path
) -> None:
    header, *records = runs["out"].read_text("utf-8").splitlines()
    bad = json.loads(header)
    bad["fairjudge"]["settings"]["ties"] = 5
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([json.dumps(bad), *records]) + "\n", "utf-8")
    with pytest.raises(InputError, match=r"header: bad settings \(ties 5\)"):
        out_file_page(path, "rank")
    bad["fairjudge"]["settings"]["ties"] = "half"
    bad["fairjudge"]["settings"]["anchor"] = "nobody"
    path.write_text("\n".join([json.dumps(bad), *records]) + "\n", "utf-8")
    with pytest.raises(InputError, match=r"header: its settings cannot be fitted .*nobody"):
        out_file_page(path, "rank")
    path.write_text("\n".join([header, records[0], '{"model_a": "x"}']) + "\n", "utf-8")
    with pytest.raises(InputError, match=r":3: not a result record of `fairjudge rank out`"):
        out_file_page(path, "rank")
    with pytest.raises(InputError, match=r"a rank file .*`fairjudge report` reads `compare out`"):
        out_file_page(runs["out"], "compare")


def test_rank_page_drawn_from_its_file_in_chromium(
    open_report: OpenReport, runs: dict[str, Any]
) -> None:
    board = runs["board"]
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, runs["drawn"], width)
        pages.assert_sound(opened)  # no error, no request, no sideways scroll, no label cut
        p = opened.page
        assert p.text_content("#fj-headline-estimate") == board["ratings"][0]["model"]
        assert p.locator("#fj-figure-table tbody tr").count() == 4
        assert p.locator(".fj-plot svg .fj-prow").count() == 4
        assert opened.count() == 96
        labels = p.eval_on_selector_all("#fj-run dt", "n => n.map(x => x.textContent)")
        values = p.eval_on_selector_all("#fj-run dd", "n => n.map(x => x.textContent)")
        facts = dict(zip(labels, values, strict=True))
        assert facts["command"] == "fairjudge rank"
        assert facts["anchor"].endswith("at 1000")
        opened.shot(f"rank-drawn-{width}.png", full_page=True)
    assert pages.explorer_keys(opened).startswith("#item=")
