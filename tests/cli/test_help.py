"""``--help`` fits 80 columns with whole option names; ``--version`` prints the version."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.cli._invoke import ROOT, invoke


def test_help_at_80_columns_shows_whole_options() -> None:
    env = {**os.environ, "COLUMNS": "80", "TERM": "xterm"}
    out = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare", "--help"],
        capture_output=True, text=True, env=env, cwd=ROOT, check=True,
    ).stdout  # fmt: skip
    for option in ("--price-output", "--max-unresolved", "--skip-invalid", "--reference-col"):
        assert option in out
    assert "…" not in out
    assert "--json <bool>" not in out
    assert "--json" in out
    assert "concise" in out  # --template lists the built-in names
    assert "--price-input/--price-output" in out  # --max-cost names what it needs
    assert max(len(line) for line in out.splitlines()) <= 80


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.output.startswith("fairjudge ")
