"""Your own judge function takes the setup's timeout: ``backend={"timeout": ...}``.

``--timeout`` applies to a ``python:`` judge (a call past it fails as a
``BackendTimeout``); from Python the same function passed as an object takes it the
way a model judge does, through ``backend`` (a :class:`BackendOptions` or a mapping),
when timeout is the only option set. Any other backend option is still refused,
naming it and what does apply.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import fairjudge
from fairjudge.judges import BackendOptions

PAIRS = [{"question": "q", "answer_1": "a long answer", "answer_2": "short"}]
ANSWERS = [{"question": "q", "answer": "a"}]
RUN = {"max_attempts": 1, "progress": "quiet"}


async def slow_judge(question: str, answer_a: str, answer_b: str) -> str:
    await asyncio.sleep(30)  # cancelled at the timeout
    return "A"


async def slow_scorer(question: str, answer: str) -> dict[str, int]:
    await asyncio.sleep(30)
    return {"accuracy": 5, "relevance": 5, "usefulness": 5}


def _timed_out(failures: list[str]) -> None:
    assert failures, "every call should have timed out"
    for failure in failures:
        assert "BackendTimeout: python backend: no reply from python:" in failure, failure
        assert failure.endswith(
            "within 0.05 s; tried once (max_attempts=1); give it a longer timeout, or another "
            "max_attempts"
        ), failure


BACKENDS = [
    pytest.param({"backend": BackendOptions(timeout=0.05)}, id="BackendOptions"),
    pytest.param({"backend": {"timeout": 0.05}}, id="mapping"),
    pytest.param({"setup": fairjudge.JudgeSetup(backend={"timeout": 0.05})}, id="setup"),
]


@pytest.mark.parametrize("given", BACKENDS)
def test_compare_with_a_function_takes_the_timeout(given: dict[str, Any]) -> None:
    if "setup" in given:
        given = {"setup": fairjudge.JudgeSetup(backend={"timeout": 0.05}, options=RUN)}
    else:
        given = {**given, "options": RUN}
    done = fairjudge.compare(PAIRS, slow_judge, **given)
    assert done.result.n_call_errors == 2
    _timed_out(
        [
            f"{c.reply.failure.kind}: {c.reply.failure.message}"
            for j in done.result.judgments
            for c in j.calls
            if c.reply.failure is not None
        ]
    )


@pytest.mark.parametrize("given", BACKENDS[:2])
def test_score_with_a_function_takes_the_timeout(given: dict[str, Any]) -> None:
    done = fairjudge.score(ANSWERS, slow_scorer, options=RUN, **given)
    assert done.result.n_call_errors == 1
    _timed_out(list(done.result.failures))


def test_a_panel_of_functions_takes_the_timeout() -> None:
    def fast(question: str, answer_a: str, answer_b: str) -> str:
        return "A"

    done = fairjudge.compare(PAIRS, judges=[slow_judge, fast], backend={"timeout": 0.05},
                             options=RUN)  # fmt: skip
    assert done.result.failures.total() == 2
    _timed_out(list(done.result.failures))


@pytest.mark.parametrize("run", ["compare", "score", "rank"])
def test_another_backend_option_is_refused_naming_it_and_the_timeout(run: str) -> None:
    ranked = [{"question_id": "q", "question": "q", "model": m, "answer": m} for m in "xy"]
    items = {"compare": PAIRS, "score": ANSWERS, "rank": ranked}[run]
    fn = slow_scorer if run == "score" else slow_judge
    with pytest.raises(fairjudge.ConfigError) as e:
        getattr(fairjudge, run)(items, fn, backend={"timeout": 1, "temperature": 0.5})
    message = str(e.value)
    assert message.startswith("backend.temperature does not apply to the judge 'python:")
    assert "of backend's options only timeout applies to it" in message
    assert e.value.params == ("backend",)
