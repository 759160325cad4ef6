"""A server's usage figures cannot switch ``--max-cost`` off, crash a run or break ``--json``.

Each run is a ``fairjudge compare --max-cost`` process against the scripted server,
which reports a hostile value in one usage field of every reply: negative, NaN,
Infinity, a string, a boolean, 2**70, or the field missing. Before, negative counts
and NaN made 80 of 80 calls under a budget worth 5 and reported a negative cost; a
string or 2**70 crashed the run with a traceback and printed no JSON; NaN printed a
bare ``NaN`` that strict JSON parsers refuse. Now each such reply is charged its
estimate, never less: the budget stops the run (exit 5), the spend is positive and
within the budget plus the calls in flight, every such call is counted as "usage not
reported correctly", and stdout is strict JSON.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fairjudge.runner._budget import UNKNOWN_OUTPUT_TOKENS
from fairjudge.runner._limits import Prices
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


def _strict(text: str) -> Any:
    """``json.loads`` that refuses NaN and Infinity, as strict parsers do."""

    def refuse(word: str) -> Any:
        raise ValueError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def _run(server: JudgeServer, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps({"id": str(i), "question": f"Question {i:03d}?",
                        "answer_1": f"one {i:03d}", "answer_2": f"two {i:03d}"}) + "\n"
            for i in range(N_ITEMS)
        )
    )  # fmt: skip
    args = [
        "compare", str(items), "--judge", "openai/scripted", "--base-url", server.base_url,
        "--store", str(tmp_path / "s.sqlite"), "-q", "--concurrency", str(CONCURRENCY),
        "--max-cost", str(MAX_COST), "--price-input", str(PRICE), "--price-output", str(PRICE),
        *extra,
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(OPENAI_API_KEY=DEFAULT_API_KEY, COLUMNS="200")
    return run_process(args, env=env, timeout=120)


def _largest_estimate(tmp_path: Path) -> float:
    """The most one call can be charged at its estimate (its guess at 1x)."""
    from fairjudge.runner import Store

    with Store(tmp_path / "s.sqlite") as store:
        records = list(store.records())
    costs = []
    for r in records:
        messages = tuple(tuple(m) for m in r.spec["messages"])
        n_in = sum(len(c) for _, c in messages) // 4 + 4 * len(messages)
        params = r.spec["params"]
        cap = params.get("max_tokens") or params.get("max_completion_tokens") or 0
        costs.append(Prices(PRICE, PRICE).cost(n_in, cap or UNKNOWN_OUTPUT_TOKENS))
    return max(costs)


@pytest.mark.parametrize("field", ["prompt_tokens", "completion_tokens"])
@pytest.mark.parametrize(("name", "value"), HOSTILE, ids=[n for n, _ in HOSTILE])
def test_hostile_usage_keeps_the_budget(
    judge_server: JudgeServer, tmp_path: Path, name: str, value: Any, field: str
) -> None:
    judge_server.configure(usage={field: value}, latency=0.01)
    done = _run(judge_server, tmp_path, "--json")
    assert "Traceback" not in done.stderr
    assert done.returncode == 5, done.stderr  # stopped by --max-cost: a partial result
    payload = _strict(done.stdout)
    calls = payload["calls"]
    assert calls["stopped"] == "max_cost"
    made = calls["made"]
    assert 0 < made < 2 * N_ITEMS
    assert judge_server.count("requests") == made  # no call started beyond those paid for
    assert calls["usage_unreported"] == made  # every reply's usage was refused
    assert calls["cost_usd"] > 0  # the spend never goes down
    # Within the budget, but for the calls in flight when the last one started.
    assert calls["cost_usd"] <= MAX_COST + CONCURRENCY * _largest_estimate(tmp_path)


def test_the_terminal_and_out_file_say_usage_was_not_reported(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    judge_server.configure(usage={"completion_tokens": math.nan})
    out = tmp_path / "out.jsonl"
    done = _run(judge_server, tmp_path, "--out", str(out))
    assert "Traceback" not in done.stderr
    assert done.returncode == 5
    text = " ".join(done.stdout.split())
    assert "usage not reported correctly:" in text
    assert "(each charged its estimate)" in text
    header = _strict(out.read_text().splitlines()[0])["fairjudge"]
    assert header["calls"]["usage_unreported"] == header["calls"]["made"] > 0


def test_no_usage_object_at_all_is_charged_too(judge_server: JudgeServer, tmp_path: Path) -> None:
    judge_server.configure(drop_usage=True)
    done = _run(judge_server, tmp_path, "--json")
    assert done.returncode == 5, done.stderr
    calls = _strict(done.stdout)["calls"]
    assert calls["usage_unreported"] == calls["made"] > 0
    assert 0 < calls["cost_usd"] <= MAX_COST + CONCURRENCY * _largest_estimate(tmp_path)
