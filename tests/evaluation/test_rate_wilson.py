"""A rate whose flags are all alike: the Wilson interval on its questions, not ``[p, p]``.

``make demo`` printed ``position consistency 0.000 [0.000, 0.000] (0/20)``: a
percentile bootstrap over flags that are all the same cannot vary. Position
consistency, the calls choosing the first position and a panel member's agreement
with the rest now get the Wilson score interval there, as a win rate does since
56112b3, on the rate's questions (its clusters: the flags of one question are not
independent, so the question is the unit), at the settings' level. Checked against
scipy's ``binomtest(k, n).proportion_ci(method="wilson")``; a rate whose flags vary
keeps its bootstrap interval, identical. A consistent judge's first-position share,
1/2 on every question, is no count of successes: the bound from none of the questions
off 1/2, ``1/2 ± u/2``. Fleiss' kappa of votes all alike is undefined, with its reason.
"""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from fairjudge import Item
from fairjudge.evaluation import EvalSettings, evaluate, evaluate_jury, jury_diagnostics
from fairjudge.judges import CallableJudge, Jury, JuryMember
from fairjudge.stats import ConfidenceInterval, bootstrap_mean

SETTINGS = EvalSettings(n_resamples=300, seed=3, level=0.9)
SHORT, LONG = "short", "a longer answer"


def first(question: str, answer_a: str, answer_b: str) -> str:
    return "A"  # always the first slot: never consistent, every call to position one


def longer(question: str, answer_a: str, answer_b: str) -> str:
    return "A" if len(answer_a) > len(answer_b) else "B"  # consistent, half of calls first


def sometimes_first(question: str, answer_a: str, answer_b: str) -> str:
    return "A" if int(question[1:]) % 3 == 0 else longer(question, answer_a, answer_b)


def items(n: int, per_question: int = 1) -> list[Item]:
    return [
        Item(f"q{i}", SHORT, LONG, id=str(i), cluster=f"c{i // per_question}") for i in range(n)
    ]


def is_wilson(ci: ConfidenceInterval, successes: int, n: int) -> None:
    ref = binomtest(successes, n).proportion_ci(confidence_level=SETTINGS.level, method="wilson")
    assert ci.estimable
    assert ci.level == SETTINGS.level
    assert ci.low == pytest.approx(ref.low, abs=1e-12)
    assert ci.high == pytest.approx(ref.high, abs=1e-12)
    assert ci.high > ci.low
    assert ci.note is not None
    assert ci.note.startswith(f"Wilson, all alike: all {n} questions have a share of ")
    assert format(ci).endswith(" (Wilson, all alike)")


def is_bound(ci: ConfidenceInterval, n: int) -> None:
    """Every question's share 1/2: ``1/2 ± u/2``, u Wilson's upper bound of 0 of ``n``."""
    u = binomtest(0, n).proportion_ci(confidence_level=SETTINGS.level, method="wilson").high
    assert (ci.low, ci.high) == pytest.approx((0.5 - u / 2, 0.5 + u / 2), abs=1e-12)
    assert ci.level == SETTINGS.level
    assert ci.note is not None
    assert format(ci).endswith(f" (bound from 0/{n} off 0.5)")


@pytest.mark.parametrize(("n", "per_question"), [(20, 1), (12, 3)])
def test_a_judge_that_always_picks_the_first_slot(n: int, per_question: int) -> None:
    result = evaluate(CallableJudge(first), items(n, per_question), SETTINGS)
    questions = n // per_question  # the Wilson n: the clusters, not the items or calls
    consistency = result.position_consistency
    assert consistency is not None
    assert (consistency.estimate, consistency.successes, consistency.n) == (0.0, 0, n)
    is_wilson(consistency.ci, 0, questions)
    first_calls = result.first_position_calls
    assert first_calls is not None
    assert (first_calls.estimate, first_calls.successes, first_calls.n) == (1.0, 2 * n, 2 * n)
    is_wilson(first_calls.ci, questions, questions)


def test_a_consistent_judge_chooses_the_first_slot_half_the_time_on_every_question() -> None:
    result = evaluate(CallableJudge(longer), items(20), SETTINGS)
    assert result.position_consistency is not None
    is_wilson(result.position_consistency.ci, 20, 20)
    assert result.first_position_calls is not None
    assert result.first_position_calls.estimate == 0.5
    # 1/2 on every question is no count of 10 successes in 20: not Wilson at 1/2
    # ([0.32, 0.68] at 0.9), but none of the 20 questions off 1/2: [0.44, 0.56].
    is_bound(result.first_position_calls.ci, 20)
    assert result.first_position_calls.ci.high < 0.57
    data = result.to_dict()["position_consistency"]["ci"]
    assert data["note"] == result.position_consistency.ci.note


def test_a_rate_whose_flags_vary_keeps_its_bootstrap_interval() -> None:
    data = items(12, per_question=2)
    result = evaluate(CallableJudge(sometimes_first), data, SETTINGS)
    rate = result.position_consistency
    assert rate is not None
    assert 0.0 < rate.estimate < 1.0
    flags = [0.0 if int(it.question_text[1:]) % 3 == 0 else 1.0 for it in data]
    boot = bootstrap_mean(
        flags, [it.cluster_key for it in data], n_resamples=SETTINGS.n_resamples,
        seed=SETTINGS.seed, level=SETTINGS.level,
    )  # fmt: skip
    assert rate.ci == boot
    assert (rate.ci.low, rate.ci.high, rate.ci.note) == (boot.low, boot.high, None)
    assert "note" not in rate.to_dict()["ci"]


def test_a_panel_members_rates_and_agreement_follow_the_same_rule() -> None:
    panel = Jury([JuryMember(f"m{k}", CallableJudge(longer)) for k in range(3)])
    result = evaluate_jury(panel, items(12, per_question=2), SETTINGS, aggregation="majority")
    for member in jury_diagnostics(result).members:
        assert member.agreement_with_panel is not None
        assert member.agreement_with_panel.estimate == 1.0
        is_wilson(member.agreement_with_panel.ci, 6, 6)
        assert member.position_consistency is not None
        is_wilson(member.position_consistency.ci, 6, 6)
        assert member.first_position_calls is not None
        is_bound(member.first_position_calls.ci, 6)


def test_fleiss_kappa_of_a_panel_voting_one_label_on_every_item_is_undefined() -> None:
    # Every member votes "2" (the longer answer) on every item: chance agreement is 1, so
    # kappa is 0/0. It is skipped with the reason, not a kappa of nan or 0.
    panel = Jury([JuryMember(f"m{k}", CallableJudge(longer)) for k in range(3)])
    result = evaluate_jury(panel, items(12, per_question=2), SETTINGS, aggregation="majority")
    fleiss = jury_diagnostics(result).fleiss
    assert fleiss == (  # the statistic's own reason (stats/_panel.kappa_undefined)
        "undefined: all 3 raters gave every item the label '2', so chance agreement is 1 "
        "and kappa, agreement beyond chance, has no value"
    )
    assert jury_diagnostics(result).to_dict()["fleiss_kappa"] == {"skipped": fleiss}
