"""Helpers shared by the benchmarks: environment facts, tables, JSON results."""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np
import scipy

RESULTS = Path(__file__).resolve().parent / "results"


def environment() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "platform": platform.platform(),
    }


def table(headers: list[str], rows: list[list[Any]], left: tuple[int, ...] = (0,)) -> str:
    """Plain-text table; columns in ``left`` are left-aligned, the rest right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for k, r in enumerate(cells):
        just = [
            c.ljust(w) if i in left or k == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  ".join(just).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def write_json(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, default=float) + "\n")
    return path
