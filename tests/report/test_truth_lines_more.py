"""The known truth is said for every reading (QA 38 #10).

``compare --rounds 1`` dropped the "Known truth" line (terminal, page, Markdown),
though the labels could tell a single-order result pointing the wrong way.
"""

from __future__ import annotations

import html
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


def test_rounds_1_keeps_the_known_truth(tmp_path: Path) -> None:
    truth = (
        "Known truth, from the input's human labels: model 2 is better (model 1's win rate "
        "by the labels: 0.000, 20 items)."
    )
    wrong = "The single-order result (not debiased) points the other way"
    for text in _compare(DEMO, "first_position", tmp_path, "--rounds", "1"):
        assert truth in text
        assert wrong in text
    for text in _compare(DEMO, "knows_facts", tmp_path, "--rounds", "1"):
        assert "The single-order result (not debiased) found it." in text
