"""The page of a ``compare --via-scores`` run, drawn by ``fairjudge report`` from its file.

The file is the command's ``--out`` or the one the library's ``ViaScoresRun.save``
writes; the page's figures are the command's own ``--json`` (the win rate via
scores, each dimension's paired difference), its title the input file and its card
the scorer, the rubric and the command, from the header, and its explorer holds every
scored answer. The header records the rubric's dimensions and scale, so a rubric
file's draws too; a file written before it did still draws under a built-in rubric,
and one under any other is refused saying why. The Chromium test
opens the page as a user would; its screenshots go to ``tests/report/artifacts/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge._errors import InputError
from fairjudge.report import out_file_page
from tests.report import pages
from tests.report.conftest import OpenReport, run_json

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
ITEMS = EXAMPLES / "calibration.jsonl"
SCORER = "python:fairjudge.examples.judges:scorer"
NO_WINNER = "No clear winner by scores: the interval contains 0.5."


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One comparison via scores by the command line and one in Python, each drawn again."""
    from fairjudge._api import EvalSettings, via_scores
    from fairjudge.io import load_items
    from fairjudge.prompts import get_rubric

    tmp = tmp_path_factory.mktemp("via")
    out, drawn = tmp / "via.jsonl", tmp / "via.html"
    live = run_json("compare", str(ITEMS), "--via-scores", "--judge", SCORER, "--out", str(out))
    again = run_json("report", str(out), "-o", str(drawn))
    done = via_scores(SCORER, load_items(ITEMS).items, EvalSettings(),
                      setup=fairjudge.JudgeSetup(options={"progress": "quiet"}),
                      rubric=get_rubric("production"))  # fmt: skip
    saved = done.save(tmp / "saved.jsonl")
    return {"live": live, "out": out, "drawn": drawn, "again": again, "done": done,
            "saved": saved}  # fmt: skip


def test_report_draws_the_out_file_with_the_commands_figures(runs: dict[str, Any]) -> None:
    live, via = runs["live"], runs["live"]["via_scores"]
    # --json but the skipped rows; the calls are the header's, as the run's
    assert runs["again"] == {"via_scores": via, "swap": None, "calls": live["calls"]}
    page = out_file_page(runs["out"], "compare-via-scores")
    assert page.kind == "compare-via-scores"
    assert page.title == "calibration.jsonl: model 1 vs model 2"  # the input's, from the header
    w = via["win_rate"]
    assert page.headline.estimate == f"{w['estimate']:.3f}"
    assert page.headline.ci == f"[{w['ci']['low']:.3f}, {w['ci']['high']:.3f}]"
    label = "Win rate of model 1 (via scores on rubric production@1, tie margin 0)"
    assert page.headline.label == label
    assert w["ci"]["low"] < 0.5 < w["ci"]["high"]
    assert page.headline.verdict == NO_WINNER  # the table's line (via_scores_verdict)
    wins = page.sections[0]
    assert wins.id == "fj-figures"
    assert [row[0] for row in wins.blocks[0].table.rows] == ["Via scores"]  # type: ignore[union-attr]
    systems = next(s for s in page.sections if s.id == "fj-systems")
    differences = systems.blocks[-1].table.rows  # type: ignore[union-attr]
    assert [row[0] for row in differences] == [
        f"model 1 − model 2: {d['dimension']}" for d in via["dimensions"]
    ]
    assert page.explorer is not None
    assert len(page.explorer.records) == 2 * via["n_items"] == 48
    facts = dict(page.facts)
    assert facts["command"] == "fairjudge compare"  # the header's
    assert facts["judge"] == SCORER
    assert facts["rubric"] == "production@1"
    assert facts["calls"] == "48 made, 0 cached"
    assert facts["tie margin"] == "0"
    assert facts["items"] == f"{via['n_items'] - via['n_unresolved']} of 24 resolved"
    assert "swap protocol" not in facts
    assert live["swap"] is None


