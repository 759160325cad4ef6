"""A concurrency for the embedded ``local/`` judge is refused: it has no effect.

The in-process model answers one call at a time (``LocalBackend.max_concurrency`` is
1), so ``--concurrency N`` (``RunOptions(concurrency=N)``) never put two calls in
flight and nothing said so. It is refused as the judge is resolved, before the model
loads, as the other options that do not apply to a judge are; an audit's one judge,
which opens on the audit's session, is refused as its session opens. The default, a
panel's shared session, an audit of several models and a Ray executor (one model per
node) are not refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import pytest

import fairjudge
from fairjudge import ConfigError
from fairjudge.backends import LocalBackend
from fairjudge.judges import resolve_judge, resolve_pointwise_judge
from fairjudge.runner import RunOptions
from tests.cli._invoke import invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples"
WHY = "(it runs in this process, one call at a time); drop it"


class Loaded(ConfigError):
    """The model was asked to load: every check before it passed."""


@pytest.fixture(autouse=True)
def no_model_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    def load(*args: Any, **kwargs: Any) -> NoReturn:
        raise Loaded("the model loads here")

    monkeypatch.setattr(LocalBackend, "from_name", load)


def test_a_concurrency_for_a_local_judge_is_refused_before_it_loads() -> None:
    options = RunOptions(concurrency=4, progress="quiet")
    for resolve in (resolve_judge, resolve_pointwise_judge):
        with pytest.raises(ConfigError) as exc:
            resolve("local/gemma-3-270m", options=options)
        assert exc.value.params == ("concurrency",)
        assert (
            str(exc.value) == f"concurrency does not apply to the judge 'local/gemma-3-270m' {WHY}"
        )


def test_a_notebook_run_is_refused_too() -> None:
    options = RunOptions(concurrency=2, progress="quiet")
    pairs, answers = EXAMPLES / "demo_pairs.jsonl", EXAMPLES / "score_answers.jsonl"
    for call, items in ((fairjudge.compare, pairs), (fairjudge.score, answers)):
        with pytest.raises(ConfigError, match="concurrency does not apply"):
            call(items, "local/gemma-3-270m", options=options)


def test_the_default_a_ray_executor_and_a_panel_are_not_refused() -> None:
    with pytest.raises(Loaded):
        resolve_judge("local/gemma-3-270m", options=RunOptions(progress="quiet"))
    with pytest.raises(Loaded):
        resolve_pointwise_judge("local/gemma-3-270m")
    with pytest.raises(Loaded):  # one model on each Ray node: concurrency counts there
        resolve_judge("local/gemma-3-270m", options=RunOptions(concurrency=4), executor="ray")
    with pytest.raises(Loaded):  # two models on one session: the calls in flight are two
        fairjudge.compare(EXAMPLES / "demo_pairs.jsonl",
                          judges=["local/gemma-3-270m", "local/qwen2.5-coder-1.5b"],
                          options=RunOptions(concurrency=1, progress="quiet"))  # fmt: skip


def test_the_command_names_the_flag_and_the_demo_runs_on() -> None:
    pairs = str(EXAMPLES / "demo_pairs.jsonl")
    done = invoke("compare", pairs, "--judge", "local/gemma-3-270m", "--concurrency", "4")
    assert done.exit_code == 2
    assert f"error: --concurrency does not apply to the judge 'local/gemma-3-270m' {WHY}" \
        in done.stderr  # fmt: skip
    done = invoke("score", str(EXAMPLES / "score_answers.jsonl"), "--concurrency", "3")
    assert done.exit_code == 2
    assert "--concurrency does not apply to the judge 'local/qwen2.5-coder-1.5b'" in done.stderr
    # make demo's command (the default judge, no --concurrency) reaches the model.
    done = invoke("compare", pairs, "--rule", "soft", "--quiet")
    assert "error: the model loads here" in done.stderr


def test_an_audit_of_one_local_judge_is_refused_before_it_loads() -> None:
    options = RunOptions(concurrency=4, progress="quiet")
    for judges in (None, "local/gemma-3-270m", ["local/gemma-3-270m", " local/gemma-3-270m"]):
        with pytest.raises(ConfigError) as exc:
            fairjudge.audit_judge(judges, experiments="position", limit=2, options=options)
        assert exc.value.params == ("concurrency",)
        assert "concurrency does not apply to the judge 'local/" in str(exc.value)
    done = invoke("audit", "--judge", "local/gemma-3-270m", "--concurrency", "4",
                  "--experiments", "position", "--limit", "2")  # fmt: skip
    assert done.exit_code == 2
    assert f"error: --concurrency does not apply to the judge 'local/gemma-3-270m' {WHY}" \
        in done.stderr  # fmt: skip


def test_an_audit_without_it_or_of_several_models_reaches_the_model() -> None:
    with pytest.raises(Loaded):
        fairjudge.audit_judge("local/gemma-3-270m", experiments="position", limit=2,
                              options=RunOptions(progress="quiet"))  # fmt: skip
    with pytest.raises(Loaded):  # two models on the audit's session share its calls
        fairjudge.audit_judge(["local/gemma-3-270m", "local/qwen2.5-coder-1.5b"],
                              experiments="position", limit=2,
                              options=RunOptions(concurrency=2, progress="quiet"))  # fmt: skip
    done = invoke("audit", "--experiments", "position", "--limit", "2", "--quiet")
    assert "error: the model loads here" in done.stderr
