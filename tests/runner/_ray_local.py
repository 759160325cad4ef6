"""A driver in its own process that runs a batch on ``RayExecutor()`` and says which Ray it used.

``python -m tests.runner._ray_local BASE_URL N`` runs N calls
(:func:`~tests.runner._ray_cluster.specs_for`) against the scripted judge at BASE_URL
on an executor built without an address (``num_cpus=1``, as a local start takes),
then prints one JSON line: the calls made, the GCS address and the node ids of the
Ray it ran on. The tests compare those with the module's cluster, which
``/tmp/ray/ray_current_cluster`` names while it runs.
"""

from __future__ import annotations

import asyncio
import json
import sys

from fairjudge.runner import Batch, RayExecutor, RunOptions, Store
from tests.runner._ray_cluster import http_backend, specs_for


def main(base_url: str, n: int) -> None:
    import ray

    backend = http_backend(base_url)
    with Store(":memory:") as store, RayExecutor(num_cpus=1) as executor:
        batch = Batch([backend], specs_for(backend, n), store, RunOptions(progress="quiet"))
        result = asyncio.run(executor.execute(batch))
        where = {
            "made": result.summary.made,
            "gcs": ray.get_runtime_context().gcs_address,
            "nodes": sorted(node["NodeID"] for node in ray.nodes() if node["Alive"]),
        }
    print(json.dumps(where))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
