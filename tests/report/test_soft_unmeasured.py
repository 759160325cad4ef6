"""The soft rule never passes a label off as a measured probability (QA 38 #3).

A call without probabilities counts as its label (1, ½, 0) under the soft rule; the
win rate is then a mean of labels, and the table, the terminal's notes, the page and
the Markdown say so. The number itself is unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "demo_pairs.jsonl")
HERE = "python:tests.report.test_soft_unmeasured"


def label_only(question: str, answer_a: str, answer_b: str) -> str:
    return "B" if len(answer_b) > len(answer_a) else "A"


def with_probabilities(question: str, answer_a: str, answer_b: str) -> dict[str, float]:
    return {"A": 0.7, "B": 0.2, "tie": 0.1}


def sometimes(question: str, answer_a: str, answer_b: str) -> object:
    """Probabilities on the first question's calls only: 2 of 40 calls have them."""
    if "capital of Australia" in question:
        return {"A": 0.7, "B": 0.2, "tie": 0.1}
    return label_only(question, answer_a, answer_b)


def _compare(judge: str, tmp_path: Path, *more: str) -> tuple[str, str, str]:
    page, md = tmp_path / "p.html", tmp_path / "p.md"
    result = CliRunner().invoke(
        app,
        ["compare", DEMO, "--judge", f"{HERE}:{judge}", "--rule", "soft", "--html",
         str(page), "--markdown", str(md), *more],
        env={"COLUMNS": "250"},  # the table's label on one line
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split()), page.read_text(), md.read_text()


def test_label_only_calls_are_said_to_be_labels(tmp_path: Path) -> None:
    out, page, md = _compare("label_only", tmp_path)
    assert "mean P(model 1 better)" not in out
    assert "soft: mean of the labels, no probabilities)" in out
    note = (
        "The judge gave no probabilities: under the soft rule each call counts as its "
        "label (model 1 better 1, tie ½, model 2 better 0), so this win rate is a mean "
        "of labels, not a probability the judge reported."
    )
    assert note in out
    assert "0.900 [0.750, 1.000]" in out  # the number is the soft rule's, unchanged
    for text in (page, md):
        assert "mean P(model 1 better)" not in text
        assert "soft rule: mean of the labels, no probabilities" in text
        assert note in " ".join(text.split())


def test_some_calls_without_probabilities_are_counted(tmp_path: Path) -> None:
    out, page, md = _compare("sometimes", tmp_path)
    assert "mean P(model 1 better); 38 of 40 calls by label)" in out
    note = (
        "38 of 40 calls gave no probabilities: under the soft rule each of those counts "
        "as its label (model 1 better 1, tie ½, model 2 better 0), not as a probability "
        "the judge reported."
    )
    assert note in out
    for text in (page, md):
        assert "mean P(model 1 better); 38 of 40 calls by label" in text
        assert note in " ".join(text.split())


def test_measured_probabilities_keep_their_label(tmp_path: Path) -> None:
    out, page, md = _compare("with_probabilities", tmp_path)
    assert "soft: mean P(model 1 better))" in out
    assert "calls by label" not in out
    assert "no probabilities" not in out
    for text in (page, md):
        assert "soft rule: mean P(model 1 better)" in text
        assert "no probabilities" not in text


def test_the_numbers_do_not_change(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["compare", DEMO, "--judge", f"{HERE}:label_only", "--rule", "soft", "--json"]
    )
    assert result.exit_code == 0, result.output
    win = json.loads(result.stdout)["win_rate"]
    assert (win["estimate"], win["wins"], win["ties"], win["losses"]) == (0.9, 18, 0, 2)
