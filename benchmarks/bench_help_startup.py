"""``fairjudge COMMAND --help`` start-up: modules imported and wall time, per command.

A user typing ``--help`` should not wait for the statistics stack (numpy, scipy) or
the pages: this counts the modules each command's ``--help`` imports (``python -X
importtime``) and times it (the median of ``--runs`` fresh interpreters), so a
module-level import that drags the stack back in shows up here as well as in
tests/cli/test_startup.py. ``--baseline SRC`` measures another checkout's ``src``
too (``git worktree add /tmp/old <commit>``), each of its runs beside one of this
tree's, so a busy machine slows both alike.

    .venv/bin/python benchmarks/bench_help_startup.py [--runs 10] [--baseline /tmp/old/src]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import environment, table, write_json

COMMANDS = [
    "audit", "score", "calibrate", "compare", "rank", "report", "rubrics", "jury",
    "score-jury", "label", "label-merge", "example-data", "run",
]  # fmt: skip
STACK = ("numpy", "scipy", "pandas")


def _code(command: str) -> str:
    return (
        "import atexit, sys\n"
        f"atexit.register(lambda: print('STACK', *[m for m in {STACK!r} if m in sys.modules],"
        " file=sys.stderr))\n"
        f"sys.argv = ['fairjudge', {command!r}, '--help']\n"
        "from fairjudge.cli import main\n"
        "main()\n"
    )


def _env(src: str | None) -> dict[str, str]:
    env = {**os.environ, "COLUMNS": "100"}
    if src is not None:
        env["PYTHONPATH"] = src
    return env


def _modules(command: str, src: str | None) -> tuple[int, list[str]]:
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _code(command)],
        capture_output=True, text=True, env=_env(src), check=True,
    )  # fmt: skip
    lines = traced.stderr.splitlines()
    modules = sum(1 for line in lines if line.startswith("import time:")) - 1  # the header
    return modules, next(line for line in lines if line.startswith("STACK")).split()[1:]


def _wall(command: str, src: str | None) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _code(command)], capture_output=True, env=_env(src),
                   check=True)  # fmt: skip
    return time.perf_counter() - start


def measure(command: str, runs: int, baseline: str | None) -> dict[str, object]:
    trees = {"now": None, **({"baseline": baseline} if baseline else {})}
    walls: dict[str, list[float]] = {tree: [] for tree in trees}
    for _ in range(runs):
        for tree, src in trees.items():
            walls[tree].append(_wall(command, src))
    out: dict[str, object] = {}
    for tree, src in trees.items():
        modules, stack = _modules(command, src)
        out[tree] = {"modules": modules, "stack": stack,
                     "median_ms": round(statistics.median(walls[tree]) * 1000, 1)}  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--baseline", metavar="SRC", help="another checkout's src to measure")
    parser.add_argument("--name", default="help_startup")
    args = parser.parse_args()
    results = {command: measure(command, args.runs, args.baseline) for command in COMMANDS}
    trees = ["baseline", "now"] if args.baseline else ["now"]
    headers = ["command --help"]
    for tree in trees:
        headers += [f"{tree} modules", f"{tree} median ms", f"{tree} stack"]
    rows = []
    for command, result in results.items():
        row: list[object] = [command]
        for tree in trees:
            r: dict[str, Any] = result[tree]  # type: ignore[assignment]
            row += [r["modules"], r["median_ms"], " ".join(r["stack"]) or "-"]
        rows.append(row)
    print(table(headers, rows, left=(0, 3, 6)))
    path = write_json(args.name, {"environment": environment(), "runs": args.runs,
                                  "baseline": args.baseline, "commands": results})  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
