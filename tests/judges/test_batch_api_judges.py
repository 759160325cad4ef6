"""A judge no batch API serves is refused as it is resolved, not when the batch runs.

The batch executor checks each backend as a batch starts; by then a ``local/`` model
has loaded for nothing (minutes for a large GGUF file). Resolving the judge, alone or
as a panel's member, refuses it first, naming ``executor``, the parameter a notebook
passed, and what to pass instead (``--batch-api`` on the command line, worded as it
always was).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import pytest

import fairjudge
from fairjudge import ConfigError
from fairjudge.backends import LocalBackend
from fairjudge.judges import (
    BackendOptions,
    Jury,
    LLMJudge,
    MemberSpec,
    PointwiseJury,
    resolve_judge,
    resolve_pointwise_judge,
)
from fairjudge.runner import BatchExecutor

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
NONE = "has none: drop executor=BatchExecutor() for it (executor=None makes the calls one by one)"


@pytest.fixture(autouse=True)
def no_model_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A local model that loads fails the test: the refusal must come first."""

    def load(*args: Any, **kwargs: Any) -> NoReturn:
        raise AssertionError("a local model loaded before the batch executor was checked")

    monkeypatch.setattr(LocalBackend, "from_name", load)


def _refused(call: Any, *args: Any, **kwargs: Any) -> ConfigError:
    with pytest.raises(ConfigError) as exc:
        call(*args, **kwargs)
    assert exc.value.params == ("executor",)  # the library's parameter: there is no batch_api
    needs = "needs a judge with a batch API (openai/<model> or anthropic/<model>)"
    assert f"executor=BatchExecutor() {needs}" in str(exc.value)
    return exc.value


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ("local/gemma-3-270m", "local/gemma-3-270m"),
        (None, "local/ (the default judge)"),
        ("python:fairjudge.examples.judges:longer", "python:fairjudge.examples.judges:longer"),
        ("replay:reviews.jsonl", "replay:reviews.jsonl"),
    ],
)
def test_a_pairwise_judge_without_a_batch_api_is_refused(spec: str | None, shown: str) -> None:
    error = _refused(resolve_judge, spec, executor=BatchExecutor())
    assert f"{shown} {NONE}" in str(error)


def test_a_scorer_without_a_batch_api_is_refused() -> None:
    for spec in ("local/gemma-3-270m", "python:fairjudge.examples.judges:scorer"):
        error = _refused(resolve_pointwise_judge, spec, executor=BatchExecutor())
        assert f"{spec} {NONE}" in str(error)


def test_an_empty_spec_is_refused_as_empty_first() -> None:
    with pytest.raises(ConfigError, match="empty judge spec"):
        resolve_judge("  ", executor=BatchExecutor())


def test_a_model_judge_with_a_batch_api_resolves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    where = BackendOptions("http://127.0.0.1:9/v1")
    judge = resolve_judge("openai/gpt-4o-mini", executor=BatchExecutor(), backend_options=where)
    assert isinstance(judge, LLMJudge)
    judge.close()


def test_a_panel_member_without_a_batch_api_is_refused_before_the_panel_opens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    members = [MemberSpec("openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1"),
               MemberSpec("local/gemma-3-270m")]  # fmt: skip
    error = _refused(Jury.from_specs, members, executor=BatchExecutor())
    assert f"local/gemma-3-270m {NONE}" in str(error)
    error = _refused(PointwiseJury.from_specs, members, executor=BatchExecutor())
    assert f"local/gemma-3-270m {NONE}" in str(error)


def test_a_notebook_run_is_refused_before_a_model_loads() -> None:
    pairs, answers = EXAMPLES / "demo_pairs.jsonl", EXAMPLES / "score_answers.jsonl"
    _refused(fairjudge.compare, pairs, "local/gemma-3-270m", executor=BatchExecutor())
    _refused(fairjudge.score, answers, "local/gemma-3-270m", executor=BatchExecutor())
    _refused(fairjudge.compare, pairs, judges=["local/gemma-3-270m", "local/gemma-3-270m"],
             executor=BatchExecutor())  # fmt: skip


def test_the_command_line_words_the_refusal_as_its_flag() -> None:
    from fairjudge.cli._flags import to_flags

    with pytest.raises(ConfigError) as exc:
        resolve_judge("local/gemma-3-270m", executor=BatchExecutor())
    shown = to_flags(str(exc.value), exc.value.params, "compare")
    assert shown == (
        "--batch-api needs a judge with a batch API (openai/<model> or anthropic/<model>); "
        "local/gemma-3-270m has none: drop --batch-api for it"
    )
