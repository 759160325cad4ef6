"""Run the command line in-process: the helpers the CLI tests share."""

from __future__ import annotations

import socket
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app

runner = CliRunner()


ROOT = Path(__file__).resolve().parents[2]


LONGER = "python:tests.judge_fixtures:longer"


def invoke(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), env=env)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
