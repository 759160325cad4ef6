"""``make_pairs``: a pairing option the chosen pairing does not read is an error.

``baseline`` is read by ``pairing="baseline"`` only and ``pairs_per_question`` by
``pairing="sample"`` only; given with another pairing they changed nothing, and
``fairjudge rank --baseline gpt-4`` (without ``--pairing baseline``) judged every pair
as if the flag had not been given.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairjudge import ConfigError
from fairjudge.cli import app
from fairjudge.evaluation import LongAnswers, make_pairs

DATA = LongAnswers(
    answers={q: {m: f"{m}-{q}" for m in ("a", "b", "c")} for q in ("q1", "q2")},
    questions={"q1": "q1", "q2": "q2"},
)
EXAMPLE = (
    Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples" / "rank_answers.jsonl"
)


@pytest.mark.parametrize("pairing", ["all", "sample"])
def test_baseline_without_baseline_pairing_is_refused(pairing: str) -> None:
    with pytest.raises(ConfigError, match="baseline applies with pairing='baseline' only") as e:
        make_pairs(DATA, pairing=pairing, baseline="a")  # type: ignore[arg-type]
    assert e.value.params == ("baseline", "pairing")


@pytest.mark.parametrize("pairing", ["all", "baseline"])
def test_pairs_per_question_without_sample_pairing_is_refused(pairing: str) -> None:
    with pytest.raises(
        ConfigError, match="pairs_per_question applies with pairing='sample' only"
    ) as e:
        make_pairs(DATA, pairing=pairing, baseline="a" if pairing == "baseline" else None,  # type: ignore[arg-type]
                   pairs_per_question=2)  # fmt: skip
    assert e.value.params == ("pairs_per_question", "pairing")


def test_each_pairing_still_takes_its_own_option() -> None:
    assert len(make_pairs(DATA, pairing="baseline", baseline="a")) == 4
    assert len(make_pairs(DATA, pairing="sample", pairs_per_question=2)) == 4
    assert len(make_pairs(DATA)) == 6


def test_rank_command_names_the_flags() -> None:
    result = CliRunner().invoke(app, [
        "rank", str(EXAMPLE), "--judge", "python:fairjudge.examples.judges:longer",
        "--baseline", "alpha",
    ])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "--baseline applies with --pairing 'baseline' only" in result.output
