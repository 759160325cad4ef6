"""``fairjudge.compare`` with a judge that raises SystemExit or KeyboardInterrupt: raises, no hang.

A notebook's kernel waited for ever: the judge's ``SystemExit`` killed the engine's
event loop. The call runs in a child process with a timeout, so that a hang fails the
test instead of the test run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli._invoke import ROOT

CHILD = """
import sys
import fairjudge
from fairjudge import FatalBackendError, Item
from tests.judges import exiting_judges

items = [Item(f"q{i}", "short", "a longer answer", id=str(i)) for i in range(3)]
try:
    fairjudge.compare(items, getattr(exiting_judges, sys.argv[1]), store=sys.argv[2])
except FatalBackendError as exc:
    print("raised:", exc)
else:
    print("returned")
"""


@pytest.mark.parametrize("judge", ["exits", "interrupts", "async_exits"])
def test_compare_raises_a_fatal_error_naming_the_judge(tmp_path: Path, judge: str) -> None:
    child = subprocess.run(
        [sys.executable, "-c", CHILD, judge, str(tmp_path / "s.sqlite")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert child.returncode == 0, child.stderr  # the judge's SystemExit did not exit
    assert child.stdout.startswith(
        f"raised: the judge python:tests.judges.exiting_judges:{judge} raised "
    ), child.stdout
