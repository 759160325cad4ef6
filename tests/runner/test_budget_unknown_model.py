"""``max_cost`` with a model the capability table does not know, on the faithful emulator.

Such a model is learned from its refusals: ``acme-reasoner`` refuses ``max_tokens``
(and temperature, logprobs), so its calls go out with ``max_completion_tokens`` and
room to reason, a cap far above the spec's 8. The backend sends its calls one at a
time until one is answered (the probe line); the cost check follows that line, so
the calls behind the probe are checked once it has taught what they will send, and
every reply is charged against the cap it was sent with. Calls checked at the spec's
cap while the probe is out would be reserved for far less than they are sent with,
and a run with many calls in flight would spend several times ``max_cost``: these
tests hold the spend within it at concurrency 16 and at 1.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest

from fairjudge.backends import OpenAIBackend
from fairjudge.runner import (
    AsyncioExecutor,
    Batch,
    Prices,
    RetryPolicy,
    RunOptions,
    RunSummary,
    Store,
)
from fairjudge.runner._prices import CallGuess, CostBudget
from tests.backends._calls import PROMPT, spec_for
from tests.server import Script
from tests.server._openai_emulator import EmulatorServer

PRICES = Prices(input_per_million=1.0, output_per_million=10.0)
MAX_COST = 0.01
N_CALLS = 60  # far more than the budget pays for


def judged(
    server: EmulatorServer, model: str, store_path: Path, options: RunOptions, n: int = N_CALLS
) -> tuple[RunSummary, OpenAIBackend, list[float]]:
    """``n`` label calls of the same size (the question differs by one digit)."""
    backend = OpenAIBackend(model, base_url=server.base_url)
    specs = [spec_for(backend, prompt=PROMPT.replace("2 + 2?", f"2 + {i:03d}?")) for i in range(n)]

    async def go(store: Store) -> RunSummary:
        try:
            return (
                await AsyncioExecutor().execute(Batch([backend], specs, store, options))
            ).summary
        finally:
            await backend.aclose()

    with Store(store_path) as store:
        summary = asyncio.run(go(store))
        costs = [r.cost_usd for r in store.records(status="ok") if r.cost_usd is not None]
    return summary, backend, costs


@pytest.mark.parametrize("concurrency", [1, 16])
def test_max_cost_checks_an_unknown_model_s_calls_after_its_probe_taught_them(
    serve_reasoner: Any, tmp_path: Path, concurrency: int
) -> None:
    server = serve_reasoner()
    options = RunOptions(
        concurrency=concurrency, max_cost=MAX_COST, prices=PRICES, progress="quiet"
    )
    summary, _, costs = judged(server, "acme-reasoner", tmp_path / "s.sqlite", options)

    # Every call has the same size, so the same true cost: the run makes exactly as many
    # as the budget pays for, whatever the concurrency, and spends within it.
    assert len(set(costs)) == 1
    assert summary.stopped == "max_cost"
    assert summary.made == len(costs) == math.floor(MAX_COST / costs[0]) == 3
    assert summary.cost_usd is not None
    assert summary.cost_usd <= MAX_COST
    assert summary.refused == server.count("refused") == 3  # each lesson paid once


def test_a_failed_probe_under_max_cost_hands_the_check_to_the_next_call(
    serve_reasoner: Any, tmp_path: Path
) -> None:
    server = serve_reasoner(early=("server_error",))  # the first request meets a 500
    options = RunOptions(
        concurrency=16,
        max_cost=5 * MAX_COST,
        prices=PRICES,
        progress="quiet",
        retry=RetryPolicy(max_attempts=1),  # so the probe fails for good
    )
    summary, _, costs = judged(server, "acme-reasoner", tmp_path / "s.sqlite", options)

    # The probe's call failed; the next one was checked and sent as the probe in its
    # place, and the rest after it was answered: nothing waits forever, no overspend.
    assert summary.failed == 1
    assert summary.made - summary.failed == len(costs) == math.floor(5 * MAX_COST / costs[0])
    assert summary.cost_usd is not None
    assert summary.cost_usd <= 5 * MAX_COST
    assert server.count("refused") == 3


@pytest.mark.parametrize("model", ["acme-reasoner", "o3"])
def test_a_reply_with_unbelievable_usage_is_charged_at_the_cap_it_was_sent_with(
    serve_reasoner: Any, tmp_path: Path, model: str
) -> None:
    # A usage the server cannot have meant: each reply is charged its estimate, whose
    # output is the cap on the wire. The unknown model learned that cap from a refusal
    # (the spec says max_tokens 8); it is charged as the known model with the same cap.
    server = serve_reasoner(Script(usage={"completion_tokens": -1}))
    options = RunOptions(concurrency=4, prices=PRICES, progress="quiet")
    summary, backend, _ = judged(server, model, tmp_path / "s.sqlite", options, n=4)

    spec = spec_for(backend)
    cap = backend.request_body(spec)["max_completion_tokens"]
    assert cap > 1000  # room to reason, far above a label's 8
    assert summary.usage_unreported == summary.made == 4
    assert summary.output_tokens == 4 * cap


def test_the_output_ratio_is_learned_against_the_cap_sent() -> None:
    budget = CostBudget(1.0, PRICES)
    probe = CallGuess(input=100, cap=8)  # checked at the spec's cap...
    assert budget.admit(probe, spent=0.0)
    budget.settle(probe, 100, 257, sent_cap=1032)  # ...sent with the cap a lesson gave it
    assert budget.in_flight == 0
    # The next call is guessed as sent (cap 1032): 257 output tokens, as the probe used.
    expected = (100 * PRICES.input_per_million + 257 * PRICES.output_per_million) / 1e6
    assert budget.corrected(CallGuess(input=100, cap=1032)) == pytest.approx(expected)
