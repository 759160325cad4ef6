"""Fixtures: the scripted server reading whole prompts, and audit judges on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fairjudge.audit import ModelAuditJudge
from fairjudge.judges import BackendOptions, JudgeSession
from fairjudge.runner import RunOptions
from tests.audit.planted import Planted, judge_fn
from tests.server import JudgeServer, Pair


@pytest.fixture
def audit_server(openai_env: JudgeServer, monkeypatch: pytest.MonkeyPatch) -> JudgeServer:
    """The scripted server with OPENAI_API_KEY set, handing each judge the whole prompt."""
    monkeypatch.setattr("tests.server._app.extract_pair", lambda prompt: Pair(prompt, "", ""))
    return openai_env


def plant(server: JudgeServer, planted: Planted) -> None:
    """Make the server's judge the planted one."""
    fn = judge_fn(planted)
    server.configure(judge=lambda pair: fn(pair.question), reply_format="{verdict}")


@pytest.fixture
def session(tmp_path: Path) -> Iterator[JudgeSession]:
    with JudgeSession(store=tmp_path / "store.sqlite", options=RunOptions.build(quiet=True)) as s:
        yield s


def model_judge(
    server: JudgeServer, session: JudgeSession, model: str = "scripted-judge"
) -> ModelAuditJudge:
    return ModelAuditJudge(
        f"openai/{model}", session=session, backend_options=BackendOptions(base_url=server.base_url)
    )
