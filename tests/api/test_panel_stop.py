"""A panel stops once the answer is known in a notebook as ``jury --stop-when`` does.

Both run the one panel run of :mod:`fairjudge._api._runs`, so the same members, file,
seed and stop rule give the same ``--json``, anytime-valid interval and all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import fairjudge
from fairjudge.cli import app
from fairjudge.examples import judges

PAIRS = Path(fairjudge.__file__).parent / "examples" / "demo_pairs.jsonl"
J = "python:fairjudge.examples.judges:"
UNTIMED = {"calls", "mean_latency_s"}


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in UNTIMED}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


@pytest.mark.parametrize(
    ("members", "reason", "estimate", "n_judged"),
    [
        (("longer", "knows_facts"), "not decided", 0.45, 20),  # a split panel: the whole file
        (("longer", "longer"), "decided", 0.875, 16),  # a clear winner: stops early
    ],
)
def test_a_panel_with_stop_when_equals_the_jury_commands_json(
    members: tuple[str, str], reason: str, estimate: float, n_judged: int
) -> None:
    flags = [arg for name in members for arg in ("--judge", J + name)]
    run = CliRunner().invoke(app, [
        "jury", str(PAIRS), *flags, "--stop-when", "decided", "--batch", "4", "--quiet", "--json",
    ])  # fmt: skip
    assert run.exit_code == 0, run.output
    cli = json.loads(run.stdout[run.stdout.index("{") :])
    functions = [getattr(judges, name) for name in members]
    panel = fairjudge.compare(PAIRS, judges=functions, stop_when="decided", batch=4)
    mine = json.loads(json.dumps(panel.to_dict()))
    assert _untimed(mine) == _untimed(cli)
    adaptive = mine["adaptive"]
    assert (adaptive["stop_when"], adaptive["batch"]) == ("decided", 4)
    assert (adaptive["reason"], adaptive["estimate"], mine["n_items"]) == (
        reason, estimate, n_judged
    )  # fmt: skip
    assert mine["settings"]["source"] == str(PAIRS)
