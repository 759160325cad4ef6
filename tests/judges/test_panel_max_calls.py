"""How many calls a judge may make at most: one rule, the panel's, read by the run's plan.

``Panel.max_calls`` is the panel's budget (what its Python members share out as they
answer, and what the budget's stop line names); ``evaluation``'s ``max_calls_of`` asks
a panel for it rather than working it out a second way, and reads one judge's from its
session or its own run options.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from fairjudge import ConfigError
from fairjudge.evaluation import _settings
from fairjudge.judges import CallableJudge, Jury, JuryMember, ReplayJudge
from fairjudge.judges._pairwise import LLMJudge
from fairjudge.runner import RunOptions
from tests.runner._fakes import FakeBackend


def longer(question: str, answer_a: str, answer_b: str) -> str:
    return "A" if len(answer_a) >= len(answer_b) else "B"


def model(max_calls: int | None) -> LLMJudge:
    return LLMJudge(FakeBackend(), store=":memory:", options=RunOptions(max_calls=max_calls))


def panel(judges: Sequence[object]) -> Jury:
    return Jury([JuryMember(f"m{k}", judge) for k, judge in enumerate(judges)])


def test_one_judge_runs_under_its_session_s_or_its_own_options_budget() -> None:
    assert _settings.max_calls_of(CallableJudge(longer)) is None
    assert _settings.max_calls_of(CallableJudge(longer, options=RunOptions(max_calls=5))) == 5
    judge = model(9)
    try:
        assert _settings.max_calls_of(judge) == 9  # a model judge's: its session's
        assert _settings.max_calls_of(model(None)) is None
    finally:
        judge.close()
    assert _settings.max_calls_of(ReplayJudge({})) is None


def test_a_panel_s_budget_is_its_own_and_the_plan_reads_that() -> None:
    python = panel([CallableJudge(longer), CallableJudge(longer)])
    assert python.max_calls is None
    assert _settings.max_calls_of(python) is None
    seated = Jury.seat(
        [("a", CallableJudge(longer), 1.0), ("b", CallableJudge(longer), 1.0)],
        options=RunOptions(max_calls=7),
    )
    assert seated.max_calls == 7  # handed to every Python member alike
    assert _settings.max_calls_of(seated) == 7
    on_session = panel([model(11), CallableJudge(longer)])
    try:
        assert on_session.max_calls == 11  # the model members' session's
        assert _settings.max_calls_of(on_session) == 11
    finally:
        on_session.members[0].judge.close()


def test_a_panel_whose_session_has_no_budget_is_unbudgeted_for_the_plan_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Built by hand: the model member's session has no budget, the Python member has its
    # own. The panel's budget is the session's (none), as its run reads it, so a plan
    # past the limit is refused: the model member would build every call before the
    # first is sent. (The plan's own copy of the rule took the Python member's 3.)
    monkeypatch.setattr(_settings, "MAX_PLANNED_CALLS", 20)
    mixed = panel([model(None), CallableJudge(longer, options=RunOptions(max_calls=3))])
    try:
        assert mixed.max_calls is None
        assert _settings.max_calls_of(mixed) is None
        with pytest.raises(ConfigError, match=r"would plan 24 judge calls \(6 items x rounds=2"):
            _settings.check_plan(6, 2, mixed)
    finally:
        mixed.members[0].judge.close()
