"""Does ``--max-cost`` hold when the provider counts more tokens than fairjudge guesses?

fairjudge guesses a call's input tokens before making it (characters / 4, plus 4 per
message); a provider's tokenizer may count several times that. Here the scripted
server (``tests/server``, its own process, ``longer`` judge, 20 ms a call) reports
usage at ``token_ratio`` times that guess (``--usage-scale``), and the real command
runs with a small budget::

    python -c "from fairjudge.cli import main; main()" compare ITEMS.jsonl \\
        --judge openai/bench --base-url URL --store STORE -q --json \\
        --concurrency C --max-cost 0.01 --price-input 2.5 --price-output 10

Every call has the same size (fixed-width items), so its true cost ``call $`` is one
number, and a budget that is never overspent makes ``floor(max_cost / call $)`` calls.

Columns: ``ratio`` (the server's tokens per guessed token), ``conc``, ``calls`` (made),
``fit`` (``floor(max_cost / call $)``: the calls the budget pays for), ``spent $``,
``spent/max`` (must be at most 1.00 for ratios up to 8: see
:mod:`fairjudge.runner._prices`), ``in flight`` (the server's peak of concurrent
requests), ``exit`` (5: stopped by the budget, partial result printed).

Call :func:`budget_rows` from another benchmark (``bench_faults.py`` prints its table).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.server import DEFAULT_API_KEY, ServerProcess, client_estimate  # noqa: E402

CLI = "from fairjudge.cli import main; main()"
HEADERS = ["ratio", "conc", "calls", "fit", "call $", "spent $", "spent/max", "in flight", "exit"]


def budget_rows(
    token_ratios: Sequence[float] = (1, 4, 8),
    concurrencies: Sequence[int] = (1, 16, 64),
    *,
    max_cost: float = 0.01,
    price_input: float = 2.5,
    price_output: float = 10.0,
    items: int = 200,
    latency: float = 0.02,
) -> list[dict[str, Any]]:
    """Run ``compare --max-cost`` once per (token ratio, concurrency); one row per run.

    Args:
        token_ratios: Tokens the server reports per token fairjudge guesses.
        concurrencies: ``--concurrency`` values.
        max_cost: ``--max-cost``, in dollars.
        price_input: ``--price-input``, dollars per million input tokens.
        price_output: ``--price-output``, dollars per million output tokens.
        items: Items to compare (two calls each); far more than the budget buys.
        latency: The server's seconds per call.

    Returns:
        Rows in the order of the loops (ratio outer), each a dict with ``token_ratio``,
        ``concurrency``, ``calls_made``, ``calls_that_fit`` (``floor(max_cost /
        call_cost_usd)``), ``call_cost_usd`` (one call's true cost), ``spent_usd``,
        ``max_cost``, ``spent_over_max``, ``max_in_flight`` (the server's peak),
        ``bound_usd`` (``max_cost`` plus ``max_in_flight`` calls at their true cost:
        the most the issue allows), ``exit_code``, ``stopped`` and ``wall_s``.
    """
    rows = []
    with (
        tempfile.TemporaryDirectory(prefix="bench-budget-") as tmp_name,
        ServerProcess("--judge", "longer", "--latency", str(latency)) as server,
    ):
        tmp = Path(tmp_name)
        path = tmp / "items.jsonl"
        write_items(path, items)
        for ratio in token_ratios:
            for concurrency in concurrencies:
                server.configure(usage_scale=ratio)
                server.reset()
                store = tmp / f"s-{ratio}-{concurrency}.sqlite"
                args = [
                    "compare", str(path), "--judge", "openai/bench", "--base-url",
                    server.base_url, "--store", str(store), "-q", "--json",
                    "--concurrency", str(concurrency), "--max-cost", str(max_cost),
                    "--price-input", str(price_input), "--price-output", str(price_output),
                ]  # fmt: skip
                start = time.perf_counter()
                done = _run(args, tmp)
                wall = time.perf_counter() - start
                calls = json.loads(done.stdout)["calls"] if done.stdout.strip() else {}
                n_in, n_out = _call_size(store)
                call_cost = (
                    ratio * n_in * price_input + ratio * n_out * price_output
                ) / 1e6  # the server rounds ratio * guess; every ratio here is whole
                spent = calls.get("cost_usd") or 0.0
                peak = server.stats().get("max_in_flight", 0)
                rows.append(
                    {
                        "token_ratio": ratio,
                        "concurrency": concurrency,
                        "calls_made": calls.get("made"),
                        "calls_that_fit": math.floor(max_cost / call_cost),
                        "call_cost_usd": call_cost,
                        "spent_usd": spent,
                        "max_cost": max_cost,
                        "spent_over_max": spent / max_cost,
                        "max_in_flight": peak,
                        "bound_usd": max_cost + peak * call_cost,
                        "exit_code": done.returncode,
                        "stopped": calls.get("stopped"),
                        "wall_s": wall,
                    }
                )
                print(f"  budget: {table_row(rows[-1])}", file=sys.stderr)
    return rows


def table_row(row: dict[str, Any]) -> list[Any]:
    """The row's cells under :data:`HEADERS`."""
    return [
        f"{row['token_ratio']:g}x", row["concurrency"], row["calls_made"], row["calls_that_fit"],
        f"{row['call_cost_usd']:.5f}", f"{row['spent_usd']:.5f}",
        f"{row['spent_over_max']:.3f}x", row["max_in_flight"], row["exit_code"],
    ]  # fmt: skip


def write_items(path: Path, n_items: int) -> None:
    """``n_items`` items of one size, so that every call costs the same."""
    with path.open("w") as f:
        for i in range(n_items):
            row = {
                "id": f"item-{i}",
                "question": f"Question {i:05d}: which answer explains the step?",
                "answer_1": f"answer one {i:05d}, the longer of the two",
                "answer_2": f"answer two {i:05d}, shorter",
            }
            f.write(json.dumps(row) + "\n")


def _call_size(store: Path) -> tuple[int, int]:
    """One call's guessed (input, output) tokens, from the calls the store holds."""
    from fairjudge.runner import Store

    with Store(store) as s:
        sizes = {client_estimate([c for _, c in r.spec["messages"]], "A") for r in s.records()}
    if len(sizes) != 1:
        raise RuntimeError(f"expected calls of one size, found {sorted(sizes)}")
    return sizes.pop()


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["OPENAI_API_KEY"] = DEFAULT_API_KEY
    env["PYTHONPATH"] = str(ROOT / "src")
    return subprocess.run(
        [sys.executable, "-c", CLI, *args], cwd=cwd, env=env, capture_output=True, text=True,
        check=False, timeout=600,
    )  # fmt: skip
