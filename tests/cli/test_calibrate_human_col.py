"""``calibrate --human-col`` naming a column the file lacks is refused, as a process.

It was accepted: the labels read as absent, a file with ``human_score`` was calibrated
on that alone and the agreement asked for read 'not estimated'.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.cli_process import fairjudge, flat

ROOT = Path(__file__).resolve().parents[2]
CALIBRATION = ROOT / "src" / "fairjudge" / "examples" / "calibration.jsonl"
JUDGE = "python:fairjudge.examples.judges:longer"
COLUMNS = "'id', 'question', 'answer_1', 'answer_2', 'human', 'model_1', 'model_2', 'human_score'"


def calibration_csv(tmp_path: Path) -> Path:
    """The example calibration file as CSV (its first row's keys the header)."""
    rows = [json.loads(line) for line in CALIBRATION.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / "calibration.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_a_human_col_the_file_lacks_is_refused_before_any_call(tmp_path: Path) -> None:
    for path in (CALIBRATION, calibration_csv(tmp_path)):
        done = fairjudge("calibrate", str(path), "--judge", JUDGE, "--human-col", "nope")
        err = flat(done.stderr)
        assert done.returncode == 2, (done.stdout, err)
        assert done.stdout == ""
        assert f"--human-col 'nope' names no column of the file; its columns: {COLUMNS}" in err
        assert "calls" not in err, err  # nothing was judged


def test_a_human_col_the_file_has_is_read(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(CALIBRATION.read_text(encoding="utf-8").replace('"human":', '"lab":'))
    done = fairjudge("calibrate", str(path), "--judge", JUDGE, "--human-col", "lab", "--json")
    assert done.returncode == 3, flat(done.stderr)  # the gate: the longer answer is no judge
    payload = json.loads(done.stdout)
    assert payload["agreement"]["n"] == 24
