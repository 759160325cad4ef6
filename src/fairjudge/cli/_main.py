"""The ``fairjudge`` script: the app with every command registered."""

import sys

from fairjudge.cli._app import app
from fairjudge.cli._calibrate import calibrate
from fairjudge.cli._compare import compare
from fairjudge.cli._rank import rank
from fairjudge.cli._report import report
from fairjudge.cli._rubrics import rubrics
from fairjudge.cli._score import score

__all__ = ["main"]

COMMANDS = (calibrate, compare, rank, report, rubrics, score)
"""The commands, imported for their side effect of registering with ``app``."""


def main() -> None:
    """Entry point of the ``fairjudge`` script."""
    app(prog_name="fairjudge")
    sys.exit(0)
