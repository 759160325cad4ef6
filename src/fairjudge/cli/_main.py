"""The ``fairjudge`` script: the app, whose commands load when they run (see ``_app``)."""

import sys

from fairjudge.cli._app import app

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``fairjudge`` script."""
    app(prog_name="fairjudge")
    sys.exit(0)
