"""Helpers shared by the benchmarks: environment facts, tables, JSON results, BLAS threads."""

from __future__ import annotations

import ctypes
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


# OpenBLAS's thread controls, under the names its builds export: plain, 64-bit
# interface, and the ``scipy_openblas`` builds numpy and scipy wheels bundle.
_OPENBLAS_PREFIXES = ("openblas", "scipy_openblas")
_OPENBLAS_SUFFIXES = ("", "_", "64_")


def _openblas_calls(name: str) -> list[Any]:
    """``{prefix}_{name}{suffix}`` from every OpenBLAS loaded in this process (Linux)."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return []
    paths = sorted(
        {line.split()[-1] for line in maps.read_text().splitlines() if "openblas" in line.lower()}
    )
    found = []
    for path in paths:
        lib = ctypes.CDLL(path)  # already loaded: the same handle, nothing is loaded twice
        for symbol in (f"{p}_{name}{s}" for p in _OPENBLAS_PREFIXES for s in _OPENBLAS_SUFFIXES):
            fn = getattr(lib, symbol, None)
            if fn is not None:
                found.append(fn)
                break
    return found


def limit_blas_threads(n: int) -> None:
    """Cap every BLAS library loaded in this process at ``n`` threads, from now on.

    The fix for a ``multiprocessing.Pool`` whose workers each start one BLAS thread
    per core: on 2 cores, two workers then run four busy threads. Run it as the pool's
    ``initializer``: it works in forked workers, where ``OPENBLAS_NUM_THREADS`` set
    after numpy loaded no longer counts. Uses threadpoolctl when it is installed (any
    BLAS, OpenMP), else OpenBLAS's own ``set_num_threads`` through ctypes.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        for set_threads in _openblas_calls("set_num_threads"):
            set_threads(n)
    else:
        threadpool_limits(limits=n)  # kept until restored, which nothing does


def blas_threads() -> list[int]:
    """The thread count of every BLAS library loaded in this process (empty: unknown)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return [int(get_threads()) for get_threads in _openblas_calls("get_num_threads")]
    return [int(lib["num_threads"]) for lib in threadpool_info() if lib["user_api"] == "blas"]


WORDS = ["the", "answer", "depends", "on", "careful", "reasoning", "about", "each", "step"]


def write_synthetic_items(path: Path, n_items: int) -> None:
    """``n_items`` synthetic items (answers of varied lengths), as compare's JSONL."""
    with path.open("w") as f:
        for i in range(n_items):
            question = f"Question {i}: explain step {i % 97} of the proof in plain words."
            one = " ".join(WORDS[: 3 + i % 11]) + f" (item {i}, system 1)"
            two = " ".join(WORDS[: 3 + (i * 7) % 13]) + f" (item {i}, system 2)"
            row = {"id": f"item-{i}", "question": question, "answer_1": one, "answer_2": two}
            f.write(json.dumps(row) + "\n")
