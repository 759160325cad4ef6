"""Where a result file may go: checked before any judge call is paid for.

Only the command line writes result files (``--out``, ``--html``, ``--output``), so
this check, and its messages, speak in the flag that named the file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from fairjudge._errors import ConfigError

__all__ = ["check_writable"]


def check_writable(
    path: Path, flag: str = "--out", *, inputs: Iterable[Path | str | None] = ()
) -> None:
    """Prove a result file can be written where asked, before any judge call is paid for.

    Refuses a file that writing would destroy: one of the command's ``inputs``, or an
    existing SQLite database (such as the store). Then creates the folder if needed and
    writes (then removes) a probe file beside the target, so a read-only folder, a
    parent that is a file or a full disk is found now.

    ``-`` is refused: as an input it means standard input, so a file named ``-`` is
    never what was meant, and standard output is not offered either: the table and
    ``--json`` print there, and a result file is written whole or not at all, which
    a pipe cannot be.

    Raises:
        ConfigError: The file could not be written there, or must not be; the message
            says why.
    """
    if str(path) == "-":
        raise ConfigError(
            f"{flag} -: result files are not written to standard output (the table and "
            f"--json print there); give a file name, e.g. {flag} results.jsonl"
            if flag == "--out"
            else f"{flag} -: give a file name; '-' is not written to standard output"
        )
    _refuse_input(path, flag, inputs)
    if path.is_dir():
        raise ConfigError(f"{flag} {path}: is a folder; give a file name")
    if path.exists() and not path.is_file():
        # A result file is renamed into place: a device (/dev/null, /dev/stdout) or a
        # pipe there would be replaced by a plain file, which run as root breaks the system.
        raise ConfigError(
            f"{flag} {path}: is not a regular file (a device, pipe or socket), which writing "
            "the result would replace; give a file name"
        )
    if _is_sqlite(path):
        raise ConfigError(
            f"{flag} {path}: is a SQLite database (a fairjudge store holds every paid judge "
            "call); refusing to overwrite it. Give another file name"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None


def _is_sqlite(path: Path) -> bool:
    """Whether ``path`` is an existing SQLite database (such as the store)."""
    try:
        with path.open("rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _refuse_input(path: Path, flag: str, inputs: Iterable[Path | str | None]) -> None:
    """Refuse an output file that is one of the command's inputs: it would be overwritten."""
    for given in inputs:
        if given is None or str(given) == "-":
            continue
        source = Path(given)
        if path.resolve() == source.resolve():
            raise ConfigError(
                f"{flag} {path}: is the input file; writing the results there would destroy "
                "it. Give another file name"
            )
