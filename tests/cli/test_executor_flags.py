"""``--executor`` and ``--ray-address`` on every command that calls a judge (issue 23).

Without Ray running: the usage errors (exit 2, before any file is read or call is
made), ``--executor asyncio`` equal to the default, Ray imported by nothing but
``--executor ray``, and each command's executor reaching its session (the Ray
executor replaced by a recording fake). The Ray runs themselves are in
``test_ray_cli.py``.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fairjudge.judges._session import OwnedExecutor
from fairjudge.runner import AsyncioExecutor, Batch, RunResult
from tests.cli._invoke import ROOT, invoke
from tests.server import JudgeServer

EXAMPLES = ROOT / "src" / "fairjudge" / "examples"
LONGER = "python:fairjudge.examples.judges:longer"
SCORER = "python:fairjudge.examples.judges:scorer"
PAIRS = EXAMPLES / "demo_pairs.jsonl"
ANSWERS = EXAMPLES / "score_answers.jsonl"


def _commands(judge: str, *more: str) -> dict[str, list[str]]:
    """Each judging command, with ``judge`` (twice for the panels) and the flags ``more``."""
    two = ["--judge", judge, "--judge", judge.replace("scripted", "second")]
    return {
        "compare": ["compare", str(PAIRS), "--judge", judge, *more],
        "compare --via-scores": ["compare", str(PAIRS), "--via-scores", "--judge", judge, *more],
        "calibrate": ["calibrate", str(EXAMPLES / "calibration.jsonl"), "--judge", judge, *more],
        "rank": ["rank", str(EXAMPLES / "rank_answers.jsonl"), "--judge", judge, *more],
        "score": ["score", str(ANSWERS), "--judge", judge, *more],
        "jury": ["jury", str(PAIRS), *two, *more],
        "score-jury": ["score-jury", str(ANSWERS), *two, *more],
        "audit": ["audit", "--limit", "2", "--experiments", "position", "--judge", judge, *more],
    }


COMMANDS = sorted(_commands("x"))


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("executor", [[], ["--executor", "asyncio"]])
def test_a_ray_address_without_the_ray_executor_is_a_usage_error(
    command: str, executor: list[str]
) -> None:
    argv = _commands("openai/scripted", "--ray-address", "auto", *executor)[command]
    done = invoke(*argv)
    assert done.exit_code == 2, done.output
    assert "--ray-address applies with --executor ray only" in done.output


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_ray_address_is_a_usage_error_naming_the_flag(command: str) -> None:
    """The library refuses ``executor="ray: "``; the command line names its flag."""
    argv = _commands("openai/scripted", "--base-url", "http://127.0.0.1:9/v1",
                     "--executor", "ray", "--ray-address", " ", "--json")[command]  # fmt: skip
    done = invoke(*argv)
    assert done.exit_code == 2, done.output
    assert json.loads(done.stdout)["error"]["message"] == (
        "--ray-address is empty; give auto, HOST:PORT or ray://HOST:PORT"
    )


def test_an_empty_ray_address_is_the_librarys_error() -> None:
    """A notebook gets the same check, in its own words."""
    from fairjudge import ConfigError, JudgeSetup

    with pytest.raises(ConfigError) as caught:
        JudgeSetup(executor="ray:  ")
    assert str(caught.value).startswith("the address in executor='ray:ADDRESS' is empty")
    assert caught.value.params == ("executor",)


@pytest.mark.parametrize("command", ["compare", "score", "rank"])
def test_the_ray_executor_with_a_python_judge_is_a_usage_error(command: str) -> None:
    judge = SCORER if command == "score" else LONGER
    done = invoke(*_commands(judge, "--executor", "ray")[command])
    assert done.exit_code == 2, done.output
    assert "--executor does not apply to the judge" in done.output
    assert "a Python judge is called directly" in done.output


def test_the_ray_executor_on_a_panel_of_python_judges_is_a_usage_error() -> None:
    done = invoke("score-jury", str(ANSWERS), "--judge", SCORER, "--judge", SCORER,
                  "--executor", "ray")  # fmt: skip
    assert done.exit_code == 2, done.output
    assert "--executor" in done.output


def test_an_unknown_executor_is_a_usage_error() -> None:
    done = invoke("compare", str(PAIRS), "--judge", LONGER, "--executor", "dask")
    assert done.exit_code == 2
    assert "'dask' is not one of 'asyncio', 'ray'" in done.output


def test_the_ray_executor_without_ray_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a)
    )
    done = invoke("compare", str(PAIRS), "--judge", "openai/scripted",
                  "--base-url", "http://127.0.0.1:9/v1", "--executor", "ray", "--json")  # fmt: skip
    assert done.exit_code == 2, done.output
    error = json.loads(done.stdout)["error"]
    assert error["type"] == "MissingExtraError"
    assert "pip install 'fairjudge[ray]'" in error["message"]


def _without_calls(output: str) -> dict[str, Any]:
    """The ``--json`` less what differs between any two runs: the timings.

    ``calls`` (with its wall time) and, on a panel, each member's mean latency.
    """
    payload = json.loads(output)
    payload.pop("calls")
    for member in payload.get("members", []):
        member["usage"].pop("mean_latency_s")
    return payload


@pytest.mark.parametrize("command", ["compare", "score", "jury"])
def test_the_asyncio_executor_is_the_default(
    command: str, score_server: JudgeServer, tmp_path: Path
) -> None:
    outputs = []
    for name, executor in (("default", []), ("asyncio", ["--executor", "asyncio"])):
        store = str(tmp_path / f"{name}.sqlite")
        argv = _commands("openai/scripted", "--base-url", score_server.base_url, "--json",
                         "--quiet", "--store", store, *executor)  # fmt: skip
        done = invoke(*argv[command])
        assert done.exit_code in (0, 4), done.output
        outputs.append(_without_calls(done.stdout))  # calls: its wall time differs
    assert outputs[0] == outputs[1]
    assert outputs[0]["n_items"] > 0


class Recording:
    """A stand-in for the Ray executor: runs on asyncio, records its batches and close."""

    def __init__(self) -> None:
        self.batches = 0
        self.closed = 0

    async def execute(self, batch: Batch) -> RunResult:
        self.batches += 1
        return await AsyncioExecutor().execute(batch)

    def close(self) -> None:
        self.closed += 1


@pytest.mark.parametrize("command", COMMANDS)
def test_the_ray_executor_reaches_each_commands_session(
    command: str, score_server: JudgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[tuple[str | None, Recording]] = []

    def build(self: OwnedExecutor) -> Recording:
        if self.built is None:
            self.built = Recording()  # type: ignore[assignment]
            built.append((self.address, self.built))  # type: ignore[arg-type]
        return self.built  # type: ignore[return-value]

    monkeypatch.setattr(OwnedExecutor, "build", build)
    argv = _commands("openai/scripted", "--base-url", score_server.base_url, "--quiet",
                     "--store", str(tmp_path / "s.sqlite"), "--executor", "ray",
                     "--ray-address", "127.0.0.1:6379")[command]  # fmt: skip
    done = invoke(*argv)
    assert done.exit_code not in (1, 2), done.output
    assert [address for address, _ in built] == ["127.0.0.1:6379"]
    fake = built[0][1]
    assert fake.batches >= 1
    assert fake.closed == 1
    assert score_server.count("requests") > 0


def _imports_ray(code: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print('ray' in sys.modules)"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    return done.stdout.strip().splitlines()[-1] == "True"


def test_ray_is_imported_only_when_asked_for(openai_env: JudgeServer, tmp_path: Path) -> None:
    assert not _imports_ray("import fairjudge, fairjudge.runner, fairjudge.judges")
    assert not _imports_ray("from fairjudge.runner import RayExecutor; RayExecutor()")
    main = "from fairjudge.cli import main\nimport sys\nsys.argv = ['fairjudge', *{}]\ntry:\n    main()\nexcept SystemExit:\n    pass"  # noqa: E501
    assert not _imports_ray(main.format(["--help"]))
    assert not _imports_ray(main.format(["compare", "--help"]))
    run = ["compare", str(PAIRS), "--judge", "openai/scripted", "--base-url",
           openai_env.base_url, "--store", str(tmp_path / "s.sqlite"), "--quiet"]  # fmt: skip
    assert not _imports_ray(main.format(run))
    assert not _imports_ray(main.format([*run, "--executor", "asyncio"]))
    # A fully cached rerun on Ray starts no Ray: nothing is left to run.
    assert not _imports_ray(main.format([*run, "--executor", "ray"]))
