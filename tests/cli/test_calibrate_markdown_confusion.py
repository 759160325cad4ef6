"""``calibrate --markdown``: the confusion matrix is a Markdown table of counts.

It was drawn one aligned line a row, each line a single cell
(``| 1 11 0 1 |``), so the counts were not in cells and the header had one column.
Rows are the human labels, columns the judge's verdicts, as on the terminal and page.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from tests.cli._invoke import invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "src/fairjudge/examples"


def _matrix(text: str) -> list[list[str]]:
    """The aligned matrix the terminal and the page print: its head and rows, split."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("human\\judge"))
    return [lines[i].split() for i in range(start, start + 4)]


def test_the_confusion_matrix_is_a_table_with_the_same_counts(tmp_path: Path) -> None:
    md, page = tmp_path / "c.md", tmp_path / "c.html"
    result = invoke(
        "calibrate", str(EXAMPLES / "calibration.jsonl"),
        "--judge", "python:fairjudge.examples.judges:knows_facts",
        "--bootstrap", "50", "--markdown", str(md), "--html", str(page),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = md.read_text()
    head = "| human \\\\ judge | 1 | 2 | tie |"
    assert head in text, text
    lines = text.splitlines()
    at = lines.index(head)
    assert lines[at + 1] == "| --- | --- | --- | --- |"
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines[at + 2 : at + 5]]
    terminal = _matrix(result.output)
    shown = _matrix(re.sub(r"<[^>]+>", "", html.unescape(page.read_text())))
    assert terminal == shown
    assert rows == terminal[1:]
    assert [c for row in rows for c in row[1:]] != ["0"] * 9  # counts, not an empty matrix
    assert not any(re.fullmatch(r"\| *\w+( +\d+){3} *\|", line) for line in lines), text
