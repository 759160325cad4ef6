"""How many calls a run may plan: ``rounds`` at most 100, and a large plan needs a budget.

A run builds every call before it sends the first, so a typo in ``rounds`` (an extra
``000``) once planned 40 million calls and filled the machine's memory before any
output. Both refusals come before the judge is called once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from fairjudge import ConfigError, Item
from fairjudge.evaluation import (
    EvalSettings,
    _settings,
    check_repeats,
    evaluate,
    evaluate_jury,
    evaluate_pairs,
)
from fairjudge.judges import CallableJudge, Jury, JuryMember, ReplayJudge
from fairjudge.runner import RunOptions

ITEMS = [Item(f"q{i}", "a longer answer", "short", id=str(i)) for i in range(6)]


def counting() -> tuple[list[int], Callable[[str, str, str], str]]:
    calls: list[int] = []

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        calls.append(1)
        return "A" if len(answer_a) >= len(answer_b) else "B"

    return calls, judge


def test_a_run_plans_at_most_100_rounds_and_the_refusal_says_why_and_what_to_use() -> None:
    check_repeats(100, 0.7)
    with pytest.raises(ConfigError) as refused:
        check_repeats(1_000_000, 0.7)
    text = str(refused.value)
    assert text.startswith("rounds must be at most 100; got 1000000")
    assert "sampling error" in text
    assert "use 4 to 20" in text
    assert refused.value.params == ("rounds",)
    # The settings also describe runs already made (a results file read back): any number.
    assert EvalSettings(rounds=102).rounds == 102


def test_evaluate_pairs_refuses_101_rounds_before_any_call() -> None:
    calls, judge = counting()
    with pytest.raises(ConfigError, match="rounds must be at most 100; got 101"):
        evaluate_pairs(judge, ITEMS, rounds=101, balanced=False)
    assert calls == []


def test_the_plan_limit_is_one_million_calls() -> None:
    _, fn = counting()
    assert _settings.MAX_PLANNED_CALLS == 1_000_000
    _settings.check_plan(500_000, 2, fn)  # exactly at the limit: planned
    with pytest.raises(ConfigError, match=r"1,000,002 judge calls \(500,001 items x rounds=2\)"):
        _settings.check_plan(500_001, 2, fn)
    panel = Jury([JuryMember(f"m{k}", CallableJudge(fn)) for k in range(3)])
    with pytest.raises(ConfigError) as refused:
        _settings.check_plan(200_000, 2, panel)
    text = str(refused.value)
    assert "would plan 1,200,000 judge calls (200,000 items x rounds=2 x 3 judges)" in text
    assert "set max_calls=N to run it" in text
    assert refused.value.params == ("rounds", "max_calls")
    budget = RunOptions(max_calls=5)  # a budget says the size is meant
    _settings.check_plan(500_001, 2, CallableJudge(fn, options=budget))


def test_a_million_and_two_calls_are_refused_at_once_with_their_count() -> None:
    calls, fn = counting()
    many = [("q", "a longer answer", "short")] * 500_001  # one tuple, listed: cheap
    started = time.monotonic()
    with pytest.raises(ConfigError, match=r"would plan 1,000,002 judge calls \(500,001 items"):
        evaluate(fn, many, EvalSettings())
    assert calls == []
    assert time.monotonic() - started < 5  # refused before a call was built, not after


def test_a_plan_past_the_limit_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_settings, "MAX_PLANNED_CALLS", 11)
    calls, fn = counting()
    with pytest.raises(ConfigError, match=r"would plan 12 judge calls \(6 items x rounds=2\)"):
        evaluate(fn, ITEMS, EvalSettings(n_resamples=50))
    assert calls == []
    # With a max_calls budget the same plan runs: the budget says it is meant.
    judge = CallableJudge(fn, options=RunOptions(max_calls=100, progress="quiet"))
    result = evaluate(judge, ITEMS, EvalSettings(n_resamples=50))
    assert len(calls) == 12
    assert result.win_rate is not None


def test_a_panel_counts_every_member_s_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_settings, "MAX_PLANNED_CALLS", 20)  # 12 calls a member, 24 in all
    calls, fn = counting()
    members = [JuryMember(f"m{k}", CallableJudge(fn)) for k in range(2)]
    with pytest.raises(ConfigError, match=r"would plan 24 judge calls \(6 items x rounds=2 x 2"):
        evaluate_jury(Jury(members), ITEMS, EvalSettings(n_resamples=50))
    assert calls == []
    budget = RunOptions(max_calls=100, progress="quiet")
    members = [JuryMember(f"m{k}", CallableJudge(fn, options=budget)) for k in range(2)]
    result = evaluate_jury(Jury(members), ITEMS, EvalSettings(n_resamples=50))
    assert len(calls) == 24
    assert len(result.members) == 2


def test_a_panel_read_back_from_its_file_is_not_planned(monkeypatch: pytest.MonkeyPatch) -> None:
    # `fairjudge report` of a jury file replays every member: no call, so neither limit
    # binds (a file an earlier version wrote with 102 rounds is summarised again).
    monkeypatch.setattr(_settings, "MAX_PLANNED_CALLS", 5)
    members = [JuryMember(f"m{k}", ReplayJudge({})) for k in range(2)]
    result = evaluate_jury(Jury(members), ITEMS, EvalSettings(rounds=102, n_resamples=50))
    assert len(result.members) == 2
    assert result.judgments[0].outcome is None  # nothing recorded: unresolved, not refused
