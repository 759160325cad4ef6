"""Preference fairness alike on every question: the bound from none off it, not ``[pf, pf]``.

A fully consistent judge ((A, B) or (B, A) on every pair: its first-position share of
calls is 1/2 on every question) has fairness 0 on every question, and the bootstrap
gave ``+0.000 [+0.000, +0.000]``. Fairness is the mean over pairs of second minus
first, each pair -1, 0 or +1: ``2 s - 1`` of the share ``s = (pf + 1) / 2``. So it
gets ``alike_interval``'s bound on ``s`` mapped back (``span=(-1, 1)``): none of the
``n`` questions is off, at most ``u`` of all are (Wilson's upper bound of 0 of ``n``),
each moving fairness at most to -1 or +1: ``[pf - (pf + 1) u, pf + (1 - pf) u]``,
``[-u, u]`` at 0. Checked against scipy's ``binomtest(0, n)`` Wilson bound; fairness
that varies between questions keeps its bootstrap interval, bit for bit.
"""

from __future__ import annotations

from typing import Any

import pytest
from scipy.stats import binomtest

from fairjudge.stats import _position_bias, position_bias
from fairjudge.stats._intervals import alike_interval


def u_of(n: int, level: float) -> float:
    return float(binomtest(0, n).proportion_ci(confidence_level=level, method="wilson").high)


def consistent(n: int, per_question: int, level: float) -> Any:
    """A judge that names the same answer in both orders on every pair."""
    k = n * per_question
    original = ["A", "B"] * (k // 2)
    swapped = ["B", "A"] * (k // 2)
    questions = [f"q{i // per_question}" for i in range(k)]
    return position_bias(original, swapped, questions=questions, n_resamples=300, seed=2,
                         level=level)  # fmt: skip


@pytest.mark.parametrize(("n", "level"), [(20, 0.95), (20, 0.9), (37, 0.95), (6, 0.9)])
def test_a_consistent_judges_fairness_is_plus_or_minus_u(n: int, level: float) -> None:
    r = consistent(n, 2, level)
    assert r.first_position.estimate == 0.0
    assert r.consistency.estimate == 1.0
    assert r.preference_fairness == 0.0
    u = u_of(n, level)
    ci = r.preference_fairness_ci
    assert (ci.low, ci.high) == pytest.approx((-u, u), abs=1e-12)
    assert ci.level == level
    # the share s = (pf + 1) / 2 = 1/2 on every question: its bound, mapped by 2 s - 1
    share = alike_interval(0.5, n, level, True)
    assert (ci.low, ci.high) == pytest.approx((2 * share.low - 1, 2 * share.high - 1), abs=1e-12)
    line = r.summary().splitlines()[-1]
    assert line == f"  pref. fairness    +0.000 [{-u:+.3f}, {u:+.3f}] (bound from 0/{n} off 0)"
    data = r.to_dict()["preference_fairness_ci"]
    assert data["note"] == ci.note
    assert ci.note is not None
    assert ci.note.startswith(
        f"bound from 0/{n} off 0: all {n} questions have a value of 0, so the bootstrap "
        "cannot vary. A mean of values from -1 to 1 is no count of successes"
    )
    assert ci.note.endswith(
        f"the value lies in [0 - 1 x {u:.3f}, 0 + 1 x {u:.3f}]. This assumes questions of "
        "similar size: the value weighs each by its items"
    )


def test_twenty_questions_read_as_the_degenerate_share_does() -> None:
    # 0 of 20 off: u = 0.161, so fairness [-0.161, +0.161], the same u as a first-position
    # share of 1/2's [0.419, 0.581] (1/2 +- u/2).
    r = consistent(20, 1, 0.95)
    assert f"{r.preference_fairness_ci:+.3f}" == "[-0.161, +0.161] (bound from 0/20 off 0)"


def test_fairness_alike_off_zero_is_the_mapped_bound() -> None:
    # Two pairs a question, (A, A) and (A, B): fairness -1/2 on each of 8 questions.
    r = position_bias(["A", "A"] * 8, ["A", "B"] * 8,
                      questions=[f"q{i // 2}" for i in range(16)], n_resamples=300)  # fmt: skip
    assert r.preference_fairness == -0.5
    u = u_of(8, 0.95)
    ci = r.preference_fairness_ci
    assert (ci.low, ci.high) == pytest.approx((-0.5 - 0.5 * u, -0.5 + 1.5 * u), abs=1e-12)
    assert str(ci).endswith(" (bound from 0/8 off -0.5)")


def test_the_one_question_keeps_its_reason() -> None:
    r = position_bias(["A", "B"], ["B", "A"], questions=["q", "q"], n_resamples=50)
    assert not r.preference_fairness_ci.estimable  # one cluster: the bootstrap's reason


@pytest.mark.parametrize(
    ("original", "swapped", "questions"),
    [
        # fairness varies from item to item
        (["A", "B", "A", "tie", "B", "A", "A", "B"], ["B", "A", "A", "tie", "B", "B", "tie", "A"],
         None),
        # 0 overall, but -1 on one question and +1 on the other
        (["A", "A", "B", "B"], ["A", "A", "B", "B"], ["q1", "q1", "q2", "q2"]),
    ],
)  # fmt: skip
def test_fairness_that_varies_keeps_its_bootstrap_interval(
    monkeypatch: pytest.MonkeyPatch,
    original: list[str],
    swapped: list[str],
    questions: list[str] | None,
) -> None:
    now = position_bias(original, swapped, questions=questions, n_resamples=300, seed=4)
    monkeypatch.setattr(_position_bias, "wilson_when_alike", lambda ci, *_: ci)
    before = position_bias(original, swapped, questions=questions, n_resamples=300, seed=4)
    key = "preference_fairness_ci"  # the shares alike in the second case get theirs
    assert now.to_dict()[key] == before.to_dict()[key]
    assert now.preference_fairness_ci == before.preference_fairness_ci
    assert now.summary().splitlines()[-1] == before.summary().splitlines()[-1]
    assert now.preference_fairness_ci.note is None
    assert now.preference_fairness_ci.high > now.preference_fairness_ci.low
