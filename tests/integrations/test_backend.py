"""InspectBackend: an Inspect model as fairjudge's judge, outside ``inspect eval`` too."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip(
    "inspect_ai", reason="needs the inspect extra: pip install 'fairjudge[inspect]'"
)

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    Logprob,
    Logprobs,
    ModelOutput,
    ModelUsage,
    TopLogprob,
    get_model,
)

from fairjudge import ConfigError, RequestRejected, debiased_verdict, evaluate_pairs
from fairjudge._call import CallSpec
from fairjudge.integrations.inspect import InspectBackend, completion_of
from fairjudge.judges import LLMJudge
from tests.integrations.quiet import QUIET
from tests.integrations.scripted import PairJudge, output

pytestmark = QUIET


def mock(judge: object) -> InspectBackend:
    return InspectBackend(get_model("mockllm/model", custom_outputs=judge, memoize=False))


def test_the_seed_protocol_on_an_inspect_judge_makes_two_swapped_calls() -> None:
    scripted = PairJudge()
    with LLMJudge(mock(scripted), store=":memory:") as judge:
        assert debiased_verdict(judge, "Capital of France?", "Paris, France.", "Lyon") == "1"
    assert [(c.answer_a, c.answer_b) for c in scripted.calls] == [
        ("Paris, France.", "Lyon"),
        ("Lyon", "Paris, France."),
    ]


def test_evaluate_pairs_with_an_inspect_judge_counts_a_parse_failure_apart() -> None:
    scripted = PairJudge(rules={"q3": "garbage-swapped", "q2": "first"})
    items = [("q1", "long answer", "short"), ("q2", "aa", "b"), ("q3", "xx", "y")]
    with LLMJudge(mock(scripted), store=":memory:") as judge:
        result = evaluate_pairs(judge, items)
    assert len(scripted.calls) == 6
    assert result.n_parse_failures == 1
    assert result.win_rate is not None
    assert (result.win_rate.wins, result.win_rate.ties, result.win_rate.n) == (1, 1, 2)
    [failed] = [j for j in result.judgments if not j.resolved]
    assert failed.raw_replies == ("A", "Both answers have merits; hard to say.")


def test_the_spec_names_the_inspect_model_and_the_params_reach_generate() -> None:
    configs = []

    def judge(messages: object, tools: object, choice: object, config: object) -> ModelOutput:
        configs.append(config)
        return output("A")

    backend = mock(judge)
    backend_t = InspectBackend(backend.inspect_model, params={"temperature": 0.0, "max_tokens": 5})
    spec = CallSpec("inspect", backend_t.model, (("user", "hi"),), "t", "1",
                    params=backend_t.default_params(label_only=True))  # fmt: skip
    completion = asyncio.run(backend_t.complete(spec))
    assert (backend_t.name, backend_t.model, backend_t.base_url) == (
        "inspect",
        "mockllm/model",
        None,
    )
    assert completion.text == "A"
    assert (configs[0].temperature, configs[0].max_tokens) == (0.0, 5)


def test_usage_and_logprobs_in_fairjudges_convention() -> None:
    top = [TopLogprob(token="A", logprob=-0.1), TopLogprob(token="B", logprob=-2.5)]
    out = ModelOutput(
        model="mockllm/model",
        choices=[
            ChatCompletionChoice(
                message=ChatMessageAssistant(content="A"),
                logprobs=Logprobs(content=[Logprob(token="A", logprob=-0.1, top_logprobs=top)]),
            )
        ],
        usage=ModelUsage(
            input_tokens=70,
            output_tokens=3,
            total_tokens=103,
            input_tokens_cache_read=20,
            input_tokens_cache_write=10,
            reasoning_tokens=2,
        ),
        time=0.25,
    )
    completion = completion_of(out)
    assert completion.text == "A"
    assert completion.top_logprobs == {"A": -0.1, "B": -2.5}
    assert (completion.input_tokens, completion.output_tokens) == (100, 3)  # the whole prompt
    assert (completion.cached_input_tokens, completion.cache_write_tokens) == (20, 10)
    assert (completion.reasoning_tokens, completion.latency_s) == (2, 0.25)


def test_a_failing_model_is_a_rejected_call_and_bad_params_a_config_error() -> None:
    def broken(*_: object) -> ModelOutput:
        raise RuntimeError("the provider fell over")

    backend = InspectBackend(
        get_model("mockllm/model", custom_outputs=broken, memoize=False, config=_no_retries())
    )
    spec = CallSpec("inspect", backend.model, (("user", "hi"),), "t", "1")
    with pytest.raises(RequestRejected, match="the provider fell over"):
        asyncio.run(backend.complete(spec))
    with pytest.raises(ConfigError) as info:
        InspectBackend(backend.inspect_model, params={"not_a_setting": 1})
    assert info.value.params == ("params",)


def _no_retries() -> object:
    from inspect_ai.model import GenerateConfig

    return GenerateConfig(max_retries=0)
