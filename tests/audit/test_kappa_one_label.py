"""Human labels of one value are no evidence about a judge (QA 38 #4).

With every ``human`` label the same, chance agreement equals the judge's share of
that label, which is also its agreement: Cohen's kappa is exactly 0 for any judge
that gives another label even once (as sklearn's ``cohen_kappa_score`` gives), and
undefined for one that never does. The statistic stays exact; the gate does not read
it as a failing judge: it is not applied (exit 7, no evidence), as README promises.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.cli import app
from fairjudge.stats import judge_agreement

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "demo_pairs.jsonl")  # every human label is "2"
KNOWS = "python:fairjudge.examples.judges:knows_facts"


def test_kappa_against_one_human_label_is_zero_exactly() -> None:
    # By hand (and sklearn): observed = expected = 17/20, so kappa = 0.
    agreement = judge_agreement(["2"] * 17 + ["tie"] * 3, ["2"] * 20, n_resamples=50)
    assert agreement.kappa == 0.0


def test_one_human_label_is_no_evidence_and_exits_7() -> None:
    result = CliRunner().invoke(app, ["calibrate", DEMO, "--judge", KNOWS, "--json"])
    assert result.exit_code == 7, result.output
    report = json.loads(result.stdout)
    assert report["agreement"]["kappa"] == 0.0  # the statistic is unchanged
    gate = report["gate"]
    assert (gate["outcome"], gate["passed"]) == ("not_applied", None)
    (check,) = gate["checks"]
    assert check["applied"] is False
    assert check["reason"].startswith(
        "uninformative: every resolved item's human label is '2', so kappa is 0 for any "
        "judge that gives another label even once"
    )


def test_the_terminal_says_why_not_fail() -> None:
    result = CliRunner().invoke(app, ["calibrate", DEMO, "--judge", KNOWS])
    assert result.exit_code == 7, result.output
    out = " ".join(result.output.split())
    assert "Gate: NOT APPLIED (no check could be evaluated: not a pass)" in out
    assert "Gate: FAIL" not in out
    assert "labels of one value say nothing about the judge" in out
