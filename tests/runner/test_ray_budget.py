"""``max_cost`` under Ray for a model the capability table does not know: as in one process.

``acme-reasoner`` at the OpenAI emulator refuses ``max_tokens`` (and temperature,
logprobs), so its label calls go out with ``max_completion_tokens`` and room to
reason, a cap of 8,200 where the spec says 8. The workers learn that from the
refusals and send the lesson back with their replies; the driver's cost check must
use it as one process uses its backend's: each call guessed at the cap it is sent
with, and a reply whose usage is not believed charged that cap. A driver that
guessed at the spec's cap would let many more calls through than one process does
for the same ``max_cost``; these tests hold a Ray run to one process's stop. Run it as
``tests/runner/_ray_cluster.py`` says (a loopback-only network namespace).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fairjudge._call import CallSpec
from fairjudge.backends import OpenAIBackend
from fairjudge.runner import (
    AsyncioExecutor,
    Batch,
    Prices,
    RayExecutor,
    RunOptions,
    RunSummary,
    Store,
)
from tests.backends._calls import PROMPT, spec_for
from tests.runner._ray_cluster import KEY, KEY_ENV, two_node_cluster
from tests.server import Script
from tests.server._openai_emulator import EmulatorServer, OpenAIEmulator

THESE = "tests/runner/test_ray_budget.py"
PRICES = Prices(input_per_million=1.0, output_per_million=10.0)
N_CALLS = 40  # far more than either budget pays for
UNBELIEVABLE = {"completion_tokens": -1}  # a usage no server can have meant


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    yield from two_node_cluster(THESE)


def _specs(backend: OpenAIBackend) -> list[CallSpec]:
    """Label calls of the same size (the question differs by one digit): one true cost."""
    return [
        spec_for(backend, prompt=PROMPT.replace("2 + 2?", f"2 + {i:03d}?")) for i in range(N_CALLS)
    ]


def _budgeted(
    executor: Any, usage: dict[str, int], max_cost: float, tmp: Path
) -> tuple[RunSummary, int]:
    """One budgeted run on a fresh emulator; its summary and the replies the server gave."""
    served = OpenAIEmulator(Script(api_key=KEY, usage=usage), reasoning_models=("acme-reasoner",))
    with EmulatorServer(served) as server:
        backend = OpenAIBackend("acme-reasoner", base_url=server.base_url, api_key_env=KEY_ENV)
        options = RunOptions(concurrency=16, max_cost=max_cost, prices=PRICES, progress="quiet")

        async def go(store: Store) -> RunSummary:
            try:
                return (
                    await executor.execute(Batch([backend], _specs(backend), store, options))
                ).summary
            finally:
                await backend.aclose()  # the local run's connections

        with Store(tmp / "s.sqlite") as store:
            summary = asyncio.run(go(store))
        return summary, server.count("ok")


@pytest.mark.parametrize(
    ("usage", "max_cost", "made"),
    [({}, 0.01, 3), (UNBELIEVABLE, 0.05, 1), (UNBELIEVABLE, 0.5, 6)],
    ids=["believed", "unbelievable-one-call", "unbelievable"],
)
def test_ray_spends_and_stops_as_one_process_does(
    cluster: Any, tmp_path: Path, usage: dict[str, int], max_cost: float, made: int
) -> None:
    (tmp_path / "local").mkdir()
    (tmp_path / "ray").mkdir()
    local, local_ok = _budgeted(AsyncioExecutor(), usage, max_cost, tmp_path / "local")
    with RayExecutor(workers=2) as executor:
        ray, ray_ok = _budgeted(executor, usage, max_cost, tmp_path / "ray")

    assert (local.made, local.stopped, local_ok) == (made, "max_cost", made)
    assert (ray.made, ray.stopped, ray_ok) == (made, "max_cost", made)
    assert ray.cost_usd == pytest.approx(local.cost_usd)
    assert (ray.output_tokens, ray.usage_unreported) == (
        local.output_tokens,
        local.usage_unreported,
    )
    assert ray.refused == local.refused == 3


def test_a_reply_with_unbelievable_usage_is_charged_at_the_cap_the_workers_sent(
    cluster: Any, tmp_path: Path
) -> None:
    with RayExecutor(workers=2) as executor:
        summary, ok = _budgeted(executor, UNBELIEVABLE, 0.5, tmp_path)

    # The label's max_tokens 8 went out as max_completion_tokens 8 + 8,192 of room:
    # every reply is charged that cap, each call checked at it before it started.
    cap = 8 + 8192
    assert summary.usage_unreported == summary.made == ok == 6
    assert summary.output_tokens == 6 * cap
    assert summary.cost_usd is not None
    per_call = summary.cost_usd / 6
    assert per_call == pytest.approx(cap * 10.0 / 1e6, rel=0.01)  # mostly output
    # The first call is the probe, admitted at its raw guess before any lesson; each
    # later one was admitted only where it fit at its true cost: six in all, not 40.
    assert summary.cost_usd <= 0.5
