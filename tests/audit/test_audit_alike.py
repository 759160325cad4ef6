"""A point interval the bootstrap could not vary earns no verdict (QA41b #2).

When every question gives the same value (a judge that always says "A": every pair's
debiased score is 1/2, so the swap's residual is 0 on every question), the bootstrap
interval is the point ``[0, 0]``: not a measured certainty. It is kept, marked
"all alike, the bootstrap cannot vary", and audit's verdict from it is "uncertain",
never "negligible".
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.audit._experiment import paired_effect
from fairjudge.cli import app
from fairjudge.stats import bootstrap_mean
from tests.server import JudgeServer

BOOT = {"seed": 0, "level": 0.95, "n_resamples": 200}


def test_an_all_alike_mean_keeps_its_point_and_says_so() -> None:
    ci = bootstrap_mean([0.0] * 6, ["q1", "q1", "q2", "q2", "q3", "q3"], **BOOT)
    assert (ci.low, ci.high) == (0.0, 0.0)  # no bound invented
    assert ci.note is not None
    assert "all 3 questions have a mean of 0" in ci.note
    assert str(ci) == "[0.000, 0.000] (all alike, the bootstrap cannot vary)"
    assert ci.to_dict()["note"] == ci.note
    varied = bootstrap_mean([0.0, 1.0, 0.0, 2.0], ["a", "b", "c", "d"], **BOOT)
    assert varied.note is None  # a bootstrap that varies is unchanged


def test_audit_reads_no_verdict_from_a_point_interval() -> None:
    alike = paired_effect("d", [0.0] * 10, [f"q{i}" for i in range(10)], unit="points",
                          scale=4.0, **BOOT)  # fmt: skip
    assert alike.verdict == "uncertain"  # was "negligible" from [0, 0]
    far = paired_effect("d", [2.0] * 10, [f"q{i}" for i in range(10)], unit="points",
                        scale=4.0, **BOOT)  # fmt: skip
    assert far.verdict == "uncertain"  # was "severe" from [2, 2]
    small = [0.01 * (i % 3 - 1) for i in range(30)]
    measured = paired_effect("d", small, [f"q{i}" for i in range(30)], unit="points",
                             scale=4.0, **BOOT)  # fmt: skip
    assert measured.verdict == "negligible"  # a varying bootstrap still earns it


def test_the_swap_residual_of_an_always_a_judge_is_not_negligible(
    audit_server: JudgeServer, tmp_path: Path
) -> None:
    audit_server.configure(judge=lambda pair: "A", reply_format="{verdict}")
    args = ["audit", "--judge", "openai/scripted-judge", "--base-url", audit_server.base_url,
            "--store", str(tmp_path / "s.sqlite"), "--quiet", "--bootstrap", "200",
            "--limit", "10", "--experiments", "position"]  # fmt: skip
    done = CliRunner().invoke(app, [*args, "--json"])
    assert done.exit_code == 0, done.stderr
    (position,) = json.loads(done.stdout)["experiments"][:1]
    (residual,) = position["residual"]
    assert (residual["ci"]["low"], residual["ci"]["high"]) == (0.0, 0.0)
    assert residual["ci"]["note"].startswith("all alike, the bootstrap cannot vary")
    assert residual["verdict"] == "uncertain"
    done = CliRunner().invoke(app, [*args, "--store", str(tmp_path / "s.sqlite")])
    row = done.stdout[done.stdout.index("after mitigation:") - 2 :]  # the table folds cells
    assert "│ uncertain │" in row.splitlines()[0]
    assert "(all alike, the" in row
    assert "bootstrap cannot" in row
