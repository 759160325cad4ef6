"""A result a budget stopped says so in its ``summary()``.

``compare``, ``score``, ``rank`` and ``calibrate`` stopped by ``max_calls`` printed the
figures of the judged part alone (a win rate of 1.000 on 5 of 20 items) with no word
that the run was partial; the command says "partial result" under its table.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import longer, scorer

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
BUDGET = {"max_calls": 10, "progress": "quiet"}
RUNS: list[tuple[Callable[..., Any], str, Any]] = [
    (fairjudge.compare, "demo_pairs.jsonl", longer),
    (fairjudge.score, "score_answers.jsonl", scorer),
    (fairjudge.rank, "rank_answers.jsonl", longer),
    (fairjudge.calibrate, "calibration.jsonl", longer),
]


@pytest.mark.parametrize(("run", "items", "judge"), RUNS)
def test_a_budget_stop_is_in_the_summary(run: Callable[..., Any], items: str, judge: Any) -> None:
    result = run(str(EXAMPLES / items), judge, options=BUDGET)
    assert result.stopped is not None
    summary = result.summary()
    assert result.stopped in summary
    assert summary.count(result.stopped) == 1


def test_a_whole_run_says_nothing_of_a_stop() -> None:
    result = fairjudge.compare(str(EXAMPLES / "demo_pairs.jsonl"), longer)
    assert result.stopped is None
    assert "partial" not in result.summary()
