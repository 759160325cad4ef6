"""Rows set aside by ``--skip-invalid`` stay in the run's record: ``--out`` and ``report``.

The ``--out`` header lists them (``skipped_rows``, as the run's ``--json``), so
``fairjudge report`` of the file says what the run said: its ``--json`` lists the same
rows and its page the same lines. Before, the header kept no trace of them and
``report`` summarised a file of 21 rows as a clean run of 20 (QA40 F11). A run that set
no row aside writes no ``skipped_rows`` key: its file is as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_skipped_rows_words import ADVICE, COMMANDS, EXAMPLES, EXIT, _input
from tests.cli_process import fairjudge


def _header(path: Path) -> dict[str, object]:
    with path.open(encoding="utf-8") as fh:
        header = json.loads(fh.readline())["fairjudge"]
    assert isinstance(header, dict)
    return header


@pytest.mark.parametrize("name", list(COMMANDS))
def test_report_of_the_out_file_lists_the_rows_the_run_set_aside(tmp_path: Path, name: str) -> None:
    kind, *args = COMMANDS[name]
    path, out, page = _input(tmp_path, kind), tmp_path / "out.jsonl", tmp_path / "again.html"
    done = fairjudge(*args[:1], path, *args[1:], "--skip-invalid", "--json", "--out", out)
    assert done.returncode == EXIT.get(name, 0), done.stderr
    skipped = json.loads(done.stdout)["skipped_rows"]
    assert len(skipped) == 1
    assert skipped[0]["message"].endswith(ADVICE)
    assert _header(out)["skipped_rows"] == skipped
    again = fairjudge("report", out, "--json", "-o", page)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["skipped_rows"] == skipped
    if name in ("compare", "calibrate", "score"):  # the failures card lists the row
        assert f"{path}:{skipped[0]['line']}: " in page.read_text(encoding="utf-8")


def test_a_run_that_set_no_row_aside_writes_no_key(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    done = fairjudge("compare", EXAMPLES / "demo_pairs.jsonl", *COMMANDS["compare"][2:],
                     "--skip-invalid", "--out", out)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "skipped_rows" not in _header(out)
    again = fairjudge("report", out, "--json")
    assert json.loads(again.stdout)["skipped_rows"] == []
