"""Under Ray, the requests refused while workers learn an unknown model reach the summary.

Each Ray worker holds its own copy of the backend, so each learns a model the
capability table does not know from its own first refusals; the driver's backends
never send a request. The run's summary counts every refusal the workers paid
(``refused``) and what they changed (``learned``), as a run in one process does,
against the OpenAI emulator, whose ``acme-reasoner`` refuses ``max_tokens``,
``temperature`` and ``logprobs`` with the real API's 400s. Run it as
``tests/runner/_ray_cluster.py`` says (a loopback-only network namespace).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairjudge.backends import OpenAIBackend
from fairjudge.runner import Batch, RayExecutor, RunOptions, RunSummary, Store
from tests.runner._ray_cluster import KEY, KEY_ENV, specs_for, two_node_cluster
from tests.server import Script
from tests.server._openai_emulator import EmulatorServer, OpenAIEmulator

THESE = "tests/runner/test_ray_learning.py"
LEARNED = (
    "sent max_completion_tokens instead of max_tokens",
    "stopped sending temperature",
    "stopped sending logprobs",
    "stopped sending top_logprobs",
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    yield from two_node_cluster(THESE)


@pytest.fixture
def emulator(cluster: Any) -> Iterator[EmulatorServer]:
    script = Script(judge="longer", api_key=KEY)
    served = OpenAIEmulator(script, reasoning_models=("acme-reasoner",))
    with EmulatorServer(served) as server:
        yield server


def _run(executor: RayExecutor, batch: Batch) -> RunSummary:
    return asyncio.run(executor.execute(batch)).summary


def test_the_workers_refusals_and_lessons_are_the_runs(
    emulator: EmulatorServer, tmp_path: Path
) -> None:
    backend = OpenAIBackend("acme-reasoner", base_url=emulator.base_url, api_key_env=KEY_ENV)
    options = RunOptions(concurrency=4, progress="quiet")
    with Store(tmp_path / "s.sqlite") as store, RayExecutor(workers=2) as executor:
        first = _run(executor, Batch([backend], specs_for(backend, 24), store, options))
        refused = emulator.count("refused")
        served = [w for w in executor.workers_report() if w.calls]
        second = _run(executor, Batch([backend], specs_for(backend, 8, start=24), store, options))

    # Every worker that answered learned the model for itself: three refusals each
    # (max_tokens, temperature, then logprobs and top_logprobs in one), each counted.
    assert refused == 3 * len(served) > 0
    assert (first.made, first.failed) == (24, 0)
    assert first.refused == refused
    assert first.requests == 24 + refused  # the refused requests are requests too
    assert first.learned == LEARNED
    assert "refused request(s) (sent max_completion_tokens instead of max_tokens;" in str(first)
    # The workers keep what they learned: a later batch on them pays and reports none.
    assert emulator.count("refused") == refused
    assert (second.made, second.refused, second.learned) == (8, 0, ())
    assert second.requests == 8
