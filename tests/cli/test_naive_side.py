"""The position-bias sentence appears only when the naive reading really points elsewhere.

The naive (single-order) and debiased results are placed by the same rule, their CIs:
a result whose CI contains 0.5 points to neither. Each test runs ``fairjudge`` as a
process, as a user would.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_headlines import ROOT, fairjudge, flat

CALIBRATION = str(ROOT / "examples" / "calibration.jsonl")
DEMO = str(ROOT / "examples" / "demo_pairs.jsonl")
KNOWS_FACTS = "python:fairjudge.examples.judges:knows_facts"
ALWAYS_A = "python:fairjudge.examples.judges:first_position"
SENTENCE = "would have pointed the wrong way"


def test_a_naive_result_identical_to_the_debiased_one_is_not_called_position_bias(
    tmp_path: Path,
) -> None:
    done = fairjudge("compare", CALIBRATION, "--judge", KNOWS_FACTS)
    assert done.returncode == 0, done.stderr
    out = flat(done.stdout)
    # Both readings are 0.521 [0.333, 0.708]: the labels say neither, and so do both.
    assert out.count("0.521 [0.333, 0.708]") == 2, out
    assert "Known truth, from the input's human labels: neither is better" in out
    assert "The debiased result takes no side either (its interval contains 0.5)" in out
    assert "found it" not in out  # no side is not proof that neither is better
    assert SENTENCE not in out
    assert "position bias, which the swap cancels" not in out

    as_json = fairjudge("compare", CALIBRATION, "--judge", KNOWS_FACTS, "--json")
    assert as_json.returncode == 0, as_json.stderr
    truth = json.loads(as_json.stdout)["known_truth"]
    assert truth == {"n": 24, "human_win_rate": 0.5, "debiased_agrees": True, "naive_agrees": True}

    page = tmp_path / "cal.html"
    cal = fairjudge("calibrate", CALIBRATION, "--judge", KNOWS_FACTS, "--html", str(page))
    assert cal.returncode == 0, cal.stderr
    html = page.read_text(encoding="utf-8")
    assert 'id="fj-naive"' in html
    assert SENTENCE not in html


def test_an_always_a_judge_on_the_demo_data_is_still_caught_by_position_bias() -> None:
    for rule in ("conservative", "soft"):  # make demo uses --rule soft
        done = fairjudge("compare", DEMO, "--judge", ALWAYS_A, "--rule", rule)
        assert done.returncode == 0, done.stderr
        out = flat(done.stdout)
        assert "Known truth, from the input's human labels: model 2 is better" in out
        assert f"Asking once, in one order, {SENTENCE} (1.000): that is position bias" in out

    as_json = fairjudge("compare", DEMO, "--judge", ALWAYS_A, "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["known_truth"]["naive_agrees"] is False
