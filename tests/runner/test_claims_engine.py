"""Claims end to end: two runs of the same work on one store make each call once.

Two identical commands on one store made 1,600 requests for 800 calls. With the
claim hooks in the engine (``ClaimQueue`` and ``Leases`` from ``runner/_claims.py``,
wired into ``runner/_run.py``), each call is made once, by one of the two, and the
other serves it from the store.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fairjudge.runner import RunOptions, Store, run_calls
from tests.runner._fakes import FakeBackend, make_spec


def run_shared(path: str, n: int, log: str, barrier: Any, out: Any) -> None:
    """Child process: run calls 0..n-1 on the shared store; report the summary."""
    backend = FakeBackend(latency=0.005, log=log)
    with Store(path) as store:
        barrier.wait(timeout=60)
        result = asyncio.run(
            run_calls(
                backend,
                [make_spec(i) for i in range(n)],
                store=store,
                options=RunOptions(concurrency=8, progress="quiet"),
            )
        )
    s = result.summary
    out.put((s.made, s.cached, s.not_run, s.failed))


@pytest.mark.slow
def test_two_runs_on_one_store_make_each_call_once(tmp_path: Path) -> None:
    path, log, n = str(tmp_path / "s.sqlite"), str(tmp_path / "requests.log"), 400
    Store(path).close()
    ctx = multiprocessing.get_context("spawn")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=run_shared, args=(path, n, log, barrier, out)) for _ in range(2)]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    assert [proc.exitcode for proc in procs] == [0, 0]
    requests = Counter(Path(log).read_text().split())
    assert len(requests) == n
    assert max(requests.values()) == 1  # no call paid twice
    assert sum(made for made, _, _, _ in results) == n
    for made, cached, not_run, failed in results:
        assert (made + cached, not_run, failed) == (n, 0, 0)  # each run has every reply
    with Store(path) as store:
        assert store.count(status="ok") == n
        assert sum(r.attempts for r in store.records()) == n
