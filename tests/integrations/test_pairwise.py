"""The pairwise scorer in a real ``inspect_ai.eval`` run, judged by Inspect's mock model.

Four samples, each with its own lesson: a win, a loss, a judge that only ever says
``A`` (position bias: the swap turns it into a tie), and a judge whose reply to the
swapped order holds no verdict (the sample is unscored, not a tie).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip(
    "inspect_ai", reason="needs the inspect extra: pip install 'fairjudge[inspect]'"
)

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.solver import generate

from fairjudge import ConfigError, Order, Reply, Resolution, Verdict, debiased_verdict
from fairjudge._items import Call
from fairjudge.integrations.inspect import pair_score, pairwise_scorer
from tests.integrations.quiet import QUIET
from tests.integrations.scripted import PairJudge, answering

pytestmark = QUIET

WIN, LOSS, BIASED, GARBLED = (
    "What is the capital of France?",
    "What is 2+2?",
    "Name a primary colour.",
    "Is water wet?",
)
OUTPUTS = {
    WIN: "Paris is the capital of France.",
    LOSS: "4",
    BIASED: "Red, for one.",
    GARBLED: "Yes, it is.",
}
BASELINES = {WIN: "Paris", LOSS: "2 + 2 = 4: four.", BIASED: "Blue is one.", GARBLED: "Mostly."}
RULES = {BIASED: "first", GARBLED: "garbage-swapped"}


def run(tmp_path: Path, judge: PairJudge, **scorer_args: object) -> EvalLog:
    samples = [Sample(input=q, target=BASELINES[q], id=i) for i, q in enumerate(OUTPUTS, 1)]
    task = Task(dataset=samples, solver=generate(), scorer=pairwise_scorer(**scorer_args))
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=answering(OUTPUTS), memoize=False),
        model_roles={"grader": get_model("mockllm/model", custom_outputs=judge, memoize=False)},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_each_sample_is_judged_twice_with_the_answers_swapped(tmp_path: Path) -> None:
    judge = PairJudge(rules=RULES)
    run(tmp_path, judge)
    assert len(judge.calls) == 2 * len(OUTPUTS)
    for question, output in OUTPUTS.items():
        first, second = judge.calls_on(question)
        assert (first.answer_a, first.answer_b) == (output, BASELINES[question])
        assert (second.answer_a, second.answer_b) == (BASELINES[question], output)


def test_scores_metrics_and_the_unscored_parse_failure(tmp_path: Path) -> None:
    log = run(tmp_path, PairJudge(rules=RULES))
    scores = {s.id: s.scores["pairwise_scorer"] for s in log.samples or []}
    assert [scores[i].value for i in (1, 2, 3)] == [1.0, 0.0, 0.5]
    assert [scores[i].answer for i in (1, 2, 3)] == ["win", "loss", "tie"]
    assert [scores[i].metadata["consistent"] for i in (1, 2, 3)] == [True, True, False]
    failed = scores[4]
    assert isinstance(failed.value, float)
    assert math.isnan(failed.value)
    assert failed.reason == "grader_failed"
    assert "swapped order held no readable verdict" in (failed.explanation or "")
    [result] = log.results.scores if log.results else []
    assert (result.scored_samples, result.unscored_samples) == (3, 1)
    metrics = {name: m.value for name, m in result.metrics.items()}
    assert metrics["win_rate"] == pytest.approx(0.5)  # (1 + 0 + ½) / 3: no tie for the failure
    assert metrics["position_consistency"] == pytest.approx(2 / 3)
    assert 0.0 <= metrics["win_rate_ci_low"] <= 0.5 <= metrics["win_rate_ci_high"] <= 1.0
    assert result.metrics["win_rate"].params == {}  # the defaults: level .95, seed 0


def test_the_log_on_disk_keeps_both_raw_replies_for_the_viewer(tmp_path: Path) -> None:
    log = run(tmp_path, PairJudge(rules=RULES))
    stored = read_eval_log(log.location)
    by_id = {s.id: s.scores["pairwise_scorer"] for s in stored.samples or []}
    win_calls = by_id[1].metadata["calls"]
    assert [(c["order"], c["raw"], c["verdict"]) for c in win_calls] == [
        ("original", "A", "A"),
        ("swapped", "B", "B"),
    ]
    assert by_id[1].metadata["template"] == "default"
    assert by_id[1].metadata["judge"] == "mockllm/model"
    garbled = by_id[4].metadata["calls"]
    assert garbled[0]["verdict"] == "A"
    assert garbled[0]["failure"] is None
    assert garbled[1]["raw"] == "Both answers have merits; hard to say."
    assert garbled[1]["verdict"] is None
    assert garbled[1]["failure"]["reason"]
    assert "win (conservative rule: both orders agreed)" in (by_id[1].explanation or "")
    # Each judge call is an Inspect model call, in the sample's transcript after the answer.
    [first] = [s for s in stored.samples or [] if s.id == 1]
    model_events = [e for e in first.events if e.event == "model"]
    assert [e.output.completion for e in model_events] == [OUTPUTS[WIN], "A", "B"]


def test_a_metadata_baseline_and_an_explicit_judge(tmp_path: Path) -> None:
    judge = PairJudge()
    samples = [
        Sample(input=WIN, target="unused", metadata={"reference_model": "Paris is lovely."}, id=1)
    ]
    task = Task(
        dataset=samples,
        solver=generate(),
        scorer=pairwise_scorer(
            get_model("mockllm/model", custom_outputs=judge, memoize=False),
            baseline="reference_model",
        ),
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=answering(OUTPUTS), memoize=False),
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert [(c.answer_a, c.answer_b) for c in judge.calls] == [
        (OUTPUTS[WIN], "Paris is lovely."),
        ("Paris is lovely.", OUTPUTS[WIN]),
    ]
    [sample] = log.samples or []
    assert sample.scores is not None
    assert sample.scores["pairwise_scorer"].value == 1.0


def test_a_missing_baseline_field_is_the_samples_error_not_a_score(tmp_path: Path) -> None:
    task = Task(
        dataset=[Sample(input=WIN, target="Paris", id=1)],
        solver=generate(),
        scorer=pairwise_scorer(
            get_model("mockllm/model", custom_outputs=PairJudge(), memoize=False),
            baseline="reference_model",
        ),
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=answering(OUTPUTS), memoize=False),
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error"
    assert log.error is not None
    assert "metadata['reference_model']" in log.error.message


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [({"rule": "majority"}, "rule"), ({"params": {"temperature": "hot"}}, "params")],
)
def test_bad_settings_are_refused_when_the_task_is_built(
    kwargs: dict[str, object], named: str
) -> None:
    with pytest.raises(ConfigError) as info:
        pairwise_scorer(**kwargs)
    assert info.value.params == (named,)


@pytest.mark.parametrize("first", list(Verdict))
@pytest.mark.parametrize("second", list(Verdict))
def test_the_score_is_the_seed_protocols_debiased_verdict(first: Verdict, second: Verdict) -> None:
    replies = iter([first.value, second.value])
    seed = debiased_verdict(lambda q, a, b: next(replies), "q", "output", "baseline")
    calls = (
        Call(Order.ORIGINAL, 0, Reply(verdict=first, raw=first.value)),
        Call(Order.SWAPPED, 0, Reply(verdict=second, raw=second.value)),
    )
    score = pair_score(calls, Resolution.CONSERVATIVE, {})
    assert score.value == {"1": 1.0, "tie": 0.5, "2": 0.0}[seed]
    assert score.answer == {"1": "win", "tie": "tie", "2": "loss"}[seed]


def test_a_conversation_reaches_the_judge_as_a_transcript(tmp_path: Path) -> None:
    judge = PairJudge()
    turns = [
        ChatMessageSystem(content="Be brief."),
        ChatMessageUser(content="Hi."),
        ChatMessageAssistant(content="Hello!"),
        ChatMessageUser(content=WIN),
    ]
    task = Task(
        dataset=[Sample(input=turns, target="Paris", id=1)],
        solver=generate(),
        scorer=pairwise_scorer(get_model("mockllm/model", custom_outputs=judge, memoize=False)),
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=answering(OUTPUTS), memoize=False),
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert [c.question for c in judge.calls] == [
        f"[system]\nBe brief.\n\n[user]\nHi.\n\n[assistant]\nHello!\n\n[user]\n{WIN}"
    ] * 2


def test_a_lenient_win_from_disagreeing_orders_says_how_it_was_reached() -> None:
    calls = (
        Call(Order.ORIGINAL, 0, Reply(verdict=Verdict.A, raw="A")),
        Call(Order.SWAPPED, 0, Reply(verdict=Verdict.TIE, raw="tie")),
    )
    score = pair_score(calls, Resolution.LENIENT, {})
    assert (score.value, score.answer) == (1.0, "win")
    assert score.explanation is not None
    assert score.explanation.startswith(
        "win (lenient rule: the two orders disagreed, and the rule weighs them)"
    )
    assert score.metadata is not None
    assert score.metadata["consistent"] is False
