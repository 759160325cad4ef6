"""``fairjudge report`` of a pointwise ``calibrate --out`` file says honestly it has no page.

Neither ``report`` nor ``calibrate --html`` draws a pointwise calibration, so the
refusal names the kinds ``report`` does draw (rank, score, jury, score-jury, audit
and via-scores files too, not only pairwise compare and calibrate) and where this
run's figures are: ``calibrate --json`` or ``--markdown``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairjudge._errors import InputError
from fairjudge.report import out_file_page
from tests.cli._invoke import invoke

DIGITS = "python:tests.scorers:digits"


def _pointwise_calibrate_out(tmp_path: Path) -> Path:
    rows = [
        {"id": f"q{q}", "system": system, "question": f"Question {q}?",
         "answer": f"{min(5, 1 + i + q % 2)} from {system}",
         "human_accuracy": min(5, 1 + i + q % 2)}
        for q in range(6) for i, system in enumerate(("s0", "s1", "s2", "s3"))
    ]  # fmt: skip
    labelled, out = tmp_path / "labelled.jsonl", tmp_path / "pc.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    done = invoke("calibrate", str(labelled), "--judge", DIGITS, "--bootstrap", "200",
                  "--out", str(out), "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    return out


def test_a_pointwise_calibrate_file_is_told_it_has_no_page(tmp_path: Path) -> None:
    out = _pointwise_calibrate_out(tmp_path)
    done = invoke("report", str(out), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    said = " ".join(done.stderr.split())
    assert "pointwise calibrate files have no page yet" in said
    assert "with --json or --markdown" in said
    for kind in ("rank", "score", "jury", "score-jury", "audit", "via scores"):
        assert kind in said
    assert "reads pairwise `compare --out` and `calibrate --out` files" not in said
    assert not (tmp_path / "p.html").exists()


def test_the_library_says_it_in_parameters(tmp_path: Path) -> None:
    out = _pointwise_calibrate_out(tmp_path)
    with pytest.raises(InputError, match="pointwise calibrate files have no page yet") as caught:
        out_file_page(out, "calibrate")
    assert "--" not in str(caught.value)
    assert {"json", "markdown"} <= set(caught.value.params)
