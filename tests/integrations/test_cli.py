"""``inspect eval`` as a process, on a task file scored by fairjudge's pairwise scorer.

The task file is what a user writes: a dataset, ``generate()``, and
``pairwise_scorer``. The models are Inspect's ``mockllm/model``: the command line
names it with ``--model``, and the task binds the mock's scripted outputs (the mock's
default output carries no token usage, and counting it would download a tokenizer).
The judge writes each call it sees to a file, so the test can check the two orders.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "inspect_ai", reason="needs the inspect extra: pip install 'fairjudge[inspect]'"
)

from inspect_ai.log import list_eval_logs, read_eval_log

ROOT = Path(__file__).resolve().parents[2]

TASK = """
import json, os
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.solver import generate
from fairjudge.integrations.inspect import pairwise_scorer
from tests.integrations.scripted import PairJudge, answering

OUTPUTS = {"Capital of France?": "Paris, on the Seine.", "Largest planet?": "Mars",
           "Boiling point of water at sea level?": "100 C, at one atmosphere.",
           "Colour of the sky?": "Blue."}
BASELINES = {"Capital of France?": "Paris", "Largest planet?": "Jupiter, by far.",
             "Boiling point of water at sea level?": "100 C",
             "Colour of the sky?": "Usually blue."}
judge = PairJudge(rules={"Colour of the sky?": "garbage-swapped"})

def recorded(messages, *rest):
    reply = judge(messages, *rest)
    seen = judge.calls[-1]
    with open(os.environ["JUDGE_CALLS"], "a", encoding="utf-8") as f:
        f.write(json.dumps([seen.question, seen.answer_a, seen.answer_b]) + "\\n")
    return reply

@task
def against_baseline():
    return Task(
        dataset=[Sample(input=q, target=BASELINES[q]) for q in OUTPUTS],
        solver=generate(),
        scorer=pairwise_scorer(get_model("mockllm/model", custom_outputs=recorded)),
        model=get_model("mockllm/model", custom_outputs=answering(OUTPUTS)),
    )
"""


def inspect_command() -> list[str]:
    script = Path(sys.executable).with_name("inspect")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "inspect_ai"]


@pytest.mark.slow
def test_inspect_eval_on_the_command_line_scores_with_fairjudge(tmp_path: Path) -> None:
    task_file = tmp_path / "against_baseline.py"
    task_file.write_text(TASK, encoding="utf-8")
    calls_file = tmp_path / "judge_calls.jsonl"
    env = {**os.environ, "JUDGE_CALLS": str(calls_file), "PYTHONPATH": str(ROOT)}
    logs = tmp_path / "logs"
    done = subprocess.run(
        [*inspect_command(), "eval", task_file.name, "--model", "mockllm/model",
         "--log-dir", str(logs), "--display", "plain"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    [info] = list_eval_logs(str(logs))
    log = read_eval_log(info)
    assert log.status == "success"
    assert log.eval.model == "mockllm/model"
    scores = {s.input: s.scores["pairwise_scorer"] for s in log.samples or [] if s.scores}
    assert scores["Capital of France?"].value == 1.0
    assert scores["Largest planet?"].value == 0.0
    assert scores["Boiling point of water at sea level?"].value == 1.0
    unscored = scores["Colour of the sky?"]
    assert isinstance(unscored.value, float)
    assert math.isnan(unscored.value)
    assert unscored.reason == "grader_failed"
    assert log.results is not None
    [result] = log.results.scores
    assert (result.scored_samples, result.unscored_samples) == (3, 1)
    assert result.metrics["win_rate"].value == pytest.approx(2 / 3)
    seen = [json.loads(line) for line in calls_file.read_text(encoding="utf-8").splitlines()]
    assert len(seen) == 8  # two calls per sample, the unscored one included
    for question, answer_a, answer_b in seen:
        assert [question, answer_b, answer_a] in seen  # each pair also shown swapped
