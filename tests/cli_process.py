"""Run the ``fairjudge`` command line as a user does: a fresh process, its output read.

Shared by the tests that check exit codes and printed lines. ``COLUMNS`` is fixed so
that rich wraps the same way on every machine (200 unless a test is about width).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fairjudge(
    *args: str | Path, columns: int = 200, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run the command line in a fresh process, from the repository root by default."""
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, env=env, check=False, timeout=120,
    )  # fmt: skip


def flat(text: str) -> str:
    """The text with every run of whitespace one space: lines wrap at the console's width."""
    return " ".join(text.split())
