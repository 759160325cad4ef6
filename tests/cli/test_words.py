"""Words a user can act on, checked on the command line as a process.

Before: ``fairjudge rubrics`` described rubrics as "Seed 003's production judge";
``--temperature`` help named ``--rounds`` on commands that have none; a bad choice
read "Value error, 'sofft' is not one of ..."; ``--max-cost`` without prices advised
``prices=Prices(...)``, library advice. (The audit table and its progress lines:
``tests/audit/test_audit_words.py``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_process import fairjudge, flat

ROOT = Path(__file__).resolve().parents[2]


def test_rubrics_say_what_each_rubric_does_not_where_it_came_from() -> None:
    done = fairjudge("rubrics", columns=80)
    assert done.returncode == 0, done.stderr
    assert "seed" not in done.stdout.lower()
    assert "production (default)" in done.stdout
    one = fairjudge("rubrics", "production")
    assert flat(one.stdout).startswith(
        "production@1: scale 1-5. Accuracy, relevance, usefulness, 1-5; length does not count; "
        "3 = meets expectations."
    )
    for name in ("production", "basic", "strict", "anti-verbose"):
        one = fairjudge("rubrics", name)
        assert one.returncode == 0, one.stderr
        assert "seed" not in one.stdout.lower(), name


@pytest.mark.parametrize("command", ["score", "rank", "audit", "score-jury"])
def test_temperature_help_names_no_rounds_where_there_are_none(command: str) -> None:
    done = fairjudge(command, "--help")
    assert done.returncode == 0, done.stderr
    assert "--rounds" not in done.stdout
    assert "Sampling temperature of every call. [default: the backend's, 0]" in flat(done.stdout)


@pytest.mark.parametrize("command", ["compare", "calibrate", "jury"])
def test_temperature_help_names_rounds_where_they_are(command: str) -> None:
    done = fairjudge(command, "--help")
    assert done.returncode == 0, done.stderr
    assert "[default: the backend's, 0; 0.7 with --rounds above 2]" in flat(done.stdout)


def test_a_bad_choice_is_said_without_value_error() -> None:
    done = fairjudge("compare", "examples/demo_pairs.jsonl", "--rule", "sofft")
    assert done.returncode == 2
    assert done.stdout == ""
    assert (
        "Invalid value for '--rule': 'sofft' is not one of 'conservative', 'lenient', 'soft'."
        in done.stderr
    )
    assert "Value error" not in done.stderr
    mode = fairjudge("score", "examples/score_answers.jsonl", "--mode", "nope")
    assert mode.returncode == 2
    assert "Invalid value for '--mode': 'nope' is not one of 'json', 'label'." in mode.stderr
    assert "Value error" not in mode.stderr


def test_max_cost_without_prices_names_the_flags() -> None:
    done = fairjudge(
        "compare", "examples/demo_pairs.jsonl", "--judge", "openai/some-model",
        "--base-url", "http://127.0.0.1:9/v1", "--max-cost", "1",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == (
        "error: --max-cost needs prices: give --price-input and --price-output (dollars per "
        "million input and output tokens); fairjudge's list prices (2025-11-01) do not name "
        "openai/some-model"
    )
