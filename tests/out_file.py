"""Read a ``--out`` file in tests: check its header record, return the records after it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def out_header(path: Path) -> dict[str, Any]:
    """The header record's body (``{"kind": ..., "judge": ..., ...}``)."""
    first = json.loads(path.read_text("utf-8").split("\n", 1)[0])
    assert set(first) == {"fairjudge"}, first
    body: dict[str, Any] = first["fairjudge"]
    assert body["schema_version"] == 1
    return body


def out_records(path: Path, kind: str | None = None) -> list[dict[str, Any]]:
    """Every record after the header; ``kind``, when given, is checked.

    Lines end at ``"\\n"`` only: a record may hold U+2028, which ``splitlines`` splits.
    """
    header = out_header(path)
    if kind is not None:
        assert header["kind"] == kind, header
    lines = [line for line in path.read_text("utf-8").split("\n") if line]
    return [json.loads(line) for line in lines[1:]]
