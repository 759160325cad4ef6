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
