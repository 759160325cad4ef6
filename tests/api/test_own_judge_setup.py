"""Your own judge function and the setup fields it cannot use.

A function is called directly: it has no prompt, no model and no server, and it runs
on this process's engine. ``python:module:fn`` already refuses a template, backend
options or another executor; the same function passed as an object must refuse them
too, never run as if they had been applied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import longer, scorer

EXAMPLES = Path(fairjudge.__file__).parent / "examples"


@pytest.mark.parametrize(
    ("field", "value"),
    [("template", "concise"), ("backend", {"temperature": 0.5}), ("executor", "ray")],
)
@pytest.mark.parametrize("how", ["keyword", "setup"])
def test_own_pairwise_judge_refuses_what_it_cannot_use(field: str, value: Any, how: str) -> None:
    kwargs: dict[str, Any] = (
        {field: value} if how == "keyword" else {"setup": fairjudge.JudgeSetup(**{field: value})}
    )
    runs = ((fairjudge.compare, "demo_pairs.jsonl"), (fairjudge.rank, "rank_answers.jsonl"))
    for run, items in runs:
        said = "backend.temperature" if field == "backend" else field  # timeout alone applies
        with pytest.raises(fairjudge.ConfigError, match=f"{said} does not apply") as e:
            run(str(EXAMPLES / items), longer, **kwargs)
        assert e.value.params == (field,)
        assert "python:fairjudge.examples.judges:longer" in str(e.value)


def test_own_scorer_refuses_backend_options() -> None:
    with pytest.raises(fairjudge.ConfigError, match=r"backend\.temperature does not apply") as e:
        fairjudge.score(str(EXAMPLES / "score_answers.jsonl"), scorer, backend={"temperature": 0.5})
    assert e.value.params == ("backend",)


def test_own_judge_runs_with_the_default_executor_and_run_options() -> None:
    result = fairjudge.compare(
        str(EXAMPLES / "demo_pairs.jsonl"), longer, executor="asyncio",
        options={"concurrency": 4, "progress": "quiet"},
    )  # fmt: skip
    assert result.to_dict()["win_rate"]["estimate"] == 0.9
