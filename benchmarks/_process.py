"""Whole commands as a user runs them: spawn to exit, and the CPU of that process.

In-process figures leave out what a user waits for at the terminal: the interpreter
starting, the imports, reading the input, the report. These helpers time a command
as a child process (wall from spawn to exit; CPU from ``RUSAGE_CHILDREN``, user plus
system, all threads) and write the inputs both sides of a comparison use.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FAIRJUDGE = [sys.executable, "-c", "import sys; from fairjudge.cli import main; main()"]
"""The ``fairjudge`` script, run by this interpreter on this checkout's ``src``."""

# The bare client as a program of its own: the official SDK, a semaphore, one task per
# call, the same messages and parameters fairjudge sends (read from a JSON file).
# Arguments: the calls file, the base URL, the concurrency and the number of clients.
# One client is the SDK as it comes (its own HTTP client and pool); several share the
# calls in turn, each with a pool of its share kept alive (see bench_throughput's
# POOL_PER_CLIENT for why that is faster).
BARE_PROGRAM = """
import asyncio, itertools, json, sys
import openai

calls = json.load(open(sys.argv[1]))
base_url, concurrency, n_clients = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def pooled(n):  # the SDK's default HTTP client, keeping all n connections alive
    cls = openai.DefaultAsyncHttpxClient
    for base in cls.__mro__:
        limits = getattr(sys.modules.get(base.__module__.partition(".")[0]), "Limits", None)
        if base.__name__ == "AsyncClient" and limits is not None:
            return cls(timeout=60.0, limits=limits(max_connections=n, max_keepalive_connections=n))
    return cls(timeout=60.0)

async def main():
    if n_clients == 1:
        clients = [openai.AsyncOpenAI(base_url=base_url, max_retries=0, timeout=60.0)]
    else:
        size = -(-concurrency // n_clients)
        clients = [
            openai.AsyncOpenAI(
                base_url=base_url, max_retries=0, timeout=60.0, http_client=pooled(size)
            )
            for _ in range(n_clients)
        ]
    turn = itertools.cycle(clients)
    semaphore = asyncio.Semaphore(concurrency)

    async def one(call):
        async with semaphore:
            reply = await next(turn).chat.completions.create(
                model=call["model"], messages=call["messages"], **call["params"]
            )
            return reply.choices[0].message.content

    try:
        texts = await asyncio.gather(*(one(c) for c in calls))
    finally:
        for client in clients:
            await client.close()
    assert all(texts)

asyncio.run(main())
"""


@dataclass(frozen=True, slots=True)
class Finished:
    """One child process, from spawn to exit."""

    wall_s: float
    cpu_s: float
    returncode: int
    stdout: str
    stderr: str


def run_process(args: Sequence[str], env: dict[str, str] | None = None) -> Finished:
    """Run ``args`` to completion; its wall time and CPU time (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(list(args), capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Finished(wall, cpu, done.returncode, done.stdout, done.stderr)


def best_of(n: int, args: Sequence[str], env: dict[str, str] | None = None) -> Finished:
    """The fastest of ``n`` runs (start-up on a shared machine is noisy); each must succeed."""
    runs = [run_process(args, env) for _ in range(n)]
    for run in runs:
        if run.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed: {run.stderr[-2000:]}")
    return min(runs, key=lambda r: r.wall_s)


def command_env(root: Path, api_key: str, src: Path | None = None) -> dict[str, str]:
    """The environment of a command run: this checkout first, the server's key set.

    ``src`` puts another tree's ``src`` (an earlier fairjudge, for a before/after
    table) in the checkout's place. The tree's bytecode is compiled first, as an
    installed package's is, so no run pays for compiling the sources
    (``PYTHONDONTWRITEBYTECODE`` would make every run pay).
    """
    src = src if src is not None else root / "src"
    if not (src / "fairjudge" / "cli").is_dir():
        raise SystemExit(f"{src} holds no fairjudge package (expected {src}/fairjudge/cli)")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src / "fairjudge")], check=True)
    env = dict(os.environ, OPENAI_API_KEY=api_key)
    env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")])
    env.pop("OPENAI_BASE_URL", None)
    return env


def write_items(path: Path, items: Sequence[tuple[str, str, str]]) -> Path:
    """The ``compare`` input: one JSON line per (question, answer 1, answer 2)."""
    with path.open("w") as fh:
        for i, (question, one, two) in enumerate(items):
            row = {"id": f"q{i}", "question": question, "answer_1": one, "answer_2": two}
            fh.write(json.dumps(row) + "\n")
    return path


def write_calls(path: Path, calls: Sequence[dict[str, Any]]) -> Path:
    """The bare client's input: each call's model, messages and parameters."""
    path.write_text(json.dumps(calls))
    return path
