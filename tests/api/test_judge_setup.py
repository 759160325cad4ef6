"""``JudgeSetup``: how judges are opened and run, given once and checked where it is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge import ConfigError, JudgeSetup
from fairjudge.judges import BackendOptions
from fairjudge.runner import RunOptions

ROWS = [
    {"id": str(i), "question": f"q{i}", "answer_1": "a much longer answer" * (i % 2 + 1),
     "answer_2": "short"}
    for i in range(6)
]  # fmt: skip


def longer(question: str, answer_a: str, answer_b: str) -> str:
    return "A" if len(answer_a) >= len(answer_b) else "B"


def test_the_keyword_shorthand_and_setup_give_the_same_result(tmp_path: Path) -> None:
    options = RunOptions(concurrency=2, progress="quiet")
    by_keywords = fairjudge.compare(ROWS, longer, options=options)
    by_setup = fairjudge.compare(ROWS, longer, setup=JudgeSetup(options=options))
    timed = ("calls",)  # latencies differ from run to run
    assert {k: v for k, v in by_setup.to_dict().items() if k not in timed} == {
        k: v for k, v in by_keywords.to_dict().items() if k not in timed
    }
    assert by_setup.to_dict()["calls"]["made"] == by_keywords.to_dict()["calls"]["made"] == 12
    assert by_setup.result.win_rate.estimate == 1.0


def test_a_field_given_in_setup_and_as_a_keyword_is_refused_naming_it() -> None:
    with pytest.raises(ConfigError, match="store given beside setup=") as caught:
        fairjudge.compare(ROWS, longer, setup=JudgeSetup(), store="runs.db")
    assert caught.value.params == ("setup", "store")
    with pytest.raises(ConfigError, match="options given beside setup="):
        fairjudge.score([{"question": "q", "answer": "a"}], setup=JudgeSetup(), options={})


def test_setup_must_be_a_judge_setup() -> None:
    with pytest.raises(ConfigError, match=r"setup must be a fairjudge\.JudgeSetup; got dict"):
        fairjudge.compare(ROWS, longer, setup={"store": "x"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "message", "param"),
    [
        ({"template": " "}, "template must be a template's name", "template"),
        ({"backend": "http://x"}, "backend must be a fairjudge.judges.BackendOptions", "backend"),
        ({"backend": {"url": "x"}}, "backend has no field 'url'", "backend"),
        ({"options": 16}, "options must be a fairjudge.runner.RunOptions", "options"),
        ({"options": {"concurency": 4}}, "options: .*concurency", "options"),
        ({"store": ""}, "store must be a path or a fairjudge.runner.Store", "store"),
        ({"executor": "rayy"}, "executor='rayy' is no executor", "executor"),
        ({"executor": 3}, "executor must be 'asyncio', 'ray', 'ray:ADDRESS'", "executor"),
    ],
)
def test_a_bad_value_is_refused_where_the_setup_is_made(
    given: dict[str, Any], message: str, param: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        JudgeSetup(**given)
    assert param in caught.value.params


def test_mappings_build_the_option_values() -> None:
    setup = JudgeSetup(
        backend={"base_url": "http://127.0.0.1:9/v1", "timeout": 5},
        options={"max_calls": 20, "price_input": 1.0, "price_output": 2.0},
        executor="ray:10.0.0.1:6379",
    )
    assert setup.backend == BackendOptions(base_url="http://127.0.0.1:9/v1", timeout=5)
    assert setup.options is not None
    assert setup.options.max_calls == 20
    assert setup.given() == ["backend", "options", "executor"]
    a_bad_field_inside = {"temperature": 9}
    with pytest.raises(ConfigError, match="temperature must be in"):
        JudgeSetup(backend=a_bad_field_inside)


def test_repeated_rounds_sample_a_model_judge_unless_a_temperature_is_given(
    openai_env: Any, tmp_path: Path
) -> None:
    url = openai_env.base_url
    setup = JudgeSetup(backend={"base_url": url}, store=tmp_path / "s.db")
    judge = setup.open_judge("openai/gpt-4o-mini", rounds=4)
    try:
        assert judge.temperature == 0.7
    finally:
        judge.close()  # type: ignore[attr-defined]
    cold = JudgeSetup(backend={"base_url": url, "temperature": 0.0}, store=tmp_path / "s.db")
    with pytest.raises(ConfigError, match="rounds=4 repeats each order 2 times"):
        cold.open_judge("openai/gpt-4o-mini", rounds=4)


def test_a_scorer_takes_no_template() -> None:
    with pytest.raises(ConfigError, match="template does not apply to score"):
        fairjudge.score([{"question": "q", "answer": "a"}], setup=JudgeSetup(template="default"))