def test_the_library_saves_the_file_the_command_writes(runs: dict[str, Any]) -> None:
    page = out_file_page(runs["saved"], "compare-via-scores")
    assert page.summary["via_scores"] == runs["done"].result.to_dict()
    assert page.summary["via_scores"] == runs["live"]["via_scores"]  # same scorer, same seed
    facts = dict(page.facts)
    assert facts["command"] == "not recorded"  # no command line in Python
    assert facts["judge"] == SCORER


def _older(header: str, **changes: Any) -> dict[str, Any]:
    """``header`` as fairjudge wrote it before the header recorded its source and rubric."""
    old = json.loads(header)
    for key in ("source", "dimensions", "scale"):
        del old["fairjudge"]["settings"][key]
    old["fairjudge"].update(changes)
    return old


def test_the_header_records_the_input_and_the_rubric(runs: dict[str, Any]) -> None:
    settings = json.loads(runs["out"].read_text("utf-8").splitlines()[0])["fairjudge"]["settings"]
    assert settings["source"] == str(ITEMS)
    assert (settings["dimensions"], settings["scale"]) == (
        ["accuracy", "relevance", "usefulness"], [1, 5],
    )  # fmt: skip
    saved = json.loads(runs["saved"].read_text("utf-8").splitlines()[0])["fairjudge"]["settings"]
    assert saved["source"] is None  # items given in Python: no file
    assert out_file_page(runs["saved"], "compare-via-scores").title == (
        "saved.jsonl: model 1 vs model 2"
    )  # fmt: skip


def test_a_file_written_before_the_header_recorded_them_still_draws(
    runs: dict[str, Any], tmp_path: Path
) -> None:
    header, *records = runs["out"].read_text("utf-8").splitlines()
    path = tmp_path / "older.jsonl"
    path.write_text("\n".join([json.dumps(_older(header)), *records]) + "\n", "utf-8")
    page = out_file_page(path, "compare-via-scores")
    assert page.title == "older.jsonl: model 1 vs model 2"  # no source: the file's name
    assert page.summary == out_file_page(runs["out"], "compare-via-scores").summary
    assert dict(page.facts)["rubric"] == "production@1"  # a built-in rubric, by name


def test_a_rubric_this_fairjudge_cannot_rebuild_is_refused_saying_why(
    runs: dict[str, Any], tmp_path: Path
) -> None:
    header, *records = runs["out"].read_text("utf-8").splitlines()
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join([json.dumps(_older(header, rubric="mine@1")), *records]) + "\n",
                    "utf-8")  # fmt: skip
    with pytest.raises(InputError, match=r"mine@1 is not a built-in .*does not record its "
                       r"dimensions .* run the comparison via scores again"):  # fmt: skip
        out_file_page(path, "compare-via-scores")
    mine = json.loads(header)
    mine["fairjudge"]["settings"]["scale"] = [1, 10**9]
    path.write_text("\n".join([json.dumps(mine), *records]) + "\n", "utf-8")
    with pytest.raises(InputError, match=r"header: its rubric cannot be rebuilt"):
        out_file_page(path, "compare-via-scores")
    path.write_text("\n".join([header, records[0], '{"scored_1": {}}']) + "\n", "utf-8")
    with pytest.raises(InputError, match=r":3: not a record of `fairjudge compare out` via"):
        out_file_page(path, "compare-via-scores")
    with pytest.raises(InputError, match=r"compare-via-scores file .* reads `compare out`"):
        out_file_page(runs["out"], "compare")


def test_via_scores_page_in_chromium(open_report: OpenReport, runs: dict[str, Any]) -> None:
    via = runs["live"]["via_scores"]
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, runs["drawn"], width)
        pages.assert_sound(opened)  # no error, no request, no sideways scroll, no label cut
        p = opened.page
        assert p.text_content("#fj-headline-estimate") == f"{via['win_rate']['estimate']:.3f}"
        assert pages.verdict(opened) == NO_WINNER
        assert p.is_visible("#fj-systems")
        assert opened.count() == 48  # every scored answer
        p.select_option('select[data-facet="system"]', "model 2")
        assert opened.count() == 24
        embedded = json.loads(p.text_content("#fj-summary") or "")
        assert embedded["via_scores"] == via
        opened.shot(f"via-scores-drawn-{width}.png", full_page=True)
    assert pages.explorer_keys(opened).startswith("#item=")
