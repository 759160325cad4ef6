"""A judge object you built runs with its own settings: a setup field beside it is refused.

``compare``/``score``/``rank``/``calibrate`` open a judge from a spec string or wrap
your function with the setup's template, backend, run options, store and executor;
a built judge (``CallableJudge(fn)``, a ``PairwiseJudge``/``PointwiseJudge``, a
``Jury``) has them from when it was built, so each one given beside it had no effect
(the judge kept its own timeout, store, ...). Each is an error naming it and what to
do instead, as ``mode``/``structured`` beside a built judge are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import longer, scorer
from fairjudge.judges import BackendOptions, CallableJudge, CallablePointwiseJudge, Jury
from fairjudge.prompts import get_rubric

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
PAIRS = [{"question": "q", "answer_1": "a long answer", "answer_2": "short", "human": "1"}]
ANSWERS = [{"question": "q", "answer": "a", "human_accuracy": 3}]
QUIET = {"progress": "quiet"}
SPEC = "python:fairjudge.examples.judges:longer"

GIVEN = [
    pytest.param({"backend": {"timeout": 5}}, ("backend",), "backend.timeout does", id="timeout"),
    pytest.param(
        {"backend": BackendOptions(temperature=0.2, timeout=5)},
        ("backend",),
        "backend.temperature, backend.timeout do",
        id="BackendOptions",
    ),
    pytest.param({"options": QUIET}, ("options",), "options does", id="options"),
    pytest.param({"executor": "asyncio"}, ("executor",), "executor does", id="executor"),
    pytest.param(
        {"setup": fairjudge.JudgeSetup(template="default", backend={"timeout": 5})},
        ("template", "backend"),
        "template, backend.timeout do",
        id="setup",
    ),
]


def _refused(exc: pytest.ExceptionInfo[fairjudge.ConfigError], params: tuple[str, ...],
             words: str) -> None:  # fmt: skip
    message = str(exc.value)
    assert exc.value.params == params
    assert f"{words} not apply to the judge" in message, message
    assert "a judge object you built runs with its own settings" in message, message
    assert "CallableJudge(fn, timeout=...)" in message, message
    assert "pass a spec string or a function instead" in message, message


@pytest.mark.parametrize(("given", "params", "words"), GIVEN)
def test_compare_refuses_a_setup_field_beside_a_built_judge(
    given: dict[str, Any], params: tuple[str, ...], words: str
) -> None:
    with pytest.raises(fairjudge.ConfigError) as exc:
        fairjudge.compare(PAIRS, CallableJudge(longer), **given)
    _refused(exc, params, words)


def test_compare_refuses_a_store_beside_a_built_judge(tmp_path: Path) -> None:
    with pytest.raises(fairjudge.ConfigError) as exc:
        fairjudge.compare(PAIRS, CallableJudge(longer), store=tmp_path / "s.sqlite")
    _refused(exc, ("store",), "store does")
    assert not (tmp_path / "s.sqlite").exists()


def test_compare_refuses_a_backend_beside_a_built_jury() -> None:
    jury = Jury.seat([("a", CallableJudge(longer), 1.0), ("b", CallableJudge(longer), 1.0)])
    with pytest.raises(fairjudge.ConfigError) as exc:
        fairjudge.compare(PAIRS, jury, backend={"timeout": 5})
    _refused(exc, ("backend",), "backend.timeout does")


def test_score_refuses_a_setup_field_beside_a_built_scorer() -> None:
    built = CallablePointwiseJudge(scorer, rubric=get_rubric("production"))
    with pytest.raises(fairjudge.ConfigError) as exc:
        fairjudge.score(ANSWERS, built, backend={"timeout": 5}, options=QUIET)
    _refused(exc, ("options", "backend"), "options, backend.timeout do")


def test_rank_refuses_a_setup_field_beside_a_built_judge() -> None:
    with pytest.raises(fairjudge.ConfigError) as exc:
        fairjudge.rank(str(EXAMPLES / "rank_answers.jsonl"), CallableJudge(longer),
                       backend={"timeout": 5})  # fmt: skip
    _refused(exc, ("backend",), "backend.timeout does")


@pytest.mark.parametrize(
    ("items", "rubric", "built"),
    [
        pytest.param(PAIRS, None, CallableJudge(longer), id="pairs"),
        pytest.param(
            ANSWERS,
            "production",
            CallablePointwiseJudge(scorer, rubric=get_rubric("production")),
            id="scores",
        ),
    ],
)
def test_calibrate_refuses_a_setup_field_beside_a_built_judge(
    items: Any, rubric: str | None, built: Any
) -> None:
    with pytest.raises(fairjudge.ConfigError) as exc:
        fairjudge.calibrate(items, built, rubric=rubric, backend={"timeout": 5})
    _refused(exc, ("backend",), "backend.timeout does")


@pytest.mark.parametrize("judge", [SPEC, longer], ids=["spec", "function"])
def test_a_spec_or_a_function_still_takes_them(judge: Any, tmp_path: Path) -> None:
    """The spec string and the function are opened here, so they take the setup's fields."""
    setup = {"backend": {"timeout": 5}, "options": QUIET, "executor": "asyncio"}
    done = fairjudge.compare(PAIRS, judge, **setup)
    assert done.result.win_rate.estimate == 1.0
    graded = fairjudge.calibrate(PAIRS, judge, **setup)
    assert graded.result.win_rate.estimate == 1.0
    ranked = fairjudge.rank(str(EXAMPLES / "rank_answers.jsonl"), judge, **setup)
    assert ranked.report.leaderboard is not None
    scored = fairjudge.score(
        ANSWERS, "python:fairjudge.examples.judges:scorer" if judge == SPEC else scorer, **setup
    )
    assert scored.result.n_items == 1


def test_the_pytest_suite_still_runs_a_built_judge(tmp_path: Path) -> None:
    """The suite sets its store and options beside a spec or function, not a judge object."""
    from fairjudge.testing import SuiteJudge, SuiteSettings

    suite = SuiteJudge(SuiteSettings(judge=SPEC, store=tmp_path / "s.sqlite"))
    assert suite.compare(PAIRS, judge=CallableJudge(longer)).result.result.win_rate.estimate == 1
    with pytest.raises(fairjudge.ConfigError) as exc:  # one the test gives is refused
        suite.compare(PAIRS, judge=CallableJudge(longer), options=QUIET)
    _refused(exc, ("options",), "options does")
