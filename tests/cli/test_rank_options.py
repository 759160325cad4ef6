"""``rank`` options: ``--l2`` reaches the leaderboard; ``--ties``, ``--anchor`` checked first.

``--ties`` and ``--anchor`` are checked before any call; ``-q`` silences the battles note.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli._invoke import ROOT, invoke


def test_rank_l2_reaches_the_leaderboard(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"model_a": "champ", "model_b": other, "winner": "model_a", "question_id": f"{other}{i}"}
        for other in ("x", "y")
        for i in range(3)
    ] + [{"model_a": "x", "model_b": "y", "winner": "tie", "question_id": "xy"}]
    path = str(write_jsonl(rows))
    unbeaten = invoke("rank", path, "--bootstrap", "20")
    # Issue 21: no longer exit 2; the fallback ridge is used and said, naming --l2.
    assert unbeaten.exit_code == 0, unbeaten.output
    assert "--l2 0.1" in unbeaten.output
    fitted = invoke("rank", path, "--bootstrap", "20", "--l2", "0.5", "--json")
    assert fitted.exit_code == 0, fitted.output
    ratings = {r["model"]: r["rating"] for r in json.loads(fitted.stdout)["ratings"]}
    assert ratings["champ"] > ratings["x"]


@pytest.mark.parametrize("bad", [["--ties", "bogus"], ["--anchor", "nobody"]])
def test_rank_options_are_checked_before_any_call(tmp_path: Path, bad: list[str]) -> None:
    calls = tmp_path / "calls"
    result = invoke(
        "rank", str(ROOT / "examples" / "rank_answers.jsonl"),
        "--judge", "python:tests.judge_fixtures:counting", *bad,
        env={"FAIRJUDGE_TEST_CALLS": str(calls)},
    )  # fmt: skip
    assert result.exit_code == 2
    assert bad[1] in result.output
    assert not calls.exists()


def test_quiet_silences_the_battles_note(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    rows = [{"model_a": "a", "model_b": "b", "winner": w} for w in ("model_a", "model_b", "tie")]
    result = invoke("rank", str(write_jsonl(rows)), "--bootstrap", "20", "-q", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    # No question ids: the bootstrap resamples battles, and says so.
    assert json.loads(result.stdout)["bootstrap"] == "battles"
