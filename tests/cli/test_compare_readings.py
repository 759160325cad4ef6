"""compare says what its figures are read from, in every output (QA 41b #1, #9, #14).

- ``--rule soft`` over calls without probabilities: the table, the Markdown and
  ``--json`` (``soft_reading``) all say the win rate is a mean of labels.
- One question: the known-truth line says the result has no interval, not that its
  interval contains 0.5; "1 item", not "1 items".
- An exit 4 prints no "next: `fairjudge calibrate`" hint; an always-tie judge's
  first-position cell says why it is n/a.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairjudge.cli import app
from tests.report.test_soft_unmeasured import label_only

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo_pairs.jsonl"
HERE = "python:tests.cli.test_compare_readings"
SOFT = "python:tests.report.test_soft_unmeasured"  # label_only, with_probabilities, sometimes
WIDE = {"COLUMNS": "250"}  # the table's labels on one line


def always_a(question: str, answer_a: str, answer_b: str) -> str:
    return "A"


def always_tie(question: str, answer_a: str, answer_b: str) -> str:
    return "tie"


def fails_on_australia(question: str, answer_a: str, answer_b: str) -> str:
    if "capital of Australia" in question:
        raise RuntimeError("server said no")
    return label_only(question, answer_a, answer_b)


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["compare", *args], env=WIDE)
    return result.exit_code, " ".join(result.output.split())


def _json(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["compare", *args, "--json"])
    assert result.exit_code == 0, result.output
    payload: dict[str, Any] = json.loads(result.stdout)
    return payload


@pytest.mark.parametrize(
    ("judge", "source", "label"),
    [
        ("label_only", "labels", "mean of the labels, no probabilities"),
        ("with_probabilities", "probabilities", "mean P(model 1 better)"),
        ("sometimes", "mixed", "mean P(model 1 better); 38 of 40 calls by label"),
    ],
)
def test_soft_reading_agrees_in_text_markdown_and_json(
    judge: str, source: str, label: str, tmp_path: Path
) -> None:
    md = tmp_path / "r.md"
    args = (str(DEMO), "--judge", f"{SOFT}:{judge}", "--rule", "soft")
    code, text = _run(*args, "--markdown", str(md))
    assert code == 0, text
    assert f"(debiased, soft: {label})" in text
    assert f"(debiased, soft rule: {label})" in md.read_text()
    assert _json(*args)["soft_reading"] == source


def test_soft_reading_of_the_conservative_runs_soft_figure() -> None:
    """With probabilities, the conservative run shows the soft rule beside it: said too."""
    payload = _json(str(DEMO), "--judge", f"{SOFT}:sometimes")
    assert "soft" in payload["alternative_rules"]
    assert payload["soft_reading"] == "mixed"
    plain = _json(str(DEMO), "--judge", f"{SOFT}:label_only")
    assert "soft_reading" not in plain  # no soft figure, nothing to say


def _one_question(tmp_path: Path) -> Path:
    one = tmp_path / "one.jsonl"
    one.write_text(DEMO.read_text().splitlines()[0] + "\n")
    return one


def test_one_question_has_no_interval_rather_than_one_containing_half(tmp_path: Path) -> None:
    one, md = _one_question(tmp_path), tmp_path / "one.md"
    code, text = _run(str(one), "--judge", f"{HERE}:always_a", "--markdown", str(md))
    assert code == 0, text
    for out in (text, " ".join(md.read_text().split())):
        assert "contains 0.5" not in out
        assert "1 items" not in out
        assert "by the labels: 0.000, 1 item)." in out
        assert (
            "The debiased result has no interval (one question: the bootstrap cannot vary): "
            "no conclusion, rather than a wrong one."
        ) in out


def test_no_next_step_after_an_exit_4() -> None:
    args = (str(DEMO), "--judge", f"{HERE}:fails_on_australia", "--max-unresolved", "0")
    code, text = _run(*args)
    assert code == 4, text
    assert "win rate of model 1 (debiased)" in text  # a result, which does not stand
    assert "next:" not in text
    code, text = _run(str(DEMO), "--judge", f"{HERE}:fails_on_australia")
    assert code == 0, text
    assert "next: `fairjudge calibrate` checks this judge against human labels" in text


def test_an_always_tie_judge_first_position_cell_says_why() -> None:
    code, text = _run(str(DEMO), "--judge", f"{HERE}:always_tie")
    assert code == 0, text
    assert (
        "calls choosing the first position │ n/a: no call gave a decisive verdict (A or B)" in text
    )
