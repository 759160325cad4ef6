"""Under Ray too, a later run over an unknown model the workers learned sends no lone probe.

The runner holds an unknown model's calls in its line until one is answered, and
starts that line from what the backend already knows (``Run.accepted`` from its
``knowledge``, 301105f). The driver's Ray stand-in (``RemoteBackend``) had no
``knowledge``, so each later Ray run on the same workers sent its first call alone
again and the rest waited a round trip; its knowledge is now the pool's, merged from
every worker's. Run it as ``tests/runner/_ray_cluster.py`` says (a loopback-only
network namespace).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import CallSpec, Completion
from fairjudge.backends import OpenAIBackend
from fairjudge.runner import Batch, RayExecutor, RunOptions, Store
from fairjudge.runner._ray_pool import RemoteBackend
from tests.runner._ray_cluster import KEY, KEY_ENV, specs_for, two_node_cluster
from tests.server import Script
from tests.server._openai_emulator import EmulatorServer, OpenAIEmulator

THESE = "tests/runner/test_ray_probe_across_runs.py"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    yield from two_node_cluster(THESE)


def test_a_second_ray_run_sends_its_first_calls_together(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    complete = RemoteBackend.complete

    async def counted(self: RemoteBackend, spec: CallSpec) -> Completion:
        events.append("start")  # on the driver: the runner let this call through
        completion = await complete(self, spec)
        await asyncio.sleep(0.2)  # long enough for the calls not held back to start
        events.append("end")
        return completion

    monkeypatch.setattr(RemoteBackend, "complete", counted)
    script = Script(judge="longer", api_key=KEY)
    served = OpenAIEmulator(script, reasoning_models=("acme-reasoner",))
    options = RunOptions(concurrency=8, progress="quiet")
    waves = []
    with (
        EmulatorServer(served) as server,
        Store(tmp_path / "s.sqlite") as store,
        RayExecutor(workers=2) as executor,
    ):
        backend = OpenAIBackend("acme-reasoner", base_url=server.base_url, api_key_env=KEY_ENV)
        assert backend.capabilities.known is False  # learned from refusals: the probe line
        for run in range(2):
            events.clear()
            batch = Batch([backend], specs_for(backend, 8, start=8 * run), store, options)
            summary = asyncio.run(executor.execute(batch)).summary
            assert (summary.made, summary.failed) == (8, 0)
            waves.append(events[: events.index("end")])  # started before one answered
    first, second = waves
    assert first == ["start"]  # the probe goes alone: its answer teaches the workers
    assert len(second) == 8  # before: ["start"], a lone probe in every Ray run
