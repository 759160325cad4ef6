"""The demo tells the truth: known labels beside both readings."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "demo_pairs.jsonl")


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, ["compare", DEMO, *args])


def text(result) -> str:  # type: ignore[no-untyped-def]
    return " ".join(result.stdout.split())


def test_the_demo_set_puts_the_better_system_second() -> None:
    rows = [json.loads(line) for line in Path(DEMO).read_text().splitlines()]
    assert {r["human"] for r in rows} == {"2"}
    assert {r["model_2"] for r in rows} == {"assistant-v2"}


def test_a_position_biased_judge_is_caught_pointing_the_wrong_way() -> None:
    result = run("--judge", "python:examples.judges:first_position")
    assert result.exit_code == 0, result.output
    out = text(result)
    assert "Known truth, from the input's human labels: model 2 is better" in out
    assert "cannot tell them apart (its interval contains 0.5)" in out
    assert "would have pointed the wrong way (1.000)" in out


def test_a_good_judge_finds_the_truth() -> None:
    result = run("--judge", "python:examples.judges:knows_facts", "--json")
    assert result.exit_code == 0, result.output
    truth = json.loads(result.stdout)["known_truth"]
    assert truth == {"n": 20, "human_win_rate": 0.0, "debiased_agrees": True, "naive_agrees": True}
    table = run("--judge", "python:examples.judges:knows_facts")
    assert "The debiased result found it." in text(table)


def test_the_soft_rule_is_labelled_and_explained() -> None:
    result = run("--judge", "python:examples.judges:knows_facts", "--rule", "soft")
    out = text(result)
    assert "(debiased, soft:" in out  # the label wraps inside its table cell
    assert "mean of the labels, no" in out  # knows_facts gives labels, no probabilities
    assert "The judge gave no probabilities: under the soft rule each call counts" in out
    assert "items leaning to model 1 / even / 2" in out
    assert "soft rule: each item scores P(model 1 better)" in out
    plain = text(run("--judge", "python:examples.judges:knows_facts"))
    assert "soft rule:" not in plain
    assert "wins / ties / losses" in plain


def test_without_labels_the_gap_is_described_not_judged(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in Path(DEMO).read_text().splitlines()]
    path = tmp_path / "unlabelled.jsonl"
    path.write_text("".join(json.dumps({**r, "human": None}) + "\n" for r in rows))
    result = CliRunner().invoke(
        app, ["compare", str(path), "--judge", "python:examples.judges:first_position"]
    )
    out = text(result)
    assert "Known truth" not in out
    assert "gives 1.000 instead of 0.500: the gap is the judge's position bias" in out
