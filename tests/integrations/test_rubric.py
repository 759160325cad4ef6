"""The rubric scorer in a real ``inspect_ai.eval`` run, judged by Inspect's mock model."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

pytest.importorskip(
    "inspect_ai", reason="needs the inspect extra: pip install 'fairjudge[inspect]'"
)

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ModelOutput, get_model
from inspect_ai.solver import generate

from fairjudge.integrations.inspect import rubric_scorer
from tests.integrations.quiet import QUIET
from tests.integrations.scripted import answering, block, output

pytestmark = QUIET

OUTPUTS = {"Why is the sky blue?": "Rayleigh scattering.", "What is 3*3?": "9", "Say hi.": "hi"}
REPLIES = {  # the judge's reply per question, on the "basic" rubric (1-10, three dimensions)
    "Why is the sky blue?": {"accuracy": 9, "relevance": 8, "clarity": 7, "reason": "terse"},
    "What is 3*3?": {"accuracy": 10, "relevance": 10, "clarity": 9, "reason": "right"},
    "Say hi.": {"accuracy": 9, "relevance": 11, "clarity": 9, "reason": "off the scale"},
}


def test_dimension_means_and_an_off_scale_reply_left_unscored(tmp_path: Path) -> None:
    asked: list[tuple[str, str]] = []

    def judge(messages: list[ChatMessage], *_: object) -> ModelOutput:
        prompt = messages[-1].text
        question, answer = block(prompt, "question"), block(prompt, "answer")
        asked.append((question, answer))
        return output(json.dumps(REPLIES[question]))

    task = Task(
        dataset=[Sample(input=q, id=i) for i, q in enumerate(OUTPUTS, 1)],
        solver=generate(),
        scorer=rubric_scorer(
            "basic", get_model("mockllm/model", custom_outputs=judge, memoize=False)
        ),
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=answering(OUTPUTS), memoize=False),
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert sorted(asked) == sorted(OUTPUTS.items())  # one call per answer, on that answer
    scores = {s.id: s.scores["rubric_scorer"] for s in log.samples or [] if s.scores}
    assert scores[1].value == {"accuracy": 9, "relevance": 8, "clarity": 7}
    assert scores[1].explanation == "accuracy 9, relevance 8, clarity 7. terse"
    assert scores[1].metadata is not None
    assert scores[1].metadata["rubric"] == "basic"
    failed = scores[3]
    assert isinstance(failed.value, float)
    assert math.isnan(failed.value)
    assert failed.reason == "grader_failed"
    assert "relevance" in (failed.explanation or "")
    assert failed.metadata is not None
    assert json.loads(failed.metadata["raw"]) == REPLIES["Say hi."]
    assert log.results is not None
    by_dimension = {(s.name, n): m.value for s in log.results.scores for n, m in s.metrics.items()}
    assert by_dimension[("accuracy", "mean")] == pytest.approx(9.5)
    assert by_dimension[("clarity", "mean")] == pytest.approx(8.0)
    assert {s.unscored_samples for s in log.results.scores} == {1}
