"""What a test passes to ``fairjudge_judge.compare``/``.score`` either takes effect or is refused.

A judge object the test built (``CallableJudge(fn)``, a built ``Jury``, or one on a
panel's list) runs with its own store and run options, as :func:`fairjudge.compare`
runs it: the suite sets none beside it, and a call's ``concurrency=`` beside it is an
error, as the library's ``options=`` beside it is. A seed fills the settings' default
seed and is refused beside another; an assertion's margin, threshold and count are
checked before they are read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairjudge import ConfigError
from fairjudge.evaluation import EvalSettings
from fairjudge.judges import CallableJudge, CallablePointwiseJudge, Jury, JuryMember
from fairjudge.runner import RunOptions
from tests.testing.suite_judges import facts
from tests.testing.test_judged import GOOD, SCORES, candidate_rows, suite


def plain(question: str, answer_a: str, answer_b: str) -> str:
    """``facts``, undeclared: a judge object of it keeps no store (its calls are not cached)."""
    return facts(question, answer_a, answer_b)


def scored(question: str, answer: str) -> dict[str, int]:
    return {"accuracy": 4, "relevance": 4, "completeness": 4, "clarity": 4, "safety": 5}


def test_concurrency_beside_a_judge_object_is_refused_before_any_call(tmp_path: Path) -> None:
    judge = CallableJudge(plain)
    with pytest.raises(ConfigError) as refused:
        suite(tmp_path).compare(GOOD, judge=judge, concurrency=4)
    assert str(refused.value) == (
        "concurrency=4 does not apply to the judge 'python:tests.testing.test_call_arguments:"
        "plain': a judge object you built runs with its own run options; set it where you "
        "build the judge (options=RunOptions(concurrency=N)), or pass a spec string or a "
        "function instead"
    )
    assert refused.value.params == ("concurrency",)
    assert judge.calls_made == 0
    scorer = CallablePointwiseJudge(scored, rubric="production")
    with pytest.raises(ConfigError, match="concurrency=2 does not apply to the judge"):
        suite(tmp_path).score(candidate_rows(GOOD), judge=scorer, concurrency=2)
    # The library refuses run options beside a judge object alike.
    with pytest.raises(ConfigError, match="options does not apply to the judge"):
        suite(tmp_path).compare(GOOD, judge=judge, options=RunOptions(concurrency=4))


def test_a_judge_object_runs_with_its_own_settings_and_a_function_takes_the_calls(
    tmp_path: Path,
) -> None:
    own = CallableJudge(plain, options=RunOptions(concurrency=2, progress="quiet"))
    run = suite(tmp_path).compare(GOOD, judge=own)
    assert run.calls_made == 48  # undeclared: no store, so an item's two equal calls are two
    assert not (tmp_path / "store.sqlite").exists()  # its own store (none), not the suite's
    run.assert_not_worse(margin=0.1)


def test_a_built_panel_or_judge_objects_on_a_list_run_without_the_suites_setup(
    tmp_path: Path,
) -> None:
    jury = Jury([JuryMember("a", CallableJudge(plain)), JuryMember("b", CallableJudge(plain))])
    run = suite(tmp_path).compare(GOOD, judges=jury)
    assert run.result.kind == "jury"
    assert run.calls_made > 0
    listed = suite(tmp_path).compare(GOOD, judges=[CallableJudge(plain), plain])
    assert listed.result.kind == "jury"
    with pytest.raises(ConfigError) as refused:
        suite(tmp_path).compare(GOOD, judges=jury, concurrency=3)
    assert str(refused.value).startswith("concurrency=3 does not apply to the judge 'Jury(a, b)'")
    with pytest.raises(ConfigError, match="concurrency=3 does not apply to the judge"):
        suite(tmp_path).compare(GOOD, judges=[CallableJudge(plain), plain], concurrency=3)


def test_an_undeclared_function_is_named_in_the_suites_refusal(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        suite(tmp_path).compare(GOOD, judge=plain)  # the suite's judge is FACTS
    text = str(refused.value)
    assert "the judge 'python:tests.testing.test_call_arguments:plain' declares no name" in text
    assert "suite_judges:facts" not in text
    with pytest.raises(ConfigError) as panel:
        suite(tmp_path).compare(GOOD, judges=[plain, plain])
    text = str(panel.value)
    assert text.startswith("the suite caches, records and replays every judge call in its store")
    assert "the panel's Python judges ('python:tests.testing.test_call_arguments:plain'" in text
    assert "on each function" in text
    assert "or drop store" not in text  # the user never gave the store


def test_the_suites_seed_fills_the_settings_default_and_a_call_seed_beside_another_is_refused(
    tmp_path: Path,
) -> None:
    judge = suite(tmp_path, seed=7)
    quick, mine = EvalSettings(n_resamples=100), EvalSettings(n_resamples=100, seed=5)
    assert judge.compare(GOOD, settings=quick).report["settings"]["seed"] == 7
    assert judge.compare(GOOD, settings=mine).report["settings"]["seed"] == 5  # its own, kept
    assert judge.compare(GOOD, seed=3, settings=quick).report["settings"]["seed"] == 3
    with pytest.raises(ConfigError) as refused:
        judge.compare(GOOD, seed=3, settings=mine)
    assert str(refused.value) == (
        "seed=3 given beside settings with seed 5: set it in one place "
        "(settings=EvalSettings(..., seed=3), or seed= alone)"
    )


def test_an_assertions_margin_threshold_and_count_are_checked(tmp_path: Path) -> None:
    run = suite(tmp_path).compare(GOOD)
    for margin in ("0.1", 0.7, -0.1, True):
        with pytest.raises(ConfigError, match=r"margin must be a number in \[0, 0.5\]; got") as no:
            run.assert_not_worse(margin=margin)  # type: ignore[arg-type]
        assert no.value.params == ("margin",)
    run.assert_not_worse(margin=0.5)  # the bound is 0: it rules out losing every item
    with pytest.raises(ConfigError, match=r"in \[0, 0.5\) for assert_better; got 0.5"):
        run.assert_better(margin=0.5)  # the bound would be 1: it could never pass
    with pytest.raises(ConfigError, match="show must be an integer >= 0; got -1"):
        run.assert_better(margin=0.4, show=-1)
    scores = suite(tmp_path).score(candidate_rows(GOOD), judge=SCORES)
    with pytest.raises(ConfigError, match="threshold must be a number; got '3'"):
        scores.assert_mean_above("accuracy", "3")  # type: ignore[arg-type]
    scores.assert_mean_above("accuracy", 3)
