"""The audit card and its progress lines, read as a user reads them.

Before, at 80 columns (a pipe, a default terminal) the unit under an effect's name ran
into it ("first-position share of decisive calls share"); the progress lines of the
audit's many batches carried no label; and "18 made now, the rest from the store"
was printed when no call came from the store. The command runs as a process.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.audit.conftest import plant
from tests.audit.planted import Planted
from tests.cli_process import run_process
from tests.forked_cli import PACKAGES
from tests.server import JudgeServer

ROOT = Path(__file__).resolve().parents[2]


def _audit(server: JudgeServer, store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80"}  # OPENAI_API_KEY: set by the fixture
    argv = ("audit", "--judge", "openai/scripted-judge", "--base-url", server.base_url,
            "--store", str(store), "--bootstrap", "200", "--limit", "3", *args)  # fmt: skip
    # Forked: the same run, less the imports; PACKAGES: a server that starts fast (3 runs).
    return run_process(argv, env=env, cwd=ROOT, timeout=120, preload=PACKAGES)


def test_units_labels_and_the_store_are_said_plainly(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    plant(audit_server, Planted(first_share=0.5))
    store = tmp_path / "store.sqlite"
    done = _audit(audit_server, store, "--experiments", "position")
    assert done.returncode == 0, done.stderr
    cells = [line.strip("│ ").split("│")[0].strip() for line in done.stdout.splitlines()]
    # The name folds over two lines at 80 columns; its unit is a line of its own.
    at = next(i for i, c in enumerate(cells) if c.startswith("first-position"))
    folded = cells[at : cells.index("(share)", at) + 1]  # where it folds: the CI cell's width
    assert " ".join(folded) == "first-position share of decisive calls (share)"
    assert "decisive calls share" not in " ".join(cells)
    assert "calls: 6 asked for; all made now." in done.stdout
    assert "the rest" not in done.stdout
    assert "fairjudge: position: 6 calls: 0 cached, 6 to make" in done.stderr.splitlines()

    more = _audit(audit_server, store, "--experiments", "position,framing")
    assert more.returncode == 0, more.stderr
    assert "calls: 18 asked for; 12 made now, 6 from the store." in more.stdout
    labels = {line.split(":")[1].strip() for line in more.stderr.splitlines()
              if line.startswith("fairjudge: ")}  # fmt: skip
    framing = {"framing, basic run (rubric basic)", "framing, strict run (rubric strict)"}
    assert labels == {"position", *framing}  # framing's two runs, each named

    again = _audit(audit_server, store, "--experiments", "position,framing")
    assert again.returncode == 0, again.stderr
    assert "calls: 18 asked for; 0 made now, all from the store." in again.stdout
