"""Run the ``fairjudge`` command line as a user does: a process of its own, its output read.

Shared by the tests that check exit codes and printed lines. ``COLUMNS`` is fixed so
that rich wraps the same way on every machine (200 unless a test is about width).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.forked_cli import LIBRARY, shared

ROOT = Path(__file__).resolve().parents[1]


def fairjudge(
    *args: str | Path, columns: int = 200, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run the command line in a process of its own, from the repository root by default.

    The process is forked from one that has imported the command line already
    (:func:`tests.forked_cli.shared`): the same run as a fresh one, less the imports.
    """
    return run_process(args, env={**os.environ, "COLUMNS": str(columns)}, cwd=cwd)


def run_process(
    args: tuple[str | Path, ...] | list[str | Path],
    *,
    env: Mapping[str, str],
    cwd: Path = ROOT,
    timeout: float = 120,
    program: str = "-c",
    preload: Sequence[str] = LIBRARY,
) -> subprocess.CompletedProcess[str]:
    """``python -c "from fairjudge.cli import main; main()" ARGS``, with ``env`` as its
    whole environment, as a forked process (:func:`tests.forked_cli.shared`).

    What ``subprocess.run(..., capture_output=True, text=True)`` would give: the exit
    code, stdout and stderr apart; past ``timeout``, ``subprocess.TimeoutExpired``.
    ``program`` is the run's ``sys.argv[0]`` (``fairjudge`` for a test that set it so).
    ``preload``: what the server imports before it forks (one server per environment
    and preload): the whole library by default, as many runs share an environment;
    :data:`~tests.forked_cli.PACKAGES` starts faster, for an environment of a few runs.
    """
    argv = [*map(str, args)]
    forks = shared(env, preload=preload)
    code, out, err = forks.run(argv, cwd=cwd, env=env, timeout=timeout, program=program)
    if code is None:
        raise subprocess.TimeoutExpired(["fairjudge", *argv], timeout, out, err)
    return subprocess.CompletedProcess(["fairjudge", *argv], code, out, err)


def flat(text: str) -> str:
    """The text with every run of whitespace one space: lines wrap at the console's width."""
    return " ".join(text.split())
