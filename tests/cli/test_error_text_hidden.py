"""Error lines on stderr show hidden characters as markers, as every report does.

An error message quotes a file name, a value or a server's reply: text the user did
not write. A bidi override in it must not reorder the line on the terminal.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_an_error_quoting_a_file_name_shows_its_override_as_a_marker(tmp_path: Path) -> None:
    name = "a\u202egnp.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", "compare", name, "--json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2
    assert "\u202e" not in done.stderr
    assert "a⟨U+202E⟩gnp.jsonl" in done.stderr
    assert done.stderr.startswith("error: ")
    # The JSON error keeps the exact name (escaped by JSON, not drawn).
    assert name in json.loads(done.stdout)["error"]["message"]
