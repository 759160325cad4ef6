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

import math
from pathlib import Path
from typing import Any

import pytest

from tests.cli._hostile_usage import (
    CONCURRENCY,
    HOSTILE,
    MAX_COST,
    N_ITEMS,
    largest_estimate,
    run_compare,
    strict_loads,
    try_usage,
)
from tests.server import JudgeServer


@pytest.mark.parametrize("field", ["prompt_tokens", "completion_tokens"])
@pytest.mark.parametrize(("name", "value"), HOSTILE, ids=[n for n, _ in HOSTILE])
def test_hostile_usage_keeps_the_budget(
    judge_server: JudgeServer, tmp_path: Path, name: str, value: Any, field: str
) -> None:
    got = try_usage(judge_server, tmp_path, {field: value})
    assert not got.traceback
    assert got.strict_json
    assert got.exit_code == 5  # stopped by --max-cost: a partial result
    assert 0 < got.made < 2 * N_ITEMS
    assert judge_server.count("requests") == got.made  # no call started beyond those paid for
    assert got.believed == 0  # every reply's usage was refused
    assert got.spent > 0  # the spend never goes down
    # Within the budget, but for the calls in flight when the last one started.
    assert got.spent <= MAX_COST + CONCURRENCY * largest_estimate(tmp_path)


def test_the_terminal_and_out_file_say_usage_was_not_reported(
    judge_server: JudgeServer, tmp_path: Path
) -> None:
    judge_server.configure(usage={"completion_tokens": math.nan})
    out = tmp_path / "out.jsonl"
    done = run_compare(judge_server, tmp_path, "--out", str(out))
    assert "Traceback" not in done.stderr
    assert done.returncode == 5
    text = " ".join(done.stdout.split())
    assert "usage not reported correctly:" in text
    assert "(each charged its estimate)" in text
    header = strict_loads(out.read_text().splitlines()[0])["fairjudge"]
    assert header["calls"]["usage_unreported"] == header["calls"]["made"] > 0


def test_no_usage_object_at_all_is_charged_too(judge_server: JudgeServer, tmp_path: Path) -> None:
    judge_server.configure(drop_usage=True)
    done = run_compare(judge_server, tmp_path, "--json")
    assert done.returncode == 5, done.stderr
    calls = strict_loads(done.stdout)["calls"]
    assert calls["usage_unreported"] == calls["made"] > 0
    assert 0 < calls["cost_usd"] <= MAX_COST + CONCURRENCY * largest_estimate(tmp_path)
