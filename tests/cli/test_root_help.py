"""``fairjudge --help`` states the exit-code contract; a command's own help is its own.

``score`` and ``calibrate`` say their own codes in their help; the root's list must not
be added to every command's help (their ``--help`` stays as it was).
"""

from __future__ import annotations

import re

from typer.testing import CliRunner

from fairjudge.cli import _exit_codes, app
from fairjudge.cli._app import COMMANDS
from fairjudge.cli._exit_codes import EXIT_CODES_HELP


def _help(*args: str) -> str:
    done = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "100"})
    assert done.exit_code == 0, done.output
    return done.output


def test_the_root_help_lists_every_exit_code_one_a_line() -> None:
    text = _help()
    codes = text.split("Exit codes:\n", 1)[1]
    listed = [int(m.group(1)) for m in re.finditer(r"^ +(\d+) +\S", codes, re.MULTILINE)]
    named = [getattr(_exit_codes, n) for n in _exit_codes.__all__ if n != "EXIT_CODES_HELP"]
    assert listed == sorted([0, *named])  # every code a command raises, once, in order
    assert listed == [0, 1, 2, 3, 4, 5, 6, 7, 8, 130, 143]
    assert "--max-calls/--max-cost" in codes
    assert "--batch-api without --wait" in codes


def test_no_commands_help_shows_the_exit_codes() -> None:
    for name in COMMANDS:
        shown = _help(name)
        assert not [line for line in EXIT_CODES_HELP.splitlines()[2:] if line in shown], name
