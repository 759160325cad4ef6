"""``calibrate --html`` writes the page every command writes: its command row is the command.

The page's run facts come from ``cli/_out.write_page``, which passes the command as
typed; calibrate called ``Result.to_html`` itself, so its page said ``command: not
recorded`` where every other command's names the command.
"""

from __future__ import annotations

from pathlib import Path

import fairjudge
from tests.cli._invoke import invoke

CALIBRATION = Path(fairjudge.__file__).parent / "examples" / "calibration.jsonl"
LONGER = "python:fairjudge.examples.judges:longer"


def test_the_calibrate_page_names_the_command_as_typed(tmp_path: Path) -> None:
    page = tmp_path / "calibrate.html"
    done = invoke("calibrate", str(CALIBRATION), "--judge", LONGER, "--html", str(page), "-q")
    assert done.exit_code in (0, 3), done.output  # 3: the example judge fails the gate
    text = page.read_text("utf-8")
    row = '<dd class="fj-command"><span>fairjudge</span> <span>calibrate</span></dd>'
    assert f"<dt>command</dt>{row}" in text  # as invoke() records it, each argument whole
    assert "<dt>command</dt><dd>not recorded</dd>" not in text
