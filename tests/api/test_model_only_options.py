"""``mode`` and ``structured`` are refused where no model reads them (QA40 F10).

Your own scoring function, a scoring panel of Python judges and pairwise ``calibrate``
ask no model in a mode: the option would have had no effect and been recorded in the
run's settings (``mode: "label"``) all the same. The command line refused each
already; the library now does too, naming the parameter, before any call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import knows_facts, scorer

EXAMPLES = Path(fairjudge.__file__).parent / "examples"
ANSWERS = str(EXAMPLES / "score_answers.jsonl")
SPEC = "python:fairjudge.examples.judges:scorer"


def _never(*_: Any) -> Any:
    raise AssertionError("no call is made")


@pytest.mark.parametrize(
    ("given", "params"),
    [({"mode": "label"}, ("mode",)), ({"structured": True}, ("structured",)),
     ({"mode": "label", "structured": True}, ("mode", "structured"))],
)  # fmt: skip
def test_own_scoring_function(given: dict[str, Any], params: tuple[str, ...]) -> None:
    with pytest.raises(fairjudge.ConfigError, match="a Python judge is called directly") as e:
        fairjudge.score(ANSWERS, _never, **given)
    assert e.value.params == params
    assert str(e.value).startswith(", ".join(params) + " do")


@pytest.mark.parametrize("members", [[scorer, scorer], [SPEC, SPEC], [scorer, SPEC]])
@pytest.mark.parametrize("given", [{"mode": "label"}, {"structured": True}])
def test_panel_of_python_judges(members: list[Any], given: dict[str, Any]) -> None:
    with pytest.raises(fairjudge.ConfigError, match="a panel of Python functions") as e:
        fairjudge.score(ANSWERS, judges=members, **given)
    assert e.value.params == tuple(given)


def test_pairwise_calibrate() -> None:
    with pytest.raises(fairjudge.ConfigError, match="mode applies with rubric") as e:
        fairjudge.calibrate(str(EXAMPLES / "calibration.jsonl"), knows_facts, mode="label")
    assert e.value.params == ("mode",)


def test_json_mode_and_plain_runs_are_unchanged() -> None:
    done = fairjudge.score(ANSWERS, scorer, mode="json", structured=False)
    assert done.result.n_items == 40
    panel = fairjudge.score(ANSWERS, judges=[scorer, scorer])
    assert panel.kind == "score-jury"
