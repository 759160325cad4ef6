"""``--rounds``: one round is labelled single-order, more than two sample.

``calibrate --rounds 3`` with ``--balanced`` is a usage error, not a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from fairjudge.runner import Store
from tests.cli._invoke import ROOT, invoke
from tests.cli.conftest import GOOD_ROWS
from tests.server import JudgeServer


def test_rounds_1_is_labelled_single_order(write_jsonl) -> None:  # type: ignore[no-untyped-def]
    path = str(write_jsonl(GOOD_ROWS))
    judge = "python:tests.judge_fixtures:always_a"
    table = invoke("compare", path, "--judge", judge, "--rounds", "1")
    assert table.exit_code == 0, table.output
    assert "(debiased)" not in table.output
    assert "NOT debiased" in table.output
    assert "position consistency" not in table.output
    data = json.loads(invoke("compare", path, "--judge", judge, "--rounds", "1", "--json").stdout)
    assert data["debiased"] is False
    assert data["position_consistency"] is None


def test_rounds_above_2_sample(
    write_jsonl,
    tmp_path: Path,
    openai_env: JudgeServer,  # type: ignore[no-untyped-def]
) -> None:
    store = tmp_path / "s.sqlite"
    args = ["compare", str(write_jsonl(GOOD_ROWS)), "--judge", "openai/m", "-q"]
    args += ["--base-url", openai_env.base_url, "--store", str(store), "--rounds", "4"]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    with Store(store) as s:
        temperatures = {r.spec["params"]["temperature"] for r in s.records()}
    assert temperatures == {0.7}
    refused = invoke(*args, "--temperature", "0")
    assert refused.exit_code == 2
    assert "identical calls paid for again" in refused.output


def test_calibrate_rounds_3_is_a_usage_error(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    result = invoke(
        "calibrate", str(ROOT / "examples" / "calibration.jsonl"),
        "--judge", "python:tests.judge_fixtures:counting", "--rounds", "3",
        env={"FAIRJUDGE_TEST_CALLS": str(calls)},
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--rounds 3 with --balanced must be even" in result.output
    assert not calls.exists()  # checked before any call
