"""A jury of Python callables: aggregation rules, weights and diagnostics, exactly."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping

import pytest

from fairjudge import ConfigError, Item, Outcome
from fairjudge.evaluation import EvalSettings, evaluate_jury, jury_diagnostics
from fairjudge.evaluation._jury import aggregate
from fairjudge.judges import CallableJudge, Jury, JuryMember, MemberSpec

SETTINGS = EvalSettings(n_resamples=200)
ONE, TWO = "answer one", "answer two"
ITEMS = [Item(f"q{i}", ONE, TWO, id=str(i)) for i in range(4)]


def believes(p_one: Mapping[str, float]) -> Callable[[str, str, str], dict[str, float]]:
    """A judge that gives P(model 1 better) = p_one[question], whatever the order."""

    def judge(question: str, answer_a: str, answer_b: str) -> dict[str, float]:
        p = p_one[question]
        first = p if answer_a == ONE else 1 - p
        return {"A": first, "B": 1 - first, "tie": 0.0}

    return judge


BELIEFS = {
    "m1": {"q0": 0.9, "q1": 0.8, "q2": 0.3, "q3": 0.6},
    "m2": {"q0": 0.7, "q1": 0.2, "q2": 0.4, "q3": 0.45},
    "m3": {"q0": 0.2, "q1": 0.3, "q2": 0.9, "q3": 0.4},
}


def panel(weights: tuple[float, ...] = (1, 1, 1)) -> Jury:
    return Jury(
        [
            JuryMember(name, CallableJudge(believes(b)), w)
            for (name, b), w in zip(BELIEFS.items(), weights, strict=True)
        ]
    )


def test_majority_of_debiased_verdicts() -> None:
    result = evaluate_jury(panel(), ITEMS, SETTINGS)
    # q0: 1,1,2 -> 1; q1: 1,2,2 -> 2; q2: 2,2,1 -> 2; q3: 1,2,2 -> 2.
    assert [j.outcome for j in result.judgments] == [
        Outcome.ONE,
        Outcome.TWO,
        Outcome.TWO,
        Outcome.TWO,
    ]
    assert result.win_rate is not None
    assert result.win_rate.estimate == 0.25
    assert (result.win_rate.wins, result.win_rate.ties, result.win_rate.losses) == (1, 0, 3)
    assert result.aggregation == "majority"
    assert result.to_dict()["members"] == [
        {"name": "m1", "weight": 1.0},
        {"name": "m2", "weight": 1.0},
        {"name": "m3", "weight": 1.0},
    ]


def test_mean_of_soft_scores() -> None:
    result = evaluate_jury(panel(), ITEMS, SETTINGS, aggregation="mean")
    means = [0.6, 1.3 / 3, 1.6 / 3, 1.45 / 3]
    assert [j.score for j in result.judgments] == pytest.approx(means)
    assert [j.outcome for j in result.judgments] == [
        Outcome.ONE,
        Outcome.TWO,
        Outcome.ONE,
        Outcome.TWO,
    ]
    assert result.win_rate is not None
    assert result.win_rate.estimate == pytest.approx(sum(means) / 4)
    # the same verdicts, re-aggregated, without calling anyone
    again = result.with_aggregation("majority")
    assert again.win_rate is not None
    assert again.win_rate.estimate == 0.25


def test_weights_change_the_aggregate_as_documented() -> None:
    result = evaluate_jury(panel((3, 1, 1)), ITEMS, SETTINGS)
    # m1 holds 3 of 5: more than half the weight, so m1's verdict is the panel's.
    assert [j.outcome for j in result.judgments] == [
        Outcome.ONE,
        Outcome.ONE,
        Outcome.TWO,
        Outcome.ONE,
    ]
    mean = evaluate_jury(panel((3, 1, 1)), ITEMS, SETTINGS, aggregation="mean")
    assert mean.judgments[0].score == pytest.approx((3 * 0.9 + 0.7 + 0.2) / 5)


def test_no_majority_is_a_tie() -> None:
    votes = [Outcome.ONE, Outcome.TWO, Outcome.TIE]
    assert aggregate(votes, [1.0, 0.0, 0.5], [1, 1, 1], "majority") == (Outcome.TIE, 0.5)
    assert aggregate(votes[:2], [1.0, 0.0], [1, 1], "majority") == (Outcome.TIE, 0.5)
    assert aggregate(votes[:2], [1.0, 0.0], [1.5, 1], "majority") == (Outcome.ONE, 1.0)
    assert aggregate(votes[:2], [1.0, 0.0], [1, 1], "mean") == (Outcome.TIE, 0.5)


def longer(q: str, a: str, b: str) -> str:
    return "B" if len(b) > len(a) else "A" if len(a) > len(b) else "tie"


def shorter(q: str, a: str, b: str) -> str:
    return {"A": "B", "B": "A", "tie": "tie"}[longer(q, a, b)]


LENGTH_ITEMS = [
    Item(f"question {i}", "x" * (1 + i % 4), "y" * (1 + i % 3), id=str(i), human=Outcome.ONE)
    for i in range(24)
]


def test_three_copies_of_one_judge_read_as_one() -> None:
    jury = Jury([JuryMember(f"copy{k}", CallableJudge(longer)) for k in range(3)])
    diag = jury_diagnostics(evaluate_jury(jury, LENGTH_ITEMS, SETTINGS))
    assert not isinstance(diag.effective, str)
    assert not isinstance(diag.fleiss, str)
    assert diag.effective.estimate == pytest.approx(1.0)
    assert diag.fleiss.kappa == pytest.approx(1.0)
    assert diag.agreement == ((1.0, 1.0, 1.0),) * 3
    assert all(m.agreement_with_panel is not None and m.agreement_with_panel.estimate == 1.0
               for m in diag.members)  # fmt: skip


def coin(seed: str) -> Callable[[str, str, str], str]:
    """An independent judge: a verdict from a hash of its seed and the item."""

    def judge(q: str, a: str, b: str) -> str:
        first, second = sorted([a, b])
        h = hashlib.sha256(f"{seed}|{q}|{first}|{second}".encode()).digest()[0] % 3
        pick = (first, second, None)[h]  # consistent across orders: no position bias
        return "tie" if pick is None else "A" if pick == a else "B"

    return judge


def test_independent_judges_read_as_several_and_agree_little() -> None:
    items = [Item(f"q{i}", f"one {i}", f"two {i}", id=str(i)) for i in range(300)]
    jury = Jury([JuryMember(s, CallableJudge(coin(s))) for s in ("a", "b", "c")])
    diag = jury_diagnostics(evaluate_jury(jury, items, SETTINGS))
    assert not isinstance(diag.effective, str)
    assert not isinstance(diag.fleiss, str)
    assert diag.effective.estimate > 2.8
    assert abs(diag.fleiss.kappa) < 0.1
    assert diag.fleiss.ci.low < 0 < diag.fleiss.ci.high


def test_a_dissenter_is_visible_and_humans_are_compared() -> None:
    members = [JuryMember(f"longer{k}", CallableJudge(longer)) for k in range(3)]
    jury = Jury([*members, JuryMember("contrarian", CallableJudge(shorter))])
    result = evaluate_jury(jury, LENGTH_ITEMS, SETTINGS)
    diag = jury_diagnostics(result)
    loo = {m.name: m.agreement_with_panel for m in diag.members}
    assert all(r is not None for r in loo.values())
    assert [loo[n].estimate for n in ("longer0", "longer1", "longer2")] == [1.0, 1.0, 1.0]  # type: ignore[union-attr]
    ties = sum(len(it.answer_1) == len(it.answer_2) for it in LENGTH_ITEMS)
    assert ties == 6
    assert loo["contrarian"].estimate == ties / 24  # type: ignore[union-attr]  # only on ties
    humans = {m.name: m.human for m in diag.members}
    longer_wins = sum(len(it.answer_1) > len(it.answer_2) for it in LENGTH_ITEMS)
    assert humans["longer0"] is not None
    assert humans["contrarian"] is not None
    assert humans["longer0"].s1.estimate == pytest.approx(longer_wins / 24)
    assert humans["contrarian"].s1.estimate == pytest.approx(
        sum(len(it.answer_1) < len(it.answer_2) for it in LENGTH_ITEMS) / 24
    )
    assert diag.human is not None
    assert diag.human.s1.estimate == pytest.approx(longer_wins / 24)
    record = diag.members[3].to_dict()
    assert record["calls"] == 48
    assert record["failed"] == 0


def test_a_member_that_fails_leaves_the_item_unresolved() -> None:
    def flaky(q: str, a: str, b: str) -> str:
        return "no idea" if q == "question 0" else longer(q, a, b)

    jury = Jury(
        [JuryMember("ok", CallableJudge(longer)), JuryMember("flaky", CallableJudge(flaky))]
    )
    result = evaluate_jury(jury, LENGTH_ITEMS, SETTINGS)
    assert result.n_unresolved == 1
    assert result.judgments[0].outcome is None
    assert result.judgments[0].votes[1] is None
    assert jury_diagnostics(result).n_complete == 23


def test_a_jury_is_checked_before_any_call() -> None:
    judge = CallableJudge(longer)
    with pytest.raises(ConfigError, match="at least two members"):
        Jury([JuryMember("one", judge)])
    with pytest.raises(ConfigError, match="unique"):
        Jury([JuryMember("x", judge), JuryMember("x", judge)])
    with pytest.raises(ConfigError, match="weight"):
        Jury([JuryMember("x", judge), JuryMember("y", judge, -1.0)])
    with pytest.raises(ConfigError, match="aggregation must be one of majority, mean"):
        evaluate_jury(Jury([JuryMember("x", judge), JuryMember("y", judge)]), ITEMS, SETTINGS,
                      aggregation="median")  # fmt: skip
    with pytest.raises(ConfigError, match="none of which declares a name and version"):
        Jury.from_specs([MemberSpec("python:tests.judge_fixtures:longer")] * 2, store=":memory:")


def test_from_specs_names_repeats() -> None:
    with Jury.from_specs([MemberSpec("python:tests.judge_fixtures:longer")] * 3) as jury:
        assert jury.names == (
            "python:tests.judge_fixtures:longer",
            "python:tests.judge_fixtures:longer#2",
            "python:tests.judge_fixtures:longer#3",
        )
