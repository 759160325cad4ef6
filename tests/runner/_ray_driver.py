"""A Ray driver in its own process, for the test that kills one mid-run and resumes.

``python -m tests.runner._ray_driver ADDRESS BASE_URL STORE N CONCURRENCY`` joins the
cluster at ADDRESS and runs N calls (:func:`~tests.runner._ray_cluster.specs_for`)
against the scripted judge at BASE_URL, through the Ray executor, into STORE.
"""

from __future__ import annotations

import asyncio
import sys

from fairjudge.runner import Batch, RayExecutor, RunOptions, Store
from tests.runner._ray_cluster import http_backend, specs_for


def main(address: str, base_url: str, store_path: str, n: int, concurrency: int) -> None:
    backend = http_backend(base_url)
    with Store(store_path) as store, RayExecutor(address) as executor:
        options = RunOptions(concurrency=concurrency, progress="quiet")
        batch = Batch([backend], specs_for(backend, n), store, options)
        result = asyncio.run(executor.execute(batch))
    print(result.summary.made)


if __name__ == "__main__":
    address, base_url, store_path, n, concurrency = sys.argv[1:]
    main(address, base_url, store_path, int(n), int(concurrency))
