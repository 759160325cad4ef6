"""``mode`` and ``structured`` are refused where no model reads them (QA40 F10).

Your own scoring function, a scoring panel of Python judges and pairwise ``calibrate``
ask no model in a mode: the option would have had no effect and been recorded in the
run's settings (``mode: "label"``) all the same. The command line refused each
already; the library now does too, naming the parameter, before any call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge.examples.judges import knows_facts, scorer
from tests.score_server import script
from tests.server import JudgeServer

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


def _python_panel() -> Any:
    from fairjudge.judges import MemberSpec, PointwiseJury

    return PointwiseJury.from_specs([MemberSpec(SPEC), MemberSpec(SPEC)], rubric="production")


@pytest.mark.parametrize(
    ("given", "params"),
    [({"mode": "label"}, ("mode",)), ({"structured": True}, ("structured",)),
     ({"mode": "label", "structured": True}, ("mode", "structured"))],
)  # fmt: skip
def test_a_built_panel_of_python_judges(given: dict[str, Any], params: tuple[str, ...]) -> None:
    """A built ``PointwiseJury`` whose members are all Python judges asks no model: a
    ``mode`` or ``structured`` beside it had no effect, and was recorded all the same."""
    with _python_panel() as panel, pytest.raises(fairjudge.ConfigError) as e:
        fairjudge.score(ANSWERS, judges=panel, **given)
    assert e.value.params == params
    assert str(e.value).startswith(
        f"{', '.join(params)} do{'es' if len(params) == 1 else ''} not apply to the judge "
        "'PointwiseJury' (its members are Python judges, called directly, with no prompt, "
        "model or server); drop "
    )
    with _python_panel() as panel:  # the default mode is no request: it runs
        assert fairjudge.score(ANSWERS, judges=panel, mode="json").kind == "score-jury"


def test_a_built_panel_given_as_judge_is_named_as_such() -> None:
    with _python_panel() as panel, pytest.raises(fairjudge.ConfigError) as e:
        fairjudge.score(ANSWERS, panel, mode="label")
    assert str(e.value) == "judge is a panel (a PointwiseJury); pass it as judges="


def test_a_built_panel_runs_in_its_model_members_mode(tmp_path: Path) -> None:
    """Its model members ask in the mode they were built with: another one is refused
    naming the member, and the run records theirs, not the parameter's default."""
    from fairjudge.backends import OpenAIBackend
    from fairjudge.judges import CallablePointwiseJudge, PointwiseJudge, PointwiseJury
    from fairjudge.prompts import get_rubric

    backend = OpenAIBackend("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key_env="FJ_NONE")
    built = PointwiseJudge(backend, mode="json", store=tmp_path / "s.sqlite")
    own = CallablePointwiseJudge(scorer, rubric=get_rubric("production"))
    panel = PointwiseJury.seat([("model", built, 1.0), ("own", own, 1.0)])
    with panel, pytest.raises(fairjudge.ConfigError, match="it was built with mode='json'") as e:
        fairjudge.score(ANSWERS, judges=panel, mode="label")
    assert e.value.params == ("mode",)
    assert "the judge 'openai/gpt-4o-mini'" in str(e.value)


def test_a_built_panel_records_its_model_members_mode(
    score_server: JudgeServer, tmp_path: Path
) -> None:
    from fairjudge.judges import MemberSpec, PointwiseJury

    script(score_server, lambda _: "4")
    specs = [MemberSpec("openai/scripted-judge", base_url=score_server.base_url), MemberSpec(SPEC)]
    store = tmp_path / "s.sqlite"
    quiet = fairjudge.runner.RunOptions(progress="quiet")
    with PointwiseJury.from_specs(
        specs, rubric="production", mode="label", store=store, options=quiet
    ) as panel:
        done = fairjudge.score(ANSWERS, judges=panel)
    saved = done.save(tmp_path / "run.jsonl")
    first = json.loads(saved.read_text("utf-8").splitlines()[0])
    assert first["fairjudge"]["settings"]["mode"] == "label"  # the members asked so; it said json
