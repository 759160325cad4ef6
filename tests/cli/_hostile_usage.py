"""Runs of ``compare --max-cost`` against a server reporting hostile usage, counted.

Shared by ``tests/cli/test_hostile_usage.py`` and ``benchmarks/bench_hostile.py`` (its
"usage values" rows), so the two cannot drift apart.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge.runner._limits import Prices
from fairjudge.runner._prices import UNKNOWN_OUTPUT_TOKENS
from tests.cli_process import run_process
from tests.server import DEFAULT_API_KEY, JudgeServer

N_ITEMS = 20  # 40 calls: many more than the budget pays for at their estimate
PRICE = 1000.0  # dollars per million tokens, input and output alike
MAX_COST = 1.0
CONCURRENCY = 4

HOSTILE: list[tuple[str, Any]] = [
    ("negative", -80_000),
    ("nan", math.nan),
    ("infinity", math.inf),
    ("minus-infinity", -math.inf),
    ("string", "12"),
    ("boolean", True),
    ("huge", 2**70),
    ("missing", None),
]
"""A hostile value for one usage field (``None``: the field is left out)."""


def strict_loads(text: str) -> Any:
    """``json.loads`` that refuses NaN and Infinity, as strict parsers do."""

    def refuse(word: str) -> Any:
        raise ValueError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def run_compare(server: JudgeServer, tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``fairjudge compare --max-cost`` on :data:`N_ITEMS` items against ``server``."""
    items = tmp / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps({"id": str(i), "question": f"Question {i:03d}?",
                        "answer_1": f"one {i:03d}", "answer_2": f"two {i:03d}"}) + "\n"
            for i in range(N_ITEMS)
        )
    )  # fmt: skip
    args = [
        "compare", str(items), "--judge", "openai/scripted", "--base-url", server.base_url,
        "--store", str(tmp / "s.sqlite"), "-q", "--concurrency", str(CONCURRENCY),
        "--max-cost", str(MAX_COST), "--price-input", str(PRICE), "--price-output", str(PRICE),
        *extra,
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(OPENAI_API_KEY=DEFAULT_API_KEY, COLUMNS="200")
    return run_process(args, env=env, timeout=120)


def largest_estimate(tmp: Path) -> float:
    """The most one stored call can be charged at its estimate (its guess at 1x)."""
    from fairjudge.runner import Store

    with Store(tmp / "s.sqlite") as store:
        records = list(store.records())
    costs = [0.0]
    for r in records:
        messages = r.spec["messages"]
        n_in = sum(len(c) for _, c in messages) // 4 + 4 * len(messages)
        params = r.spec["params"]
        cap = params.get("max_tokens") or params.get("max_completion_tokens") or 0
        costs.append(Prices(PRICE, PRICE).cost(n_in, cap or UNKNOWN_OUTPUT_TOKENS))
    return max(costs)


@dataclass(frozen=True, slots=True)
class UsageTry:
    """One hostile run, counted.

    Attributes:
        exit_code: The process's exit code (5: stopped by the budget).
        made: Calls made.
        believed: Replies whose hostile usage was believed (must be 0).
        spent: Dollars the run says it spent.
        traceback: Whether stderr holds a traceback.
        strict_json: Whether stdout parsed as strict JSON.
    """

    exit_code: int
    made: int
    believed: int
    spent: float
    traceback: bool
    strict_json: bool


def try_usage(server: JudgeServer, tmp: Path, usage: dict[str, Any]) -> UsageTry:
    """Run ``compare --max-cost --json`` with ``usage`` written over every reply's usage."""
    server.configure(usage=usage, latency=0.01)
    done = run_compare(server, tmp, "--json")
    try:
        calls = strict_loads(done.stdout)["calls"]
        strict = True
    except (ValueError, KeyError, TypeError):
        calls, strict = {}, False
    made = int(calls.get("made", 0))
    return UsageTry(
        exit_code=done.returncode,
        made=made,
        believed=made - int(calls.get("usage_unreported", 0)),
        spent=float(calls.get("cost_usd") or 0.0),
        traceback="Traceback" in done.stderr,
        strict_json=strict,
    )
