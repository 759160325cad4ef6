"""``weights=`` and ``aggregate=`` are a panel's options: without ``judges=`` they are errors.

One judge has nothing to weigh or aggregate, so ``compare(items, judge, weights=[1, 2])``
or ``score(items, judge, aggregate="median")`` ran as if the option had not been
given. They must say so instead, as a command does for a flag that does not apply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import longer, scorer

EXAMPLES = Path(fairjudge.__file__).parent / "examples"


@pytest.mark.parametrize(("option", "value"), [("weights", [1.0]), ("aggregate", "mean")])
def test_panel_options_without_judges_are_refused(option: str, value: Any) -> None:
    runs = (
        (fairjudge.compare, "demo_pairs.jsonl", longer),
        (fairjudge.score, "score_answers.jsonl", scorer),
    )
    for run, items, judge in runs:
        with pytest.raises(fairjudge.ConfigError, match=f"{option} applies with judges=") as e:
            run(str(EXAMPLES / items), judge, **{option: value})
        assert e.value.params == (option, "judges")


def test_panel_options_with_judges_still_apply() -> None:
    members = [longer, "python:fairjudge.examples.judges:knows_facts"]
    panel = fairjudge.compare(
        str(EXAMPLES / "demo_pairs.jsonl"), judges=members, weights=[1, 2], aggregate="mean"
    )
    assert panel.to_dict()["aggregation"] == "mean"


# A timeout alone applies to Python members (test_own_judge_timeout_option.py).
@pytest.mark.parametrize(
    ("field", "value"), [("template", "concise"), ("backend", {"timeout": 5, "temperature": 0.5})]
)
def test_a_panel_without_a_model_refuses_prompt_and_server_fields(field: str, value: Any) -> None:
    specs = [f"python:fairjudge.examples.judges:{name}" for name in ("longer", "knows_facts")]
    for members in (specs, [longer, specs[1]]):
        with pytest.raises(fairjudge.ConfigError, match="no model or prompt") as e:
            fairjudge.compare(str(EXAMPLES / "demo_pairs.jsonl"), judges=members, **{field: value})
        assert e.value.params == (field,)
    with pytest.raises(fairjudge.ConfigError, match="no model or prompt"):
        fairjudge.score(str(EXAMPLES / "score_answers.jsonl"), judges=[scorer, scorer],
                        backend={"temperature": 0.5})  # fmt: skip
