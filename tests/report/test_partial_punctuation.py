"""A partial run's page and Markdown end the stop's sentence once (QA 38 #16).

The stop reason ends in a full stop ("... (stored calls cost nothing)."); the
partial-result line went on after it: "(stored calls cost nothing).; 15 item(s) ...".
"""

from __future__ import annotations

import html
from pathlib import Path

from typer.testing import CliRunner

import fairjudge
from fairjudge.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "demo_pairs.jsonl")


@fairjudge.judge_function(name="stored-longer", version="1")
def stored(question: str, answer_a: str, answer_b: str) -> str:
    return "B" if len(answer_b) > len(answer_a) else "A"


def test_the_stop_sentence_ends_once(tmp_path: Path) -> None:
    page, md = tmp_path / "p.html", tmp_path / "p.md"
    result = CliRunner().invoke(
        app,
        ["compare", DEMO, "--judge", "python:tests.report.test_partial_punctuation:stored",
         "--store", str(tmp_path / "s.sqlite"), "--max-calls", "10", "--html", str(page),
         "--markdown", str(md), "-q"],
    )  # fmt: skip
    assert result.exit_code == 5, result.output
    for text in (" ".join(html.unescape(page.read_text()).split()), md.read_text()):
        assert "(stored calls cost nothing); 15 item(s) not yet judged are left out." in text
        assert ".;" not in text
