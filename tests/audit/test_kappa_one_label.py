"""Human labels of one value are no evidence about a judge (QA 38 #4).

With every ``human`` label the same, chance agreement equals the judge's share of
that label, which is also its agreement: Cohen's kappa is exactly 0 for any judge
that gives another label even once (as sklearn's ``cohen_kappa_score`` gives), and
undefined for one that never does. The statistic stays exact; the gate does not read
it as a failing judge: it is not applied (exit 7, no evidence), as README promises.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from typer.testing import CliRunner

from fairjudge.audit import merge_labels
from fairjudge.cli import app
from fairjudge.stats import judge_agreement
from tests.audit.test_label_merge import sheet

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


def test_kappa_of_raters_who_both_gave_one_label_is_undefined_not_a_number() -> None:
    # Both raters gave every item "tie": chance agreement is 1, kappa = 0/0. No number
    # (0 least of all), no interval, and the reason says why, in JSON and in text.
    agreement = judge_agreement(["tie"] * 12, ["tie"] * 12, n_resamples=50)
    assert math.isnan(agreement.kappa)
    data = agreement.to_dict()
    assert data["kappa"] is None
    ci = data["kappa_ci"]
    assert (ci["low"], ci["high"], ci["estimable"]) == (None, None, False)
    assert ci["reason"] == (
        "undefined: both raters gave every item the label 'tie', so chance agreement is 1 "
        "and kappa, agreement beyond chance, has no value"
    )
    text = agreement.summary()
    assert f"Cohen's kappa    n/a ({ci['reason']})" in text
    assert "nan" not in text.split("Cohen's kappa", 1)[1]


def test_label_merge_of_two_files_of_one_label_prints_kappa_as_undefined(tmp_path: Path) -> None:
    a = sheet(tmp_path / "a.jsonl", ["1"] * 6)
    merged = merge_labels(a, sheet(tmp_path / "b.jsonl", ["1"] * 6), tmp_path / "m.jsonl",
                          n_resamples=50)  # fmt: skip
    assert merged.to_dict()["agreement"]["kappa"] is None
    line = next(x for x in merged.summary().splitlines() if x.startswith("Cohen's kappa"))
    assert line == (
        "Cohen's kappa n/a (undefined: both raters gave every item the label '1', so chance "
        "agreement is 1 and kappa, agreement beyond chance, has no value) (A rows, B columns)"
    )


def test_one_raters_single_label_is_a_kappa_of_zero_kept_as_it_is() -> None:
    # Only the humans gave one label: chance agreement is 17/20, not 1, so kappa is
    # defined, and 0 (observed = chance) in the data and in every resample alike, and
    # the gate calls it uninformative. The estimate is kept; its [0, 0], which no
    # resample could move, says so (session 42: marked, not read as measured).
    agreement = judge_agreement(["2"] * 17 + ["tie"] * 3, ["2"] * 20, n_resamples=50)
    assert agreement.kappa_text() == "0.000 [0.000, 0.000] (all alike, the bootstrap cannot vary)"
    assert agreement.kappa_ci.cannot_vary
    assert agreement.kappa_ci.note is not None
    assert "the human gave every item one label, so kappa is 0" in agreement.kappa_ci.note


def test_s2_of_no_item_without_a_tie_is_na_with_why_not_nan() -> None:
    # Every item has a tie on one side: S2 (agreement where neither said tie) has no
    # items, so no value; it printed "nan cannot be estimated: undefined in every
    # bootstrap resample (0/0)".
    agreement = judge_agreement(["tie", "1", "tie", "2"] * 3, ["1", "tie", "tie", "tie"] * 3,
                                n_resamples=50)  # fmt: skip
    s2 = agreement.to_dict()["s2"]
    assert (s2["estimate"], s2["n"]) == (None, 0)
    assert s2["ci"]["reason"] == "no item where neither rater said tie"
    line = next(x for x in agreement.summary().splitlines() if "S2" in x)
    assert line == "  S2 (no ties)     n/a (no item where neither rater said tie) (0/0)"
