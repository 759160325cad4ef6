"""``fairjudge jury`` takes its members from --judge or from --jury FILE, and says which.

Given neither, the message names both ways; given both, it says "not both", as
score-jury does (it said the same as for neither, which reads as if one were missing).
"""

from __future__ import annotations

from pathlib import Path

from tests.cli._invoke import invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
LONGER = "python:fairjudge.examples.judges:longer"


def test_both_says_not_both_and_neither_names_the_two_ways(tmp_path: Path) -> None:
    panel = tmp_path / "panel.toml"
    panel.write_text(f'[[member]]\njudge = "{LONGER}"\n[[member]]\njudge = "{LONGER}"\n')
    items = str(EXAMPLES / "demo_pairs.jsonl")
    done = invoke("jury", items, "--jury", str(panel), "--judge", LONGER)
    assert done.exit_code == 2
    assert "error: give the members with --judge (twice or more) or --jury FILE.toml, " \
           "not both" in done.stderr  # fmt: skip
    done = invoke("jury", items)
    assert done.exit_code == 2
    assert done.stderr.strip().endswith(
        "error: give the members with --judge (twice or more) or --jury FILE.toml"
    )
