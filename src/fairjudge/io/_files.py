"""Result files: written whole or not at all, with the same permissions as the store."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fairjudge.io._json import strict_dumps

__all__ = ["write_atomic", "write_jsonl_atomic"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, chunks: Iterable[str]) -> None:
    """Write text to a temporary file and rename it: a crash never leaves half a file.

    The file gets the permissions an ordinary new file gets (``0666`` less the
    umask), like the store beside it, not the ``0600`` of a temporary file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(chunks)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_jsonl_atomic(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Write one JSON line per record, atomically (see :func:`write_atomic`).

    Strict JSON: a value that is not finite is written as null, with its reason
    (:func:`~fairjudge.io._json.strict_dumps`).
    """
    write_atomic(path, (strict_dumps(r, ensure_ascii=False) + "\n" for r in records))
