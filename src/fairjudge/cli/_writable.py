"""Where a result file may go: checked before any judge call is paid for.

The check is the library's (:func:`fairjudge.io.check_writable`, which ``Result.save``
and ``merge_labels`` run too); its messages name the parameter, which the command
line words as the flag (``cli/_flags.py``). Only ``-`` is the command line's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fairjudge._errors import ConfigError

__all__ = ["check_writable"]


def check_writable(
    path: Path, flag: str = "--out", *, inputs: Iterable[Path | str | None] = ()
) -> None:
    """Prove a result file can be written where ``flag`` asks, before any judge call.

    ``-`` is refused: as an input it means standard input, so a file named ``-`` is
    never what was meant, and standard output is not offered either: the table and
    ``--json`` print there, and a result file is written whole or not at all, which
    a pipe cannot be.

    Raises:
        ConfigError: As :func:`fairjudge.io.check_writable`, naming the flag's parameter.
    """
    from fairjudge.io import check_writable as check

    if str(path) == "-":
        raise ConfigError(
            f"{flag} -: result files are not written to standard output (the table and "
            f"--json print there); give a file name, e.g. {flag} results.jsonl"
            if flag == "--out"
            else f"{flag} -: give a file name; '-' is not written to standard output"
        )
    check(path, flag.removeprefix("--").replace("-", "_"), inputs=inputs)
