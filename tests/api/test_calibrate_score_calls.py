"""``calibrate`` on rubric scores reports calls as ``score`` does.

A Python scorer's calls are ``null`` in ``score --json`` (and in a report rebuilt from
its ``--out`` file); ``calibrate --json`` on the same scorer said the same until the
scorer's run was kept on ``Result.calls`` for the pytest plugin, which turned the
``calls`` of ``calibrate --json`` into a block. ``Result.calls`` keeps the run.
"""

from __future__ import annotations

import json
from pathlib import Path

import fairjudge
from fairjudge.runner import RunSummary

ANSWERS = Path(fairjudge.__file__).parent / "examples" / "score_answers.jsonl"


def test_python_scorer_calls_are_null_as_in_score(tmp_path: Path) -> None:
    labelled = tmp_path / "labelled.jsonl"
    rows = [json.loads(line) for line in ANSWERS.read_text(encoding="utf-8").splitlines()]
    for i, row in enumerate(rows):
        row["human_accuracy"] = 5 if row["system"] == "assistant-v2" else 1 + i % 3
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    judge = "python:fairjudge.examples.judges:scorer"
    card = fairjudge.calibrate(str(labelled), judge, rubric="production")
    assert card.to_dict()["calls"] is None
    assert card.to_dict()["calls"] == fairjudge.score(str(labelled), judge).to_dict()["calls"]
    assert isinstance(card.calls, RunSummary)
    assert card.calls.made == len(rows)
