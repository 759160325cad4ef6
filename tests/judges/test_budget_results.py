"""A budget stop is a result with ``stopped`` set, at every layer; nothing is raised.

The judges here are Python functions that raise :class:`BudgetExceeded` after a few
calls, as an LLM judge called through the seed protocol does: the batch ends there,
the calls left are ``NotRun``, and every result built on the batch says it stopped.
"""

from __future__ import annotations

from typing import Any

from fairjudge import BudgetExceeded, CallError, Item, ScoreItem, evaluate_pairs
from fairjudge._types import Replies
from fairjudge.evaluation import (
    EvalSettings,
    compare_via_scores,
    evaluate_jury,
    score_answers,
    score_with_jury,
)
from fairjudge.judges import (
    CallableJudge,
    CallablePointwiseJudge,
    Jury,
    JuryMember,
    PairwiseRequest,
    PointwiseJury,
)
from fairjudge.judges._pointwise import PointwiseMember

STOP = "the budget is spent (test)"
DIMS = ("accuracy", "relevance", "usefulness")
ITEMS = [Item(f"q{i}", "short", "a longer answer", id=str(i)) for i in range(4)]


def pairwise_until(n: int) -> Any:
    """A judge that prefers the longer answer for ``n`` calls, then finds its budget spent."""
    made = 0

    def judge(question: str, answer_a: str, answer_b: str) -> str:
        nonlocal made
        if made == n:
            raise BudgetExceeded(STOP)
        made += 1
        return "A" if len(answer_a) > len(answer_b) else "B"

    return judge


def scores_until(n: int) -> Any:
    made = 0

    def judge(question: str, answer: str) -> dict[str, int]:
        nonlocal made
        if made == n:
            raise BudgetExceeded(STOP)
        made += 1
        return dict.fromkeys(DIMS, 4)

    return judge


def test_a_batch_ends_at_the_stop_with_the_rest_not_run() -> None:
    requests = [PairwiseRequest(f"q{i}", "a", "bb") for i in range(5)]
    settled: list[int] = []
    replies = CallableJudge(pairwise_until(2)).judge_batch(requests, settled.append)
    assert isinstance(replies, Replies)
    assert replies.stopped == STOP
    assert [r.ok for r in replies] == [True, True, False, False, False]
    assert all(r.failure == CallError("NotRun", "the call was not made") for r in replies[2:])
    assert sum(settled) == 5  # every request settles, as the session settles its unmade calls


def test_evaluate_pairs_returns_the_partial_result() -> None:
    result = evaluate_pairs(pairwise_until(5), ITEMS, n_resamples=50)  # 8 calls planned
    assert result.stopped == STOP
    assert result.to_dict()["partial"] is True
    assert (result.n_items, result.n_unresolved, result.n_not_run) == (4, 2, 2)
    assert result.win_rate is not None
    assert result.win_rate.estimate == 0.0  # the two finished items: answer 2 wins both


def test_a_full_run_is_not_stopped() -> None:
    assert evaluate_pairs(pairwise_until(8), ITEMS, n_resamples=50).stopped is None


def test_score_answers_and_via_scores_return_partial_results() -> None:
    items = [ScoreItem(f"q{i}", "an answer") for i in range(3)]
    result = score_answers(scores_until(2), items, n_resamples=50)
    assert result.stopped == STOP
    assert result.n_not_run == 1
    via = compare_via_scores(scores_until(5), ITEMS, n_resamples=50)  # 8 answers to score
    assert via.stopped == STOP
    assert via.to_dict()["partial"] is True


def test_a_panel_stopped_by_one_member_is_stopped_everywhere() -> None:
    jury = Jury(
        [JuryMember("full", CallableJudge(pairwise_until(100))),
         JuryMember("short", CallableJudge(pairwise_until(3)))]
    )  # fmt: skip
    result = evaluate_jury(jury, ITEMS, EvalSettings(n_resamples=50))
    assert result.stopped == STOP
    assert [m.stopped for m in result.members] == [STOP, STOP]
    assert result.members[0].n_not_run == 0  # the full member still answered every call
    assert result.members[1].n_not_run == 3  # 3 calls made: items 2, 3 and 4 not judged
    panel = evaluate_pairs(jury, ITEMS, n_resamples=50)  # the panel as one judge
    assert panel.stopped == STOP


def test_a_scoring_panel_returns_its_partial_result() -> None:
    jury = PointwiseJury(
        [PointwiseMember("full", CallablePointwiseJudge(scores_until(100))),
         PointwiseMember("short", CallablePointwiseJudge(scores_until(1)))]
    )  # fmt: skip
    items = [ScoreItem(f"q{i}", "an answer") for i in range(3)]
    result = score_with_jury(jury, items, n_resamples=50)
    assert result.stopped == STOP
    assert result.to_dict()["partial"] is True
