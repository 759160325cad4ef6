"""An interval containing 0.5 is not said to have found that neither is better (QA 38 #16).

On labels that say neither model is better, a result whose interval contains 0.5 was
said to have "found it", as if it showed there is no gap; it only takes no side.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo_pairs.jsonl"
J = "python:fairjudge.examples.judges:"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _compare(path: Path, judge: str, tmp_path: Path, *more: str) -> tuple[str, str, str]:
    page, md = tmp_path / "p.html", tmp_path / "p.md"
    result = CliRunner().invoke(
        app,
        ["compare", str(path), "--judge", J + judge, "--html", str(page), "--markdown",
         str(md), *more],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return _flat(result.stdout), _flat(html.unescape(page.read_text())), _flat(md.read_text())


def test_no_side_is_not_said_to_find_that_neither_is_better(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in DEMO.read_text().splitlines()]
    ties = tmp_path / "ties.jsonl"
    ties.write_text("".join(json.dumps({**r, "human": "tie"}) + "\n" for r in rows))
    for text in _compare(ties, "first_position", tmp_path):  # every item a tie: 0.5
        assert "Known truth, from the input's human labels: neither is better" in text
        assert "found it" not in text
        assert (
            "The debiased result takes no side either (its interval contains 0.5): consistent "
            "with the labels, though that alone does not show that neither is better."
        ) in text
