"""``--max-cost`` holds when the provider counts more tokens than guessed.

The scripted server reports usage at 1, 4 and 8 times fairjudge's own guess
(``Script.usage_scale``). Every call here has the same size, so once the first reply
corrects the guess, each call's true cost ``c`` is known exactly: the run must make
exactly ``floor(max_cost / c)`` calls and spend no more than ``max_cost``, whatever the
concurrency. Before the fix, the guess stayed at characters / 4 and up to
``--concurrency`` calls were in flight at it: 4x spent 3.1 times the budget.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fairjudge import Item, evaluate_pairs
from fairjudge.backends import OpenAIBackend
from fairjudge.judges import LLMJudge
from fairjudge.runner import Prices, RunOptions, Store
from fairjudge.runner._prices import PRIOR_TOKEN_RATIO, CallGuess, CostBudget
from tests.server import DEFAULT_API_KEY, JudgeServer, client_estimate

PRICES = Prices(input_per_million=2.5, output_per_million=10.0)
MAX_COST = 0.01
N_ITEMS = 100  # 200 calls: far more than any budget here pays for


def _items() -> list[Item]:
    # Fixed-width text: every call (either order) has the same size, hence the same cost.
    return [
        Item(f"Question {i:04d}: which answer is right?", f"answer one {i:04d} is long",
             f"answer two {i:04d} short", id=str(i))
        for i in range(N_ITEMS)
    ]  # fmt: skip


def _true_cost(store_path: Path, scale: int) -> tuple[float, list[float]]:
    """The one true cost per call (from the prompt, as the server counts it) and the stored ones."""
    with Store(store_path) as store:
        records = list(store.records())
    sizes = {client_estimate([c for _, c in r.spec["messages"]], "A") for r in records}
    assert len(sizes) == 1, sizes  # every call is the same size
    ((n_in, n_out),) = sizes
    return PRICES.cost(scale * n_in, scale * n_out), [r.cost_usd for r in records]


def _check_spend(spent: float, made: int, cost: float, stored: list[float], in_flight: int) -> None:
    assert stored == [pytest.approx(cost)] * made
    assert spent == pytest.approx(made * cost)
    # The bound: no more than the budget plus the calls in flight at true size...
    assert spent <= MAX_COST + in_flight * cost
    # ...and, at a steady ratio of at most 8, within the budget, which is used up.
    assert spent <= MAX_COST * (1 + 1e-12)
    assert made == math.floor(MAX_COST / cost)


# -- the library ---------------------------------------------------------------------------


@pytest.mark.parametrize("concurrency", [1, 16, 64])
@pytest.mark.parametrize(("scale", "calls"), [(1, 38), (4, 9), (8, 4)])
def test_library_run_spends_at_most_max_cost(
    openai_env: JudgeServer, tmp_path: Path, scale: int, calls: int, concurrency: int
) -> None:
    openai_env.configure(judge="longer", latency=0.02, usage_scale=scale)
    store_path = tmp_path / "s.sqlite"
    options = RunOptions(
        concurrency=concurrency, max_cost=MAX_COST, prices=PRICES, progress="quiet"
    )
    backend = OpenAIBackend("scripted-judge", base_url=openai_env.base_url)
    with LLMJudge(backend, store=store_path, options=options) as judge:
        partial = evaluate_pairs(judge, _items())  # the budget stop returns its partial result
        summary = judge.last_run
    assert summary is not None
    assert partial.stopped is not None
    assert "max_cost=0.01" in partial.stopped
    assert (summary.stopped, summary.made, summary.failed) == ("max_cost", calls, 0)
    assert summary.not_run == 2 * N_ITEMS - calls
    assert openai_env.count("requests") == calls  # no call started beyond those paid for
    cost, stored = _true_cost(store_path, scale)
    assert summary.cost_usd is not None
    _check_spend(summary.cost_usd, summary.made, cost, stored, openai_env.count("max_in_flight"))


# -- the command, as its own process -------------------------------------------------------


@pytest.mark.parametrize(("scale", "calls"), [(4, 9), (8, 4)])
def test_compare_process_spends_at_most_max_cost(
    judge_server: JudgeServer, tmp_path: Path, scale: int, calls: int
) -> None:
    judge_server.configure(judge="longer", latency=0.02, usage_scale=scale)
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps({"id": it.id, "question": it.question, "answer_1": it.answer_1,
                        "answer_2": it.answer_2}) + "\n"
            for it in _items()
        )
    )  # fmt: skip
    store_path = tmp_path / "s.sqlite"
    args = [
        "compare", str(items), "--judge", "openai/bench", "--base-url", judge_server.base_url,
        "--store", str(store_path), "-q", "--json", "--concurrency", "64",
        "--max-cost", str(MAX_COST), "--price-input", "2.5", "--price-output", "10",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["OPENAI_API_KEY"] = DEFAULT_API_KEY
    done = subprocess.run(
        [sys.executable, "-c", "from fairjudge.cli import main; main()", *args],
        capture_output=True, text=True, env=env, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 5, done.stderr  # 5: stopped by a budget, partial result printed
    assert "--max-cost 0.01 budget is spent" in done.stderr
    payload = json.loads(done.stdout)
    assert payload["partial"] is True
    calls_made = payload["calls"]
    assert (calls_made["made"], calls_made["stopped"]) == (calls, "max_cost")
    assert calls_made["not_run"] == 2 * N_ITEMS - calls
    assert judge_server.count("requests") == calls
    cost, stored = _true_cost(store_path, scale)
    in_flight = judge_server.count("max_in_flight")
    _check_spend(calls_made["cost_usd"], calls_made["made"], cost, stored, in_flight)


# -- the rule, exactly ----------------------------------------------------------------------

DOLLAR_A_TOKEN = Prices(input_per_million=1_000_000, output_per_million=0)


def test_the_probe_goes_alone_then_the_ratio_is_learned() -> None:
    budget = CostBudget(100.0, DOLLAR_A_TOKEN)
    call = CallGuess(input=10, cap=8)
    assert budget.input_ratio() == PRIOR_TOKEN_RATIO
    assert budget.admit(call, spent=0.0)  # the probe: checked at its raw guess, $10
    assert budget.reserved() == 80.0  # but reserved at the prior ratio
    assert not budget.admit(call, spent=0.0)  # 80 + 80 > 100: wait for the probe
    budget.settle(call, input_tokens=40, output_tokens=2)  # the provider counts 4x
    assert budget.input_ratio() == 4.0
    assert budget.corrected(call) == 40.0
    assert budget.admit(call, spent=40.0)  # 40 + 0 + 40 <= 100
    assert not budget.admit(call, spent=40.0)  # 40 + 40 + 40 > 100
    budget.settle(call, input_tokens=40, output_tokens=2)
    assert budget.admit(call, spent=80.0) is False  # 80 + 40 > 100: spent, with none in flight
    assert budget.in_flight == 0


def test_in_flight_calls_are_revalued_as_the_ratio_learns() -> None:
    budget = CostBudget(1000.0, DOLLAR_A_TOKEN)
    small, big = CallGuess(input=10, cap=0), CallGuess(input=50, cap=0)
    assert budget.admit(small, spent=0.0)
    assert budget.admit(big, spent=0.0)  # 80 + 400 <= 1000
    assert budget.reserved() == 480.0
    budget.settle(small, input_tokens=20, output_tokens=5)  # 2x
    assert budget.reserved() == 100.0  # the big call, now at 2x
    budget.settle(big)  # failed: frees its reserve, teaches nothing
    assert (budget.in_flight, budget.reserved(), budget.input_ratio()) == (0, 0.0, 2.0)


def test_a_failed_probe_lets_the_next_call_probe() -> None:
    budget = CostBudget(15.0, DOLLAR_A_TOKEN)
    call = CallGuess(input=10, cap=0)
    assert budget.admit(call, spent=0.0)  # $10 at the raw guess; 80 at the prior
    budget.settle(call)  # an error: no usage learned
    assert budget.admit(call, spent=0.0)  # nothing in flight, nothing learned: a probe again


def test_output_is_guessed_from_max_tokens_then_corrected() -> None:
    budget = CostBudget(1000.0, Prices(input_per_million=0, output_per_million=1_000_000))
    capped, free = CallGuess(input=1, cap=100), CallGuess(input=1, cap=0)
    assert budget.corrected(capped) == 100.0  # max_tokens: the most a reply can cost
    assert budget.corrected(free) == 256.0  # no cap, no history
    budget.admit(capped, spent=0.0)
    budget.settle(capped, input_tokens=1, output_tokens=25)
    assert budget.corrected(capped) == 25.0  # a quarter of max_tokens, as replies go
    assert budget.corrected(free) == 25.0  # the mean reply
