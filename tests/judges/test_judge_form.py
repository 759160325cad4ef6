"""A Python judge of the wrong kind is refused before its first call.

Before: a pairwise function given to ``score`` (or a pointwise one to ``compare``) was
called once per request, each call failing with ``TypeError: missing 1 required
positional argument``, and the run ended with exit 4 after every call was made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge import ConfigError
from fairjudge.judges import CallableJudge, CallablePointwiseJudge
from tests.cli_process import fairjudge as run_cli
from tests.cli_process import flat

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "fairjudge" / "examples"
PAIRS = [{"id": "a", "question": "q", "answer_1": "a longer one", "answer_2": "short"}]
ANSWERS = [{"id": "a", "question": "q", "answer": "an answer"}]
CALLS: list[str] = []


def pairwise(question: str, answer_a: str, answer_b: str) -> str:
    CALLS.append(question)
    return "A"


def pointwise(question: str, answer: str) -> dict[str, int]:
    CALLS.append(question)
    return {"accuracy": 3, "relevance": 3, "usefulness": 3}


def with_reference(question: str, answer: str, *, reference: str | None = None) -> dict[str, int]:
    return {"accuracy": 3, "relevance": 3, "usefulness": 3}


def three_words(a: str, b: str, c: str, d: str) -> str:
    return "A"


class Gateway:
    """An object judge: its ``judge`` method is what is called."""

    def judge(self, question: str, answer: str) -> dict[str, int]:
        return {"accuracy": 3, "relevance": 3, "usefulness": 3}


def test_each_kind_refuses_the_other_kinds_function() -> None:
    with pytest.raises(ConfigError) as caught:
        CallableJudge(pointwise, name="mine")
    assert str(caught.value) == (
        "judge 'mine' takes (question, answer): a pointwise judge, which scores "
        "single answers (fairjudge score reads it); this run compares two answers and calls "
        "judge(question, answer_a, answer_b): give a judge of that form"
    )
    with pytest.raises(ConfigError, match="takes \\(question, answer_a, answer_b\\): a pairwise"):
        CallablePointwiseJudge(pairwise)
    with pytest.raises(ConfigError, match="takes \\(question, answer\\): a pointwise judge"):
        CallableJudge(Gateway())
    with pytest.raises(ConfigError, match="takes \\(question, answer, reference\\): a pointwise"):
        CallableJudge(with_reference)
    with pytest.raises(ConfigError, match="takes \\(a, b, c, d\\); this run compares"):
        CallableJudge(three_words)


def test_a_judge_of_its_kind_and_one_without_a_signature_are_taken() -> None:
    CallableJudge(pairwise)
    CallableJudge(lambda *args: "A")
    CallablePointwiseJudge(pointwise)
    CallablePointwiseJudge(with_reference)
    CallablePointwiseJudge(Gateway())
    CallableJudge(max)  # a builtin: no signature to read, its calls tell


def test_notebook_runs_refuse_the_other_kind_before_any_call() -> None:
    CALLS.clear()
    with pytest.raises(ConfigError, match="a pointwise judge"):
        fairjudge.compare(PAIRS, pointwise)
    with pytest.raises(ConfigError, match="a pairwise judge"):
        fairjudge.score(ANSWERS, pairwise)
    assert CALLS == []


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (("score", EXAMPLES / "score_answers.jsonl", "--judge",
          "python:fairjudge.examples.judges:longer"), "a pairwise judge"),
        (("compare", EXAMPLES / "demo_pairs.jsonl", "--judge",
          "python:fairjudge.examples.judges:scorer"), "a pointwise judge"),
        (("jury", EXAMPLES / "demo_pairs.jsonl", "--judge",
          "python:fairjudge.examples.judges:longer", "--judge",
          "python:fairjudge.examples.judges:scorer"), "a pointwise judge"),
    ],
    ids=["score", "compare", "jury"],
)  # fmt: skip
def test_the_command_line_exits_2_before_any_call(args: tuple[Any, ...], kind: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert kind in flat(done.stderr)
    assert "done:" not in done.stderr  # no progress line: nothing was judged
