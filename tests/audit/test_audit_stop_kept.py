"""A stop on refused calls counts what the store kept over the whole audit.

The position experiment's calls were made and stored before the framing run was
stopped; the stop's message must not say 0 calls were kept.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from tests.audit.conftest import plant
from tests.audit.planted import Planted
from tests.server import JudgeServer


def test_a_stop_in_framing_counts_the_position_calls_kept(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    plant(audit_server, Planted(first_share=0.5))
    # The strict rubric's every prompt is refused: the framing run stops on it.
    audit_server.configure(too_long_marker="Ordinary answers do not exceed")
    store = tmp_path / "store.sqlite"
    args = ["audit", "--judge", "openai/scripted-judge", "--base-url", audit_server.base_url]
    args += ["--store", str(store), "--quiet", "--limit", "4"]
    result = CliRunner().invoke(app, [*args, "--experiments", "position,framing"])
    assert result.exit_code != 0, result.stdout
    found = re.search(r"The (\d+) calls finished so far are kept", result.stderr)
    assert found is not None, result.stderr
    with sqlite3.connect(store) as db:
        (kept,) = db.execute("select count(*) from calls where status = 'ok'").fetchone()
    assert kept > 0  # position's calls and framing's standard scores
    assert int(found.group(1)) == kept, result.stderr
