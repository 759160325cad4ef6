"""``executor=`` through the library: a session's executor, built from a name or given.

A name (``"ray"``, ``"ray:ADDRESS"``) makes an executor the session owns: built at
the first batch the store cannot answer, shut down with the session. An executor
object is the caller's: used, never closed. These run without Ray: the Ray executor
is replaced by a recording fake where a test needs one built (the real one is
tested in tests/runner/test_ray_*.py and tests/cli/test_ray_cli.py).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import fairjudge
from fairjudge._errors import ConfigError, MissingExtraError
from fairjudge.judges import JudgeSession, Jury, MemberSpec, resolve_judge
from fairjudge.judges._session import OwnedExecutor, open_executor
from fairjudge.runner import AsyncioExecutor, Batch, RunOptions, RunResult
from tests.server import JudgeServer

QUIET = RunOptions(progress="quiet")
LONGER = "python:fairjudge.examples.judges:longer"
ROWS = [
    {"id": str(i), "question": f"q{i}?", "answer_1": "a long answer" * (i % 2 + 1), "answer_2": "b"}
    for i in range(6)
]


class Recording:
    """An executor that runs batches on asyncio and records what it was asked."""

    def __init__(self) -> None:
        self.batches: list[int] = []
        self.closed = 0

    async def execute(self, batch: Batch) -> RunResult:
        self.batches.append(len(batch.specs))
        return await AsyncioExecutor().execute(batch)

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, Recording]]:
    """Every Ray executor an owned executor builds, as (address, fake) pairs."""
    made: list[tuple[str | None, Recording]] = []

    def build(self: OwnedExecutor) -> Recording:
        if self.built is None:
            self.built = Recording()  # type: ignore[assignment]
            made.append((self.address, self.built))  # type: ignore[arg-type]
        return self.built  # type: ignore[return-value]

    monkeypatch.setattr(OwnedExecutor, "build", build)
    return made


def _compare(server: JudgeServer, store: Path, **kwargs: Any) -> dict[str, Any]:
    result = fairjudge.compare(
        ROWS, "openai/scripted", backend=fairjudge.judges.BackendOptions(base_url=server.base_url),
        store=store, options=QUIET, **kwargs,
    )  # fmt: skip
    payload = result.to_dict()
    payload.pop("calls", None)
    return payload


@pytest.mark.parametrize(
    ("name", "address"),
    [
        ("ray", None),
        ("ray:auto", "auto"),
        ("ray:10.0.0.5:6379", "10.0.0.5:6379"),
        ("ray://head:10001", "ray://head:10001"),
    ],
)
def test_a_ray_name_makes_an_owned_executor_with_its_address(
    name: str, address: str | None
) -> None:
    executor, owned = open_executor(name)
    assert isinstance(executor, OwnedExecutor)
    assert owned is executor
    assert executor.address == address
    assert executor.built is None  # nothing started, nothing imported yet


def test_asyncio_by_name_or_by_default_is_the_asyncio_executor() -> None:
    for name in (None, "asyncio"):
        executor, owned = open_executor(name)
        assert isinstance(executor, AsyncioExecutor)
        assert owned is None


@pytest.mark.parametrize("bad", ["rays", "ray:", "Ray", "dask", 3])
def test_an_unknown_executor_is_refused_naming_the_parameter(bad: object) -> None:
    with pytest.raises(ConfigError, match="executor") as info:
        JudgeSession(store=":memory:", executor=bad)  # type: ignore[arg-type]
    assert info.value.params == ("executor",)


def test_ray_without_ray_installed_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a)
    )
    with pytest.raises(MissingExtraError, match=r"pip install 'fairjudge\[ray\]'"):
        JudgeSession(store=":memory:", executor="ray")


def test_a_given_executor_runs_the_batches_and_stays_open(
    openai_env: JudgeServer, tmp_path: Path
) -> None:
    mine = Recording()
    on_it = _compare(openai_env, tmp_path / "a.sqlite", executor=mine)
    assert mine.batches == [12]  # 6 items x 2 orders, one batch
    assert mine.closed == 0  # the caller's to close
    assert on_it == _compare(openai_env, tmp_path / "b.sqlite")  # asyncio, the default


def test_a_named_executor_is_built_at_the_first_uncached_batch_and_shut_down(
    openai_env: JudgeServer, tmp_path: Path, built: list[tuple[str | None, Recording]]
) -> None:
    store = tmp_path / "s.sqlite"
    first = _compare(openai_env, store, executor="ray:auto")
    assert [(address, fake.batches, fake.closed) for address, fake in built] == [("auto", [12], 1)]
    # A fully cached rerun builds nothing: no Ray is imported or started.
    assert _compare(openai_env, store, executor="ray") == first
    assert len(built) == 1
    assert openai_env.count("requests") == 12


def test_a_jury_of_specs_runs_its_one_session_on_the_executor(
    openai_env: JudgeServer, tmp_path: Path, built: list[tuple[str | None, Recording]]
) -> None:
    members = [MemberSpec("openai/one", base_url=openai_env.base_url),
               MemberSpec("openai/two", base_url=openai_env.base_url)]  # fmt: skip
    result = fairjudge.compare(
        ROWS, judges=members, store=tmp_path / "s.sqlite", options=QUIET, executor="ray"
    )
    assert result.stopped is None
    assert [(fake.batches, fake.closed) for _, fake in built] == [([24], 1)]


def test_an_executor_does_not_apply_to_a_judge_that_calls_no_model() -> None:
    with pytest.raises(ConfigError, match="executor does not apply") as info:
        resolve_judge(LONGER, executor="ray")
    assert "executor" in info.value.params
    resolve_judge(LONGER, executor="asyncio")  # the default: nothing to refuse
    with pytest.raises(ConfigError, match="executor does not apply to a jury of Python"):
        Jury.from_specs([MemberSpec(LONGER), MemberSpec(LONGER, name="b")], executor="ray")
    with pytest.raises(ConfigError, match="executor"):
        fairjudge.compare(ROWS, LONGER, executor="ray")


def test_an_executor_next_to_a_session_is_refused() -> None:
    where = fairjudge.judges.BackendOptions(base_url="http://127.0.0.1:9/v1")  # never called
    with (
        JudgeSession(store=":memory:") as session,
        pytest.raises(ConfigError, match="executor= does not apply with session="),
    ):
        resolve_judge("openai/m", backend_options=where, session=session, executor="ray")


def test_rank_of_judged_battles_refuses_an_executor(tmp_path: Path) -> None:
    battles = tmp_path / "b.jsonl"
    rows = [{"model_a": "x", "model_b": "y", "winner": "model_a"}] * 3
    battles.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(ConfigError, match="executor: the items are judged battles"):
        fairjudge.rank(battles, executor="ray")
