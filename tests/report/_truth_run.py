"""Run ``compare`` on a file and read its three outputs flat, for the known-truth tests."""

from __future__ import annotations

import html
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo_pairs.jsonl"
J = "python:fairjudge.examples.judges:"


def flat(text: str) -> str:
    """The text with every run of whitespace one space (the terminal wraps its lines)."""
    return " ".join(text.split())


def compare_outputs(path: Path, judge: str, tmp_path: Path, *more: str) -> tuple[str, str, str]:
    """``compare PATH --judge python:...JUDGE``: its stdout, page text and Markdown, flat."""
    page, md = tmp_path / "p.html", tmp_path / "p.md"
    result = CliRunner().invoke(
        app,
        ["compare", str(path), "--judge", J + judge, "--html", str(page), "--markdown",
         str(md), *more],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return flat(result.stdout), flat(html.unescape(page.read_text())), flat(md.read_text())
