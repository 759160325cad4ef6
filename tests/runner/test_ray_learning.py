"""Under Ray, an unknown model is learned once for every worker, and its refusals reach the summary.

Each Ray worker holds its own copy of the backend; the driver's backends never send a
request. The driver sends an unknown model's calls one at a time until a worker's
reply shows one answered, and hands what that worker learned to the others with
their next attempts, so the pool pays each refusal once, as a run in one process
does. The run's summary counts every refusal the workers paid (``refused``) and what
they changed (``learned``). Counted at the OpenAI emulator, whose ``acme-reasoner``
refuses ``max_tokens``, ``temperature`` and ``logprobs`` with the real API's 400s. Run
it as ``tests/runner/_ray_cluster.py`` says (a loopback-only network namespace).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import CallSpec
from fairjudge.backends import OpenAIBackend
from fairjudge.runner import Batch, RayExecutor, RunOptions, RunSummary, Store
from tests.runner._ray_cluster import KEY, KEY_ENV, specs_for, two_node_cluster
from tests.server import Script
from tests.server._openai_emulator import EmulatorServer, OpenAIEmulator

THESE = "tests/runner/test_ray_learning.py"
REFUSED = ("max_tokens", "temperature", "logprobs")
LEARNED = (
    "sent max_completion_tokens instead of max_tokens",
    "stopped sending temperature",
    "stopped sending logprobs and top_logprobs",  # one refusal of the pair (QA39 #4)
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    yield from two_node_cluster(THESE)


@pytest.fixture
def emulator(cluster: Any, request: pytest.FixtureRequest) -> Iterator[EmulatorServer]:
    """The emulator; ``early`` (a test's parameter): faults for its first requests."""
    early = getattr(request, "param", ())
    script = Script(judge="longer", api_key=KEY)
    served = OpenAIEmulator(script, reasoning_models=("acme-reasoner",), early_faults=early)
    with EmulatorServer(served) as server:
        yield server


def _run(executor: RayExecutor, batch: Batch) -> RunSummary:
    return asyncio.run(executor.execute(batch)).summary


@dataclasses.dataclass
class Pool:
    """An ``acme-reasoner`` backend at the emulator, and two Ray workers that run its calls."""

    backend: OpenAIBackend
    executor: RayExecutor
    store: Store
    options: RunOptions

    def run(self, specs: list[CallSpec]) -> RunSummary:
        return _run(self.executor, Batch([self.backend], specs, self.store, self.options))

    def served(self) -> list[Any]:
        """The workers that answered at least one call."""
        return [w for w in self.executor.workers_report() if w.calls]


@contextlib.contextmanager
def pool(emulator: EmulatorServer, tmp_path: Path, concurrency: int) -> Iterator[Pool]:
    backend = OpenAIBackend("acme-reasoner", base_url=emulator.base_url, api_key_env=KEY_ENV)
    options = RunOptions(concurrency=concurrency, progress="quiet")
    with Store(tmp_path / "s.sqlite") as store, RayExecutor(workers=2) as executor:
        yield Pool(backend, executor, store, options)


def test_the_workers_refusals_and_lessons_are_the_runs(
    emulator: EmulatorServer, tmp_path: Path
) -> None:
    with pool(emulator, tmp_path, concurrency=4) as workers:
        first = workers.run(specs_for(workers.backend, 24))
        refused = emulator.count("refused")
        served = workers.served()
        second = workers.run(specs_for(workers.backend, 8, start=24))

    # Both workers answered calls, but the model was learned once for both: three
    # refusals in all (max_tokens, temperature, then logprobs and top_logprobs in
    # one), not three per worker, each counted.
    assert len(served) == 2
    assert refused == 3
    assert {p: emulator.count(f"refused:{p}") for p in REFUSED} == dict.fromkeys(REFUSED, 1)
    assert (first.made, first.failed) == (24, 0)
    assert first.refused == refused
    assert first.requests == 24 + refused  # the refused requests are requests too
    assert first.learned == LEARNED
    assert "refused request(s) (sent max_completion_tokens instead of max_tokens;" in str(first)
    # The workers keep what they learned: a later batch on them pays and reports none.
    assert emulator.count("refused") == refused
    assert (second.made, second.refused, second.learned) == (8, 0, ())
    assert second.requests == 8


@pytest.mark.parametrize("emulator", [["server_error"], ["reset"]], indirect=True)
def test_a_probe_that_fails_hands_its_turn_on_and_no_worker_pays_twice(
    emulator: EmulatorServer, tmp_path: Path
) -> None:
    with pool(emulator, tmp_path, concurrency=6) as workers:
        summary = workers.run(specs_for(workers.backend, 24))
        served = workers.served()

    # The first probe failed before the server read it (a 500, a reset connection):
    # the next call probed in its place, and the failed one was retried behind it.
    assert emulator.count("early:server_error") + emulator.count("early:reset") == 1
    assert len(served) == 2
    assert {p: emulator.count(f"refused:{p}") for p in REFUSED} == dict.fromkeys(REFUSED, 1)
    assert (summary.made, summary.failed, summary.refused) == (24, 0, 3)
    assert emulator.count("ok") == 24


def test_score_calls_then_label_calls_probe_once_each(
    emulator: EmulatorServer, tmp_path: Path
) -> None:
    """Label calls ask logprobs, which the score calls' answers did not show taken."""
    with pool(emulator, tmp_path, concurrency=6) as workers:
        params = workers.backend.default_params(label_only=False)
        score = [dataclasses.replace(s, params=params) for s in specs_for(workers.backend, 12)]
        first = workers.run(score)
        after_score = emulator.count("refused")
        second = workers.run(specs_for(workers.backend, 12, start=12))

    # The score calls send no logprobs: two refusals; the label calls then pay one more.
    assert (first.made, first.refused, after_score) == (12, 2, 2)
    assert (second.made, second.refused) == (12, 1)
    assert {p: emulator.count(f"refused:{p}") for p in REFUSED} == dict.fromkeys(REFUSED, 1)
