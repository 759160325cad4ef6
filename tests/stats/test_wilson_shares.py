"""Position-bias shares and judge-human agreement alike on every question: Wilson's interval.

``position_bias`` and ``judge_agreement`` resample by their own path, not through
``bootstrap_mean``, and gave ``[p, p]`` when every question had the same share (a judge
that always picks the first slot: consistency ``0.000 [0.000, 0.000]``). Their shares of
pairs or items (consistency, first and second position, flips; S1 and S2) now get the
Wilson score interval on the questions there, checked against scipy's
``binomtest(k, n).proportion_ci(method="wilson")``. Kappa is no proportion and keeps
its interval (full agreement is bounded: tests/stats/test_unvaried_intervals.py); so does
every share that varies. Preference fairness alike on every question gets the share's
bound mapped to [-1, 1] (tests/stats/test_fairness_bound.py). A share
alike between 0 and 1 (1/2 on every question) is no count of successes: it gets the
bound from none of the questions off it, not Wilson's interval.
"""

from __future__ import annotations

from typing import Any

import pytest
from scipy.stats import binomtest

from fairjudge.stats import (
    ConfidenceInterval,
    _agreement,
    _position_bias,
    bootstrap_mean,
    judge_agreement,
    position_bias,
)

LEVEL = 0.9
OPTIONS: dict[str, Any] = {"n_resamples": 300, "seed": 5, "level": LEVEL}


def is_wilson(ci: ConfidenceInterval, successes: int, n: int) -> None:
    ref = binomtest(successes, n).proportion_ci(confidence_level=LEVEL, method="wilson")
    assert ci.level == LEVEL
    assert ci.low == pytest.approx(ref.low, abs=1e-12)
    assert ci.high == pytest.approx(ref.high, abs=1e-12)
    assert ci.note is not None
    assert ci.note.startswith(f"Wilson, all alike: all {n} ")
    assert ci.note.endswith(f"this is the Wilson score interval of {successes} of {n}")


def is_bound(ci: ConfidenceInterval, p: float, n: int) -> None:
    """Every unit's share ``p`` between 0 and 1: the bound from none of the ``n`` off it."""
    u = binomtest(0, n).proportion_ci(confidence_level=LEVEL, method="wilson").high
    assert ci.level == LEVEL
    assert ci.low == pytest.approx(p * (1 - u), abs=1e-12)
    assert ci.high == pytest.approx(p + (1 - p) * u, abs=1e-12)
    assert ci.note is not None
    assert ci.note.startswith(f"bound from 0/{n} off {p:g}: all {n} questions have a share")


@pytest.mark.parametrize("per_question", [1, 4])
def test_a_judge_that_always_picks_the_first_slot(per_question: int) -> None:
    questions = [f"q{i // per_question}" for i in range(24)] if per_question > 1 else None
    r = position_bias(["A"] * 24, ["A"] * 24, questions=questions, **OPTIONS)
    k = 24 // per_question  # the Wilson n: the questions (items when none are given)
    is_wilson(r.consistency.ci, 0, k)
    is_wilson(r.first_position.ci, k, k)
    is_wilson(r.second_position.ci, 0, k)
    is_wilson(r.flip.ci, k, k)
    u = binomtest(0, k).proportion_ci(confidence_level=LEVEL, method="wilson").high
    pf = r.preference_fairness_ci  # -1 on every question: the bound from none off -1
    assert (pf.low, pf.high) == pytest.approx((-1.0, -1.0 + 2 * u), abs=1e-12)
    assert pf.note is not None
    assert pf.note.startswith(f"bound from 0/{k} off -1: ")


def test_a_judge_that_agrees_with_every_human_label() -> None:
    labels = ["1", "2", "tie", "1"] * 5
    r = judge_agreement(labels, labels, questions=[f"q{i // 2}" for i in range(20)], **OPTIONS)
    is_wilson(r.s1.ci, 10, 10)
    is_wilson(r.s2.ci, 10, 10)  # every question has a decided item
    # Kappa is no share: it gets the bound from none of the 10 questions off full
    # agreement (tests/stats/test_unvaried_intervals.py), not Wilson's interval.
    assert r.kappa_ci.note is not None
    assert r.kappa_ci.note.startswith("bound from 0/10 off full agreement: ")


def test_shares_that_vary_keep_their_bootstrap_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    original = ["A", "B", "A", "tie", "B", "A", "A", "B"]
    swapped = ["B", "A", "A", "tie", "B", "B", "tie", "A"]
    judge = ["1", "2", "tie", "1", "2", "1", "1", "tie"]
    human = ["1", "1", "tie", "2", "2", "1", "1", "1"]
    now = (
        position_bias(original, swapped, **OPTIONS).to_dict(),
        judge_agreement(judge, human, **OPTIONS).to_dict(),
    )
    for module in (_position_bias, _agreement):
        monkeypatch.setattr(module, "wilson_when_alike", lambda ci, *_: ci)
    before = (
        position_bias(original, swapped, **OPTIONS).to_dict(),
        judge_agreement(judge, human, **OPTIONS).to_dict(),
    )
    assert now == before
    assert "Wilson" not in str(now)


