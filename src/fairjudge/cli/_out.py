"""Every command's ``--out`` file: the header record, then the command's records.

One function writes them all, so every ``--out`` file opens with the same header
(:func:`fairjudge.io._out_file.out_header`): the kind of file, the command line, the
judge, the template or rubric, the settings and the fairjudge version.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from fairjudge.io import OutKind, out_header, write_jsonl_atomic

__all__ = ["command_line", "write_out"]


def command_line(name: str) -> list[str]:
    """The command as typed, ``fairjudge`` first (masked later, in the header).

    ``sys.argv`` when the process is the ``fairjudge`` command; otherwise (the CLI
    called from Python, as tests do) the command's ``name`` alone, not the host
    program's arguments.
    """
    program = Path(sys.argv[0]).name if sys.argv else ""
    if program.removesuffix(".exe") == "fairjudge":
        return ["fairjudge", *sys.argv[1:]]
    return ["fairjudge", name]


def write_out(
    path: Path,
    kind: OutKind,
    records: Iterable[dict[str, Any]],
    *,
    judge: str | None = None,
    template: str | None = None,
    rubric: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> None:
    """Write a ``--out`` file atomically: its header record, then ``records``."""
    command = command_line(kind.removesuffix("-via-scores"))
    header = out_header(
        kind, command=command, judge=judge, template=template, rubric=rubric, settings=settings
    )
    write_jsonl_atomic(path, itertools.chain([header], records))
