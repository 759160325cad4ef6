"""A driver in its own process that runs a batch on ``RayExecutor()`` and says which Ray it used.

``python -m tests.runner._ray_local BASE_URL N`` runs N calls
(:func:`~tests.runner._ray_cluster.specs_for`) against the scripted judge at BASE_URL
on an executor built without an address (``num_cpus=1``, as a local start takes),
then prints one JSON line: the calls made, the GCS address and the node ids of the
Ray it ran on, and the processes it spawned that still run once the executor has
closed (waiting 20 s at most; a zombie counts as gone). The tests compare those with
the module's cluster, which ``/tmp/ray/ray_current_cluster`` names while it runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fairjudge.runner import Batch, RayExecutor, RunOptions, Store
from tests.runner._ray_cluster import http_backend, specs_for


def main(base_url: str, n: int) -> None:
    import ray

    backend = http_backend(base_url)
    with Store(":memory:") as store, RayExecutor(num_cpus=1) as executor:
        batch = Batch([backend], specs_for(backend, n), store, RunOptions(progress="quiet"))
        # On a thread that ends before the executor closes, as a session's event loop does.
        with ThreadPoolExecutor(1) as loop_thread:
            result = loop_thread.submit(asyncio.run, executor.execute(batch)).result()
        where = {
            "made": result.summary.made,
            "gcs": ray.get_runtime_context().gcs_address,
            "nodes": sorted(node["NodeID"] for node in ray.nodes() if node["Alive"]),
        }
        spawned = descendants(os.getpid())  # raylet, GCS, their agents, the workers
    deadline = time.monotonic() + 20
    while (left := running(spawned)) and time.monotonic() < deadline:
        time.sleep(0.2)
    print(json.dumps({**where, "spawned": len(spawned), "left": left}))


def _stat(pid: int) -> tuple[str, int] | None:
    """``(state, parent pid)`` of a process, from ``/proc``; ``None`` once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1])


def descendants(root: int) -> set[int]:
    """Every process below ``root``."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = stat[1]
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pids: set[int]) -> list[int]:
    """Those of ``pids`` still running (not gone, not a zombie)."""
    return sorted(pid for pid in pids if (stat := _stat(pid)) is not None and stat[0] != "Z")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
