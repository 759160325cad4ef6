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


@pytest.mark.parametrize(
    ("given", "params"),
    [({"mode": "label"}, ("mode",)), ({"structured": True}, ("structured",))],
)
def test_a_built_judge_runs_in_its_own_mode(
    given: dict[str, Any], params: tuple[str, ...], tmp_path: Path
) -> None:
    """A ``PointwiseJudge`` built in one mode asks its model so: another ``mode`` or
    ``structured`` beside it had no effect, and was recorded in the run's settings."""
    from fairjudge.backends import OpenAIBackend
    from fairjudge.judges import PointwiseJudge

    backend = OpenAIBackend("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key_env="FJ_NONE")
    built = PointwiseJudge(backend, mode="json", store=tmp_path / "s.sqlite")
    with built, pytest.raises(fairjudge.ConfigError, match="it was built with mode='json'") as e:
        fairjudge.score(ANSWERS, built, **given)
    assert e.value.params == params
