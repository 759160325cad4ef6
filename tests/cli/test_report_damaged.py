"""``fairjudge report`` of a file that is not a whole ``--out`` file says what it is.

A file cut short or edited names the line, calls the first line the header, and
gives the fix (write it again with the command's ``--out``); a via-scores record
missing an answer names the field; a battles file (``rank``'s input) points to
``rank --html``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fairjudge
from fairjudge._errors import InputError
from fairjudge.report import out_file_page
from tests.cli._invoke import invoke

EX = Path(fairjudge.__file__).parent / "examples"
J = "python:fairjudge.examples.judges:"
FIX = "the file is damaged or cut short; write it again with the command's --out"


def _compare_out(tmp_path: Path) -> Path:
    out = tmp_path / "c.jsonl"
    done = invoke("compare", str(EX / "demo_pairs.jsonl"), "--judge", J + "longer", "--out",
                  str(out), "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    return out


def test_a_file_cut_short_names_the_line_and_the_fix(tmp_path: Path) -> None:
    text = _compare_out(tmp_path).read_text("utf-8")
    lines = text.splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:3]) + "\n" + lines[3][: len(lines[3]) // 2], "utf-8")
    done = invoke("report", str(cut), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    assert f"{cut}:4: not JSON (" in done.stderr
    assert FIX in done.stderr
    with pytest.raises(InputError) as caught:  # the library names the parameter
        out_file_page(cut, "compare")
    assert "write it again with the command's out" in str(caught.value)
    assert "--" not in str(caught.value).removeprefix(str(cut))
    assert caught.value.params == ("out",)


def test_a_broken_header_is_called_the_header(tmp_path: Path) -> None:
    lines = _compare_out(tmp_path).read_text("utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([lines[0][:40], *lines[1:]]) + "\n", "utf-8")
    done = invoke("report", str(broken), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    assert f"{broken}:1: the header (line 1) is not JSON (" in done.stderr
    assert FIX in done.stderr


def test_a_via_scores_record_missing_an_answer_names_it(tmp_path: Path) -> None:
    out = tmp_path / "vs.jsonl"
    done = invoke("compare", str(EX / "calibration.jsonl"), "--via-scores", "--judge",
                  J + "scorer", "--out", str(out), "-q")  # fmt: skip
    assert done.exit_code == 0, done.output
    lines = out.read_text("utf-8").splitlines()
    record = json.loads(lines[1])
    del record["scored_1"]
    out.write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n", "utf-8")
    done = invoke("report", str(out), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    assert f"{out}:2:" in done.stderr
    assert "'scored_1' is missing" in done.stderr
    assert "a line must be a JSON object" not in done.stderr


def test_a_battles_file_points_to_rank(tmp_path: Path) -> None:
    battles = EX / "battles.jsonl"
    done = invoke("report", str(battles), "-o", str(tmp_path / "p.html"))
    assert done.exit_code == 2
    said = " ".join(done.stderr.split())
    assert "a battles file (model_a, model_b, winner), not a file written by --out" in said
    assert f"`fairjudge rank {battles} --html page.html`" in said
    assert "'calls' must be a non-empty list" not in done.stderr
