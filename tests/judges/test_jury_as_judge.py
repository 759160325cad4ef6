"""A jury used where a judge is: per-call aggregation, failures, weights, calibration."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fairjudge import (
    CallError,
    ConfigError,
    Item,
    Outcome,
    ParseFailure,
    Probabilities,
    Reply,
    Verdict,
    evaluate_pairs,
)
from fairjudge.audit import calibration_report
from fairjudge.judges import BatchJudge, CallableJudge, Jury, JuryMember, PairwiseRequest
from fairjudge.judges._jury import PANEL_FAILED, panel_reply

SHORT, LONG = "short", "a much longer answer"
ITEMS = [Item(f"q{i}", SHORT, LONG, id=str(i), human=Outcome.TWO) for i in range(4)]

Judge = Callable[[str, str, str], object]


def longer(q: str, a: str, b: str) -> str:
    return "B" if len(b) > len(a) else "A"


def shorter(q: str, a: str, b: str) -> str:
    return "A" if len(b) > len(a) else "B"


def always_a(q: str, a: str, b: str) -> str:
    return "A"


def panel(*judges: tuple[str, Judge, float]) -> Jury:
    return Jury([JuryMember(n, CallableJudge(j), w) for n, j, w in judges])


def test_a_jury_is_a_batch_judge_whose_calls_are_majorities() -> None:
    jury = panel(("l1", longer, 1), ("l2", longer, 1), ("s", shorter, 1))
    assert isinstance(jury, BatchJudge)
    requests = [PairwiseRequest("q", SHORT, LONG), PairwiseRequest("q", LONG, SHORT)]
    replies = jury.judge_batch(requests)
    assert [r.verdict for r in replies] == [Verdict.B, Verdict.A]
    assert replies[0].payload == {"members": {"l1": "B", "l2": "B", "s": "A"}}
    assert len(jury.last_members) == 3  # every member's replies are kept
    assert jury.last_members[2][0].verdict is Verdict.A
    result = evaluate_pairs(jury, ITEMS, n_resamples=100)
    # per call: longer holds 2 of 3, so the panel picks the longer answer in both orders.
    assert [j.outcome for j in result.judgments] == [Outcome.TWO] * 4
    assert result.position_consistency is not None
    assert result.position_consistency.estimate == 1.0


def test_the_swap_protocol_debiases_the_panels_per_call_verdicts() -> None:
    # Per call, always_a sides with whichever of longer and shorter picks position A,
    # so the panel says "A" in both orders: position-biased, and the seed rule
    # turns the inconsistent pair into a tie.
    jury = panel(("a", always_a, 1), ("l", longer, 1), ("s", shorter, 1))
    replies = jury.judge_batch(
        [PairwiseRequest("q", LONG, SHORT), PairwiseRequest("q", SHORT, LONG)]
    )
    assert [r.verdict for r in replies] == [Verdict.A, Verdict.A]
    result = evaluate_pairs(jury, ITEMS, n_resamples=100)
    assert [j.outcome for j in result.judgments] == [Outcome.TIE] * 4
    assert result.position_consistency is not None
    assert result.position_consistency.estimate == 0.0


def test_weights_change_the_per_call_majority() -> None:
    jury = panel(("l1", longer, 1), ("l2", longer, 1), ("s", shorter, 2.5))
    result = evaluate_pairs(jury, ITEMS, n_resamples=100)
    assert [j.outcome for j in result.judgments] == [Outcome.ONE] * 4  # the shorter answer
    even = panel(("l", longer, 2), ("s", shorter, 2))
    assert [r.verdict for r in even.judge_batch([PairwiseRequest("q", SHORT, LONG)])] == [
        Verdict.TIE
    ]


def test_probabilities_are_the_weighted_mean() -> None:
    probs = [
        Reply(Verdict.A, Probabilities(0.8, 0.2)),
        Reply(Verdict.B, Probabilities(0.2, 0.6, 0.2)),
        Reply(Verdict.B, Probabilities(0.0, 1.0)),
    ]
    reply = panel_reply(probs, ["x", "y", "z"], [2, 1, 1])
    assert reply.verdict is Verdict.TIE  # A holds 2 of 4: no strict majority
    assert reply.probabilities is not None
    # normalised: x (0.8, 0.2, 0), y (0.2, 0.6, 0.2), z (0, 1, 0).
    assert reply.probabilities.a == pytest.approx((2 * 0.8 + 0.2) / 4)
    assert reply.probabilities.b == pytest.approx((2 * 0.2 + 0.6 + 1) / 4)
    assert reply.probabilities.tie == pytest.approx(0.2 / 4)
    assert (
        panel_reply([Reply(Verdict.A), Reply(Verdict.A)], ["x", "y"], [1, 1]).probabilities is None
    )
    # A label is no probability: one member without them leaves the panel's call
    # without them (tests/judges/test_jury_mixed_probabilities.py).
    assert (
        panel_reply([*probs[:2], Reply(Verdict.B)], ["x", "y", "z"], [2, 1, 1]).probabilities
        is None
    )


def test_soft_resolution_reads_the_panels_mean_probabilities() -> None:
    def sure(p: float) -> Judge:
        return lambda q, a, b: {"A": p, "B": 1 - p} if a == SHORT else {"A": 1 - p, "B": p}

    jury = panel(("x", sure(0.9), 1), ("y", sure(0.3), 1))
    result = evaluate_pairs(jury, ITEMS[:1], rule="soft", n_resamples=50)
    assert result.judgments[0].score == pytest.approx(0.6)


BAD = Reply(verdict=None, raw="??", failure=ParseFailure("??", "no verdict"))
DOWN = Reply(verdict=None, failure=CallError("ServerError", "500 after 3 attempts"))


def test_a_minority_that_fails_does_not_vote() -> None:
    reply = panel_reply([Reply(Verdict.A), Reply(Verdict.B), BAD], ["x", "y", "z"], [2, 1, 1])
    assert reply.verdict is Verdict.A  # x holds 2 of the 3 that answered
    assert reply.payload == {"members": {"x": "A", "y": "B", "z": None}}


def test_a_panel_call_fails_when_half_the_weight_failed_and_names_the_members() -> None:
    reply = panel_reply([Reply(Verdict.A), BAD, DOWN], ["x", "y", "z"], [1, 1, 1])
    assert isinstance(reply.failure, CallError)
    assert reply.failure.kind == PANEL_FAILED
    assert "y (parse failure: no verdict)" in reply.failure.message
    assert "z (ServerError: 500 after 3 attempts)" in reply.failure.message
    parse = panel_reply([Reply(Verdict.A), BAD], ["x", "y"], [1, 1])
    assert isinstance(parse.failure, ParseFailure)  # half is not a majority
    assert "y (parse failure" in parse.failure.reason
    same = panel_reply([DOWN, DOWN, Reply(Verdict.A)], ["x", "y", "z"], [1, 1, 1])
    assert isinstance(same.failure, CallError)
    assert same.failure.kind == "ServerError"
    not_run = Reply(verdict=None, failure=CallError("NotRun", "the call was not made"))
    budget = panel_reply([not_run, DOWN, Reply(Verdict.A)], ["x", "y", "z"], [1, 1, 1])
    assert isinstance(budget.failure, CallError)
    assert budget.failure.kind == "NotRun"


def test_failed_panel_calls_leave_items_unresolved_never_tied() -> None:
    def flaky(q: str, a: str, b: str) -> str:
        if q == "q0":
            raise RuntimeError("down")
        return longer(q, a, b)

    jury = panel(("f1", flaky, 1), ("f2", flaky, 1), ("l", longer, 1))
    result = evaluate_pairs(jury, ITEMS, n_resamples=50)
    assert result.judgments[0].outcome is None
    assert [j.outcome for j in result.judgments[1:]] == [Outcome.TWO] * 3
    assert result.n_call_errors == 2


def test_calibration_runs_on_a_jury() -> None:
    jury = panel(("l1", longer, 1), ("l2", longer, 1), ("s", shorter, 1))
    result = evaluate_pairs(jury, ITEMS, n_resamples=100)
    report = calibration_report(result)
    assert report["agreement"].s1.estimate == 1.0


def test_rounds_beyond_two_are_refused_for_a_member_at_temperature_zero() -> None:
    class Greedy(CallableJudge):
        temperature = 0.0

    jury = Jury([JuryMember("g", Greedy(longer)), JuryMember("l", CallableJudge(longer))])
    assert jury.temperature == 0.0
    with pytest.raises(ConfigError, match="rounds=4"):
        evaluate_pairs(jury, ITEMS, rounds=4)


def test_progress_counts_panel_calls() -> None:
    jury = panel(("l1", longer, 1), ("l2", longer, 1), ("s", shorter, 1))
    seen: list[int] = []
    evaluate_pairs(jury, ITEMS, n_resamples=50, progress=seen.append)
    assert sum(seen) == 2 * len(ITEMS)
