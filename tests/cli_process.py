"""Run the ``fairjudge`` command line as a user does: a process of its own, its output read.

Shared by the tests that check exit codes and printed lines. ``COLUMNS`` is fixed so
that rich wraps the same way on every machine (200 unless a test is about width).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.forked_cli import shared

ROOT = Path(__file__).resolve().parents[1]


def fairjudge(
    *args: str | Path, columns: int = 200, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run the command line in a process of its own, from the repository root by default.

    The process is forked from one that has imported the command line already
    (:func:`tests.forked_cli.shared`): the same run as a fresh one, less the imports.
    """
    env = {**os.environ, "COLUMNS": str(columns)}
    argv = [*map(str, args)]
    code, out, err = shared(env).run(argv, cwd=cwd, env=env, timeout=120)
    if code is None:
        raise subprocess.TimeoutExpired(["fairjudge", *argv], 120, out, err)
    return subprocess.CompletedProcess(["fairjudge", *argv], code, out, err)


def flat(text: str) -> str:
    """The text with every run of whitespace one space: lines wrap at the console's width."""
    return " ".join(text.split())
