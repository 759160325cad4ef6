"""Rows set aside by ``skip_invalid=True`` are named, summarised and saved (QA40 F11).

In-memory rows are named ``<rows>`` (line N counts rows from 1), as an error about them
is, not by the private file they were spooled to (deleted once read). ``summary()``
says how many rows were set aside, and ``save()`` records them in the header, from
which ``fairjudge report`` lists them again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import longer, scorer
from fairjudge.io import read_header
from fairjudge.report import out_file_header, out_file_page

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
QUIET = {"progress": "quiet"}


def _rows(name: str, column: str) -> list[dict[str, Any]]:
    """The example file's rows, rows 3 and 6 with ``column`` emptied."""
    lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    rows[2][column], rows[5][column] = "", "  "
    return rows


def _compare() -> fairjudge.Result:
    return fairjudge.compare(_rows("demo_pairs.jsonl", "answer_1"), longer, skip_invalid=True,
                             options=QUIET)  # fmt: skip


def _score() -> fairjudge.Result:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(_rows("score_answers.jsonl", "answer"))
    return fairjudge.score(frame, scorer, skip_invalid=True, options=QUIET)


@pytest.mark.parametrize("run", [_compare, _score], ids=["compare-rows", "score-frame"])
def test_rows_set_aside_are_named_summarised_and_saved(tmp_path: Path, run: Any) -> None:
    done = run()
    skipped = done.to_dict()["skipped_rows"]
    assert [(r["source"], r["line"]) for r in skipped] == [("<rows>", 3), ("<rows>", 6)]
    assert all("allow_empty=True" in r["message"] for r in skipped)
    assert done.summary().endswith("\nrows set aside: 2 (skipped_rows)")
    out = done.save(tmp_path / "run.jsonl")
    header = out_file_header(out)
    assert header is not None
    assert [dict(r) for r in header.skipped_rows] == skipped
    page = out_file_page(out, header.kind)
    assert page.summary["skipped_rows"] == skipped
    assert any("<rows>:6: " in str(section) for section in page.sections)


def test_a_run_with_no_row_set_aside_says_nothing_of_them(tmp_path: Path) -> None:
    done = fairjudge.compare(str(EXAMPLES / "demo_pairs.jsonl"), longer, skip_invalid=True,
                             options=QUIET)  # fmt: skip
    assert "set aside" not in done.summary()
    out = done.save(tmp_path / "run.jsonl")
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert "skipped_rows" not in first["fairjudge"]


@pytest.mark.parametrize("value", [None, "rows", {"line": 1}, [1, "x"]])
def test_a_header_whose_skipped_rows_are_no_list_of_records_reads_as_none(value: Any) -> None:
    body = {"kind": "compare", "schema_version": 1, "skipped_rows": value}
    header = read_header({"fairjudge": body}, path="f.jsonl")
    assert header is not None
    assert header.skipped_rows == ()
