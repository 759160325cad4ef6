"""Run pytest on a copy of the CI example, in a process of its own, as CI does.

The child pytest loads the plugin by name (``-p fairjudge.testing``) with entry-point
autoloading off, so the runs are the same whether or not this checkout's install
has registered the ``pytest11`` entry point, and no other plugin joins in.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "fairjudge" / "examples" / "ci"


def example_repo(tmp_path: Path) -> Path:
    """A copy of ``examples/ci``, as a user's checkout of it."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("__pycache__", ".fairjudge"))
    return repo


def run_pytest(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``pytest -q ARGS`` in ``repo``; ``env`` adds variables (``CANDIDATE="ckpt-8"``)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    environment.update({"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "COLUMNS": "200", **env})
    command = [sys.executable, "-m", "pytest", "-p", "fairjudge.testing", "-p", "no:cacheprovider",
               "-q", "-p", "no:randomly", *args]  # fmt: skip
    return subprocess.run(
        command, cwd=repo, env=environment, capture_output=True, text=True, timeout=300
    )


def outcome(done: subprocess.CompletedProcess[str]) -> dict[str, int]:
    """The final line's counts: ``{"passed": 3}``, ``{"failed": 3}``..."""
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|error|errors)", last)}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
