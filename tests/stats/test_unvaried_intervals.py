"""Figures no bootstrap resample could move: bounded, or marked, never a measured [x, x].

Kappa (Cohen's and Fleiss'), Krippendorff's alpha, a panel's effective number of
judges and the length-controlled win rate resample by their own paths. When every
resample gives the same value (raters who agree on every item, members that are
copies, all ties) their percentile interval was the point ``[x, x]``, read as a
certainty the data cannot give. Now:

- Kappa of full agreement: the bound from none of the ``n`` clusters off full
  agreement, ``[1 - u / (1 - p_e), 1]`` (``u`` Wilson's upper bound of 0 of ``n``,
  checked against scipy's ``binomtest``; ``p_e`` the observed chance agreement, checked
  against a hand count).
- Any other such figure keeps its point, marked ``cannot_vary`` with a note saying why
  (``all alike, the bootstrap cannot vary``), so no verdict is read from it.
- The length-controlled run's raw win rate, alike on every question, gets the win
  rate's own bound (``alike_interval``).
"""

from __future__ import annotations

from typing import Any

import pytest
from scipy.stats import binomtest

from fairjudge.stats import (
    effective_judges,
    fleiss_kappa,
    judge_agreement,
    krippendorff_alpha_ci,
    length_controlled_win_rate,
)

LEVEL = 0.9
OPTIONS: dict[str, Any] = {"n_resamples": 300, "seed": 3, "level": LEVEL}


def wilson_u(n: int) -> float:
    return float(binomtest(0, n).proportion_ci(confidence_level=LEVEL, method="wilson").high)


def chance(labels: list[str]) -> float:
    """Chance agreement of two raters who gave the same ``labels``: sum of squared shares."""
    return sum((labels.count(x) / len(labels)) ** 2 for x in set(labels))


@pytest.mark.parametrize("clustered", [False, True])
def test_cohens_kappa_of_full_agreement_is_bounded(clustered: bool) -> None:
    labels = ["1", "2", "tie", "1"] * 6  # 24 items; 12 questions of 2 when clustered
    questions = [f"q{i // 2}" for i in range(24)] if clustered else None
    r = judge_agreement(labels, labels, questions=questions, **OPTIONS)
    n = 12 if clustered else 24
    p_e = chance(labels)
    assert r.kappa == 1.0
    assert r.kappa_ci.low == pytest.approx(1.0 - wilson_u(n) / (1.0 - p_e), abs=1e-9)
    assert r.kappa_ci.high == 1.0
    assert r.kappa_ci.level == LEVEL
    assert r.kappa_ci.note is not None
    assert r.kappa_ci.note.startswith(f"bound from 0/{n} off full agreement: ")
    assert ("questions of similar size" in r.kappa_ci.note) is clustered
    assert not r.kappa_ci.cannot_vary  # a real bound: a verdict may rest on it
    assert str(r.kappa_ci).endswith(f"(bound from 0/{n} off full agreement)")
    assert r.to_dict()["kappa_ci"]["note"] == r.kappa_ci.note


def test_cohens_kappa_of_a_one_label_judge_is_a_marked_zero() -> None:
    # The judge says "1" throughout: kappa is 0 in every resample whatever the human said.
    r = judge_agreement(["1"] * 20, ["1", "2", "tie", "2"] * 5, **OPTIONS)
    assert r.kappa == 0.0
    assert (r.kappa_ci.low, r.kappa_ci.high) == (0.0, 0.0)
    assert r.kappa_ci.cannot_vary
    assert r.kappa_ci.note is not None
    assert "the judge gave every item one label, so kappa is 0" in r.kappa_ci.note
    assert r.kappa_text() == "0.000 [0.000, 0.000] (all alike, the bootstrap cannot vary)"


def test_fleiss_kappa_of_full_agreement_is_bounded_and_undefined_says_why() -> None:
    labels = ["1", "2", "tie", "2", "1"] * 4
    f = fleiss_kappa([[x, x, x] for x in labels], **OPTIONS)
    p_e = chance(labels)
    assert f.kappa == 1.0
    assert f.expected == pytest.approx(p_e, abs=1e-12)
    assert f.ci.low == pytest.approx(1.0 - wilson_u(20) / (1.0 - p_e), abs=1e-9)
    assert f.ci.high == 1.0
    assert f.ci.note is not None
    assert f.ci.note.startswith("bound from 0/20 off full agreement: the raters agreed on all")
    one = fleiss_kappa([["2", "2", "2"]] * 6, **OPTIONS)
    assert one.ci.reason == (
        "undefined: all 3 raters gave every item the label '2', so chance agreement is 1 "
        "and kappa, agreement beyond chance, has no value"
    )  # was "undefined in every bootstrap resample"
    assert one.summary().startswith("Fleiss' kappa n/a (undefined: all 3 raters")


def test_a_panel_of_copies_is_one_judge_marked_not_measured() -> None:
    rows = [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [1.0, 1.0, 1.0]] * 5
    e = effective_judges(rows, **OPTIONS)
    assert e.estimate == pytest.approx(1.0, abs=1e-12)
    assert e.ci.cannot_vary
    assert (e.ci.low, e.ci.high) == (e.estimate, e.estimate)
    assert e.ci.note is not None
    assert "all 3 members gave the same scores on every item" in e.ci.note
    a = krippendorff_alpha_ci(rows, "interval", **OPTIONS)
    assert a.alpha == 1.0
    assert a.ci.cannot_vary
    varied = effective_judges([[1, 0, 1], [0, 1, 0], [0.5, 0.5, 1], [1, 1, 0]] * 5, **OPTIONS)
    assert varied.ci.note is None
    assert varied.ci.low < varied.ci.high


def test_length_control_of_all_ties() -> None:
    lc = length_controlled_win_rate(
        ["tie"] * 20, [100 + 5 * i for i in range(20)], [150] * 20, **OPTIONS
    )
    u = wilson_u(20)
    assert (lc.raw_ci.low, lc.raw_ci.high) == pytest.approx((0.5 - u / 2, 0.5 + u / 2), abs=1e-9)
    assert lc.raw_ci.note is not None
    assert lc.raw_ci.note.startswith("bound from 0/20 off 0.5: ")
    assert lc.estimate == 0.5
    assert lc.ci.cannot_vary
    assert lc.ci.note is not None
    assert "every verdict is a tie" in lc.ci.note
    assert lc.length_coefficient_ci.cannot_vary
    assert lc.to_dict()["ci"]["note"] == lc.ci.note


def test_length_control_when_every_question_is_the_same() -> None:
    # Each question: a longer answer won, a shorter lost, a shorter won, a longer lost.
    q = [i // 4 for i in range(40)]
    lc = length_controlled_win_rate(
        ["1", "2", "1", "2"] * 10,
        [150, 100, 100, 130] * 10,
        [100, 150, 120, 100] * 10,
        questions=q,
        **OPTIONS,
    )
    assert lc.ci.cannot_vary
    assert (lc.ci.low, lc.ci.high) == (lc.estimate, lc.estimate)
    assert lc.ci.note is not None
    assert "every question gives the same verdicts at the same lengths" in lc.ci.note
    assert lc.length_coefficient_ci.cannot_vary
    assert lc.raw_ci.note is not None  # 1/2 on every question
    varied = length_controlled_win_rate(
        ["1", "2", "tie", "1", "1", "2"] * 5, list(range(100, 130)), [110] * 30, **OPTIONS
    )
    assert varied.ci.note is None
    assert varied.raw_ci.note is None
