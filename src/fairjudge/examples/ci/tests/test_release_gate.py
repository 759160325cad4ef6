"""The release gate: the candidate checkpoint must not be worse than production.

``CANDIDATE`` names the checkpoint under test; its answers sit next to production's,
on the same questions, in ``answers/CANDIDATE.jsonl``. CI runs
``CANDIDATE=ckpt-8 pytest --fairjudge-replay``.
"""

import json
import os
from pathlib import Path

import pytest

CANDIDATE = os.environ.get("CANDIDATE", "ckpt-7")
ANSWERS = Path(__file__).parents[1] / "answers" / f"{CANDIDATE}.jsonl"


def test_candidate_is_not_worse_than_production(fairjudge_judge):
    """Model 2's win rate against production: its 95% CI's lower bound is above 0.4."""
    run = fairjudge_judge.compare(ANSWERS)
    run.assert_not_worse(margin=0.1)


def test_candidate_is_not_worse_judged_adaptively(fairjudge_judge):
    """The same, judging questions in batches until the answer is known.

    The interval asserted on is then the anytime-valid one the run stopped on.
    """
    run = fairjudge_judge.compare(ANSWERS, stop_when="decided", batch=6)
    run.assert_not_worse(margin=0.1)


@pytest.mark.fairjudge(judge="python:release_judge:scores")
def test_candidate_answers_are_accurate(fairjudge_judge):
    """The candidate's answers alone: the lower bound of the mean accuracy is above 3.5."""
    rows = [json.loads(line) for line in ANSWERS.read_text("utf-8").splitlines()]
    answers = [{"id": r["id"], "question": r["question"], "answer": r["answer_2"]} for r in rows]
    run = fairjudge_judge.score(answers, rubric="production")
    run.assert_mean_above("accuracy", 3.5)
