"""Planning a large run: wall time, peak memory and the silence before the first line.

A run builds every call before it sends the first (each prompt rendered, each key
hashed, each call looked up in the store), so a very large plan costs memory and
seconds up front: ``MAX_PLANNED_CALLS`` in ``evaluation/_settings.py`` quotes these
figures. This measures them as a user meets them: ``fairjudge compare ITEMS --judge
openai/gpt-4o-mini --base-url http://127.0.0.1:9/v1 --max-calls 0 --json``, a child
process per size on a fresh store. ``--max-calls 0`` plans every call and makes none
(nothing listens on port 9, and nothing is sent): planning, the store look-up and the
partial report, nothing else. Each item is two calls (``rounds`` 1, both orders).

Per size: wall time from spawn to exit, the child's CPU, its peak resident memory
(``ru_maxrss`` of that child alone, from ``os.wait4``), the seconds before its first
line on standard error (what a user waits through in silence; the final report aside,
nothing else is printed) and the memory per call: the peak's growth from the smallest
size over the calls added, which leaves out the interpreter, the imports and the
bootstrap's resampling plan (capped, whatever the size).

    .venv/bin/python benchmarks/bench_plan.py [--calls 10000,100000,300000] [--src SRC]
        [--baseline /tmp/old/src]      # another checkout's src, each size run beside this one

The machine is shared: 1,000,000 calls takes about 1.3 GB and a minute or more on two
busy cores; ask for it with ``--calls ...,1000000`` only when there is memory to spare.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import environment, table, write_json

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [
    "compare", "items.jsonl", "--judge", "openai/gpt-4o-mini",
    "--base-url", "http://127.0.0.1:9/v1", "--max-calls", "0", "--json",
]  # fmt: skip


def write_items(path: Path, n_items: int) -> int:
    """``n_items`` distinct pairs of ordinary length; the characters of one item's texts."""
    chars = 0
    with path.open("w") as fh:
        for i in range(n_items):
            row = {
                "id": f"q{i}",
                "question": f"Question {i}: what is {i} times 3, and how would you check it?",
                "answer_1": f"It is {3 * i}. Adding {i} three times gives the same number.",
                "answer_2": f"{3 * i + 1}, I think, though I did not check it.",
            }
            chars = len(row["question"]) + len(row["answer_1"]) + len(row["answer_2"])
            fh.write(json.dumps(row) + "\n")
    return chars


def run_once(n_calls: int, src: Path) -> dict[str, Any]:
    """One ``compare --max-calls 0`` over ``n_calls`` calls, in a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="bench-plan-") as tmp:
        chars = write_items(Path(tmp) / "items.jsonl", n_calls // 2)
        env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "100"}
        code = "import sys; from fairjudge.cli import main; sys.argv[0] = 'fairjudge'; main()"
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", code, *COMMAND], cwd=tmp, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        first: list[float] = []
        err: list[bytes] = []

        def read_stderr() -> None:
            assert child.stderr is not None
            for line in child.stderr:
                if not first:
                    first.append(time.perf_counter() - start)
                err.append(line)

        reader = threading.Thread(target=read_stderr)
        reader.start()
        assert child.stdout is not None
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        reader.join()
        child.returncode = os.waitstatus_to_exitcode(status)
        result = json.loads(out)
        if result.get("n_not_run") != n_calls // 2 and "not run" not in b"".join(err).decode():
            raise RuntimeError(f"{n_calls:,} calls: unexpected result {out[:300]!r}")
    return {
        "calls": n_calls,
        "item_chars": chars,
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # Linux reports KiB
        "first_stderr_s": round(first[0], 2) if first else None,
        "first_stderr_line": err[0].decode().strip()[:100] if err else None,
        "exit": child.returncode,
    }


def per_call(rows: list[dict[str, Any]]) -> None:
    """Each row's peak growth over the smallest size, per call added, in bytes."""
    base = min(rows, key=lambda r: r["calls"])
    for row in rows:
        extra = row["calls"] - base["calls"]
        grown = (row["peak_rss_mb"] - base["peak_rss_mb"]) * 1024 * 1024
        row["bytes_per_call"] = round(grown / extra) if extra else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", default="10000,100000,300000", help="sizes, comma-separated")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the tree measured")
    parser.add_argument("--baseline", type=Path, help="another checkout's src, for before/after")
    parser.add_argument("--name", default="bench_plan", help="results/<name>.json")
    args = parser.parse_args()
    sizes = [int(s) for s in args.calls.split(",")]
    trees = {"this": args.src} | ({"baseline": args.baseline} if args.baseline else {})
    for src in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "fairjudge")],
                       check=True)  # fmt: skip
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for n in sizes:
        for name, src in trees.items():  # taking turns: a busy spell slows both alike
            results[name].append(run_once(n, src))
            print(f"  {name}: {n:,} calls done", file=sys.stderr)
    rows = []
    for name, runs in results.items():
        per_call(runs)
        for r in runs:
            rows.append([name, f"{r['calls']:,}", r["wall_s"], r["cpu_s"], r["peak_rss_mb"],
                         r["bytes_per_call"] or "", r["first_stderr_s"]])  # fmt: skip
    print(table(["tree", "calls", "wall s", "cpu s", "peak MB", "B/call", "1st line s"], rows))
    for name, runs in results.items():
        print(f"{name}: first line: {runs[-1]['first_stderr_line']!r}")
    path = write_json(args.name, {"environment": environment(), "command": COMMAND,
                                  "trees": {k: str(v) for k, v in trees.items()},
                                  "results": results})  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
