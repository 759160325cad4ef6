"""``fairjudge report`` draws a pairwise calibrate file as ``calibrate --html`` drew it.

The calibration (kappa, the gate at the run's thresholds, the agreement with the
human labels the records hold), not the comparison the judged pairs also are. A
file whose records hold no human label is drawn as its comparison and stderr says
why; a header recording no thresholds is drawn at calibrate's and says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from tests.cli._invoke import invoke
from tests.cli.test_report_run_settings import SETTINGS, _drawn, _figures, _summary

EX = Path(fairjudge.__file__).parent / "examples"
RUN = ("calibrate", str(EX / "calibration.jsonl"), "--judge",
       "python:fairjudge.examples.judges:knows_facts")  # fmt: skip


def _calibrate(tmp_path: Path, *more: str) -> dict[str, Any]:
    """``calibrate --out --html --json``, then ``report`` of its file (``--json``): both."""
    out, html, drawn = tmp_path / "run.jsonl", tmp_path / "run.html", tmp_path / "drawn.html"
    done = invoke(*RUN, *more, "--out", str(out), "--html", str(html), "--json", "-q")
    assert done.exit_code in (0, 3, 5), done.output  # 3: the gate failed; 5: a budget stopped
    again = invoke("report", str(out), "-o", str(drawn), "--json")
    assert again.exit_code == 0, again.output
    assert again.stderr.count("note:") == 0, again.stderr
    return {"out": out, "run_json": json.loads(done.stdout), "report": again,
            "report_json": json.loads(again.stdout), "html": html.read_text("utf-8"),
            "drawn": drawn.read_text("utf-8")}  # fmt: skip


@pytest.mark.parametrize("more", [(), ("--max-calls", "10"), ("--min-kappa", "0.9")],
                         ids=["whole", "max-calls", "failed-gate"])  # fmt: skip
def test_a_calibrate_file_is_drawn_as_its_calibration(
    more: tuple[str, ...], tmp_path: Path
) -> None:
    got = _calibrate(tmp_path, *SETTINGS, *more)
    html, drawn = got["html"], got["drawn"]
    assert _drawn(drawn) == _drawn(html)  # the headline's gate, the calibration card, the facts
    assert _figures(_summary(drawn)) == _figures(_summary(html))
    assert _figures(got["report_json"]) == _figures(got["run_json"])
    assert "Calibration against human labels" in drawn
    assert "kappa" in got["report_json"]["agreement"]
    assert "win_rate" not in got["report_json"]  # the calibration's summary, not the comparison's
    gate = {c["statistic"]: c["threshold"] for c in got["report_json"]["gate"]["checks"]}
    assert gate["Cohen's kappa"] == (0.9 if "--min-kappa" in more else 0.4)
    header = json.loads(got["out"].read_text("utf-8").splitlines()[0])["fairjudge"]
    assert header["settings"]["min_kappa"] == gate["Cohen's kappa"]
    assert "<dt>seed</dt><dd>3</dd>" in drawn
    assert "24 items" in got["report"].stderr


def _rewritten(out: Path, tmp_path: Path, *, header_drop: tuple[str, ...] = (),
               record_drop: tuple[str, ...] = ()) -> Path:  # fmt: skip
    """``out`` as an older fairjudge might have written it: keys left out."""
    lines = out.read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    for key in header_drop:
        header["fairjudge"]["settings"].pop(key, None)
    records = [json.loads(line) for line in lines[1:]]
    for record in records:
        for key in record_drop:
            record.pop(key, None)
    older = tmp_path / "older.jsonl"
    older.write_text("\n".join(json.dumps(r) for r in [header, *records]) + "\n", "utf-8")
    return older


def test_records_without_human_labels_are_drawn_as_the_comparison(tmp_path: Path) -> None:
    got = _calibrate(tmp_path)
    older = _rewritten(got["out"], tmp_path, record_drop=("human", "human_score"))
    page = tmp_path / "older.html"
    done = invoke("report", str(older), "-o", str(page), "--json")
    assert done.exit_code == 0, done.output
    assert "note: 24 of 24 records hold no human label (human or human_score)" in done.stderr
    assert "Write its `calibrate out` file again from the labelled input" in done.stderr
    drawn = json.loads(done.stdout)
    assert "win_rate" in drawn  # the comparison: every record drawn, none lost
    assert drawn["n_items"] == 24
    assert "Calibration against human labels" not in page.read_text("utf-8")


def test_a_header_without_thresholds_is_drawn_at_calibrates_and_says_so(tmp_path: Path) -> None:
    got = _calibrate(tmp_path, "--min-kappa", "0.9")
    older = _rewritten(got["out"], tmp_path, header_drop=("min_kappa", "min_spearman"))
    done = invoke("report", str(older), "-o", str(tmp_path / "older.html"), "--json")
    assert done.exit_code == 0, done.output
    assert "records no gate threshold min_kappa or min_spearman" in done.stderr
    gate = {c["statistic"]: c["threshold"] for c in json.loads(done.stdout)["gate"]["checks"]}
    assert gate["Cohen's kappa"] == 0.4  # calibrate's default, not the run's 0.9 it did not record


def test_a_damaged_threshold_is_refused_naming_it(tmp_path: Path) -> None:
    got = _calibrate(tmp_path)
    lines = got["out"].read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    header["fairjudge"]["settings"]["min_kappa"] = "high"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", "utf-8")
    done = invoke("report", str(bad), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    assert "settings.min_kappa is not a threshold a calibrate run could have used" in done.stderr
    assert "'high'" in done.stderr or '"high"' in done.stderr
