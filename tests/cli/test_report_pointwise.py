"""``fairjudge report`` draws a pointwise ``calibrate --out`` file as its calibration page.

It used to refuse one ("pointwise calibrate files have no page yet"), as
``calibrate --html`` refused pointwise input; both draw the page now (its content
is tested in tests/report/test_page_score_calibrate.py). A reader of pairwise files
given one says it is pointwise and that ``report`` draws it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairjudge._errors import InputError
from fairjudge.report import out_file_page
from fairjudge.report._page_load import load_comparison
from tests.cli._invoke import invoke
from tests.score_server import by_answer, script
from tests.server import JudgeServer

DIGITS = "python:tests.scorers:digits"


def _labelled(tmp_path: Path) -> Path:
    rows = [
        {"id": f"q{q}", "system": system, "question": f"Question {q}?",
         "answer": f"{min(5, 1 + i + q % 2)} from {system}",
         "human_accuracy": min(5, 1 + i + q % 2)}
        for q in range(6) for i, system in enumerate(("s0", "s1", "s2", "s3"))
    ]  # fmt: skip
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return labelled


def _pointwise_calibrate_out(tmp_path: Path) -> Path:
    out = tmp_path / "pc.jsonl"
    done = invoke("calibrate", str(_labelled(tmp_path)), "--judge", DIGITS, "--bootstrap", "200",
                  "--out", str(out), "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    return out


def test_report_draws_a_pointwise_calibrate_file(tmp_path: Path) -> None:
    out = _pointwise_calibrate_out(tmp_path)
    done = invoke("report", str(out), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 0, done.output
    assert "HTML report" in done.stderr
    page = (tmp_path / "p.html").read_text("utf-8")
    assert "The judge passes the gate: Spearman &gt;= 0.7" in page
    assert "no page yet" not in done.stderr


def test_calibrate_html_on_pointwise_input_writes_the_page(tmp_path: Path) -> None:
    page = tmp_path / "run.html"
    done = invoke("calibrate", str(_labelled(tmp_path)), "--rubric", "production", "--judge",
                  DIGITS, "--bootstrap", "200", "--html", str(page), "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "does not apply to pointwise input" not in done.stderr
    assert "Judge score against human score" in page.read_text("utf-8")


def test_the_library_draws_it_and_a_pairwise_reader_points_to_report(tmp_path: Path) -> None:
    out = _pointwise_calibrate_out(tmp_path)
    assert out_file_page(out, "calibrate").kind == "calibrate"
    with pytest.raises(InputError, match="is not a pairwise one: `fairjudge report` draws it"):
        load_comparison(out)


def test_a_models_calls_are_the_runs_on_the_page_report_draws(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    """A model judge's calls are in ``--json``; ``report`` reads them back from the header."""
    rows = [{"question": f"Q{i}?", "answer": f"answer {i}", "human_accuracy": h}
            for i, h in enumerate([1, 2, 2, 4, 5])]  # fmt: skip
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    replies = {f"answer {i}": json.dumps({"accuracy": a, "relevance": 3, "usefulness": 3})
               for i, a in enumerate([1, 3, 2, 4, 5])}  # fmt: skip
    script(score_server, by_answer(replies))
    out, html, drawn = tmp_path / "run.jsonl", tmp_path / "run.html", tmp_path / "drawn.html"
    done = invoke("calibrate", str(labelled), "--rubric", "production", "--judge",
                  "openai/scripted-judge", "--base-url", score_server.base_url, "--store",
                  str(tmp_path / "s.sqlite"), "--bootstrap", "200", "--out", str(out),
                  "--html", str(html), "--json", "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["calls"]["made"] == 5
    again = invoke("report", str(out), "-o", str(drawn), "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == json.loads(done.stdout)
    assert drawn.read_text("utf-8") == html.read_text("utf-8")