def test_shares_of_one_half_on_every_question_are_bounded_not_wilson() -> None:
    # Two pairs a question: one consistent (A, B), one always first (A, A). Every
    # question's consistency, first-position and flip share is 1/2: no count of
    # successes, so not Wilson at 1/2 (that would be about [0.24, 0.76] on 10 questions).
    original, swapped = ["A", "A"] * 10, ["B", "A"] * 10
    questions = [f"q{i // 2}" for i in range(20)]
    r = position_bias(original, swapped, questions=questions, **OPTIONS)
    for share in (r.consistency, r.first_position, r.flip):
        assert share.estimate == 0.5
        is_bound(share.ci, 0.5, 10)
    is_wilson(r.second_position.ci, 0, 10)  # every question 0: a binomial count


def test_agreement_of_one_half_on_every_question_is_bounded_not_wilson() -> None:
    judge = ["1", "2"] * 6
    human = ["1", "1"] * 6
    r = judge_agreement(judge, human, questions=[f"q{i // 2}" for i in range(12)], **OPTIONS)
    is_bound(r.s1.ci, 0.5, 6)
    is_bound(r.s2.ci, 0.5, 6)


@pytest.mark.parametrize("questions", [True, False])
def test_s2_with_its_decided_items_in_one_question_is_not_estimable(questions: bool) -> None:
    # review41 F4: the decided items all in question a, beside two tie-only questions.
    # S2 was "Wilson of 1 of 1" ([0.207, 1.000] at 95%) there, while a run of that one
    # question alone says S2 cannot be estimated. Both now say it, for the same reason.
    labels = ["1", "1", "tie", "tie", "tie", "tie"]
    beside = judge_agreement(labels, labels, questions=list("aabbcc") if questions else None,
                             **OPTIONS)  # fmt: skip
    alone = judge_agreement(["1", "1"], ["1", "1"], questions=["a", "a"], **OPTIONS)
    if not questions:  # unclustered: one decided item, beside four tied ones
        labels = ["1", "tie", "tie", "tie", "tie"]
        beside = judge_agreement(labels, labels, **OPTIONS)
        alone = judge_agreement(["1"], ["1"], **OPTIONS)
    unit = "question" if questions else "item"
    for r in (beside, alone):
        assert r.s2.estimate == 1.0
        assert not r.s2.ci.estimable
        assert r.s2.ci.reason == f"one {unit}: the bootstrap cannot vary"
        assert r.to_dict()["s2"]["ci"]["reason"] == r.s2.ci.reason
    assert "Wilson" not in str(beside.to_dict()["s2"])
    is_wilson(beside.s1.ci, 3 if questions else 5, 3 if questions else 5)  # S1: every cluster


def test_s2_with_decided_items_in_two_questions_is_still_wilson() -> None:
    labels = ["1", "2", "tie", "tie", "2", "tie"]
    r = judge_agreement(labels, labels, questions=list("aabbcc"), **OPTIONS)
    is_wilson(r.s2.ci, 2, 2)  # questions a and c have a decided item


SIZES = ". This assumes questions of similar size: the {} weighs each by its items"


def test_the_bound_between_0_and_1_says_it_assumes_questions_of_similar_size() -> None:
    # review41 F5: "none of n questions off p, so at most u of them are" bounds the share
    # that counts each question once; p counts items, so one large question that is off
    # moves it further than u. The note (and --json's "note") says what it assumes.
    judge, human = ["1", "2"] * 6, ["1", "1"] * 6
    r = judge_agreement(judge, human, questions=[f"q{i // 2}" for i in range(12)], **OPTIONS)
    for ci in (r.s1.ci, r.s2.ci):
        is_bound(ci, 0.5, 6)
        assert ci.note is not None
        assert ci.note.endswith(SIZES.format("share"))
        assert ci.to_dict()["note"] == ci.note
        assert format(ci).endswith("(bound from 0/6 off 0.5)")  # the head is unchanged
    pb = position_bias(["A", "B"] * 8, ["B", "A"] * 8, questions=[f"q{i // 2}" for i in range(16)],
                       **OPTIONS).preference_fairness_ci  # fmt: skip
    assert pb.note is not None
    assert pb.note.endswith(SIZES.format("value"))
    # Unclustered, each unit is one item: the bound is as stated, with no such caveat.
    single = bootstrap_mean([0.5] * 12, proportion=True, level=LEVEL)  # 12 ties
    assert single.note is not None
    assert single.note.startswith("bound from 0/12 off 0.5: all 12 items have a share")
    assert "similar size" not in single.note
    # A count (every question 0 or 1) is Wilson's: unchanged.
    assert "similar size" not in str(judge_agreement(human, human, **OPTIONS).to_dict())
