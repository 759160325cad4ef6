from __future__ import annotations

import pytest

from fairjudge import Item, Outcome, Probabilities, Verdict, evaluate_pairs, win_rate
from fairjudge.judges import PairwiseRequest


def longer(q: str, a: str, b: str) -> str:
    return "B" if len(b) > len(a) else "A"


def always_a(q: str, a: str, b: str) -> str:
    return "A"


ITEMS = [("q1", "long answer", "short"), ("q2", "s", "longer one"), ("q3", "same", "same")]


def test_defaults_match_the_seed() -> None:
    r = evaluate_pairs(longer, ITEMS)
    assert r.win_rate is not None
    assert r.win_rate.estimate == win_rate(longer, ITEMS) == 0.5
    assert (r.win_rate.wins, r.win_rate.ties, r.win_rate.losses) == (1, 1, 1)
    assert r.position_consistency is not None
    assert r.position_consistency.estimate == pytest.approx(2 / 3)
    assert r.n_inconsistent == 1
    assert [j.outcome for j in r.judgments] == [Outcome.ONE, Outcome.TWO, Outcome.TIE]
    j = r.judgments[0]
    assert j.raw_replies == ("A", "B")
    assert j.verdicts == (Verdict.A, Verdict.B)
    assert j.consistent is True


def test_position_biased_judge_is_exposed() -> None:
    r = evaluate_pairs(always_a, ITEMS)
    assert r.win_rate is not None
    assert r.win_rate.estimate == 0.5
    assert r.single_order is not None
    assert r.single_order.estimate == 1.0
    assert r.first_position_calls is not None
    assert r.first_position_calls.estimate == 1.0
    assert r.position_consistency is not None
    assert r.position_consistency.estimate == 0.0


def test_parse_failures_never_count() -> None:
    replies = iter(["A", "nonsense", "A", "B", "B", "A"])
    r = evaluate_pairs(lambda q, a, b: next(replies), ITEMS)
    assert r.n_parse_failures == 1
    assert r.n_unresolved == 1
    assert r.win_rate is not None
    assert r.win_rate.n == 2
    assert r.judgments[0].outcome is None
    assert r.judgments[0].score is None


def test_judge_exceptions_become_call_errors() -> None:
    def flaky(q: str, a: str, b: str) -> str:
        if q == "q2":
            raise RuntimeError("boom")
        return "A"

    r = evaluate_pairs(flaky, ITEMS)
    assert r.n_call_errors == 2
    assert r.n_unresolved == 1
    assert r.judgments[1].to_dict()["calls"][0]["failure"]["message"] == "boom"


def test_soft_uses_probabilities() -> None:
    def prob_judge(q: str, a: str, b: str) -> Probabilities:
        # Mildly prefers position A, strongly prefers the longer answer.
        base = 0.85 if len(a) > len(b) else 0.25
        return Probabilities(base * 0.9, (1 - base) * 0.9, 0.1)

    r = evaluate_pairs(prob_judge, ITEMS[:2], rule="soft")
    assert r.win_rate is not None
    scores = [j.score for j in r.judgments]
    assert scores[0] is not None
    assert scores[0] > 0.5
    assert scores[1] is not None
    assert scores[1] < 0.5
    # Not a label judge: the score is fractional, not 0/0.5/1.
    assert scores[0] not in (0.0, 0.5, 1.0)


def test_rounds_balanced_is_reproducible_and_balanced() -> None:
    calls: list[tuple[str, str]] = []

    def rec(q: str, a: str, b: str) -> str:
        calls.append((a, b))
        return longer(q, a, b)

    r1 = evaluate_pairs(rec, ITEMS, rounds=4, seed=3)
    first = list(calls)
    calls.clear()
    r2 = evaluate_pairs(rec, ITEMS, rounds=4, seed=3)
    assert calls == first
    assert len(calls) == 12
    for j in r1.judgments:
        orders = [c.order.value for c in j.calls]
        assert orders.count("original") == orders.count("swapped") == 2
    assert r1.to_dict() == r2.to_dict()


def test_item_order_seed_depends_on_content_not_position() -> None:
    r1 = evaluate_pairs(longer, ITEMS, rounds=4, seed=9)
    r2 = evaluate_pairs(longer, list(reversed(ITEMS)), rounds=4, seed=9)
    orders1 = {j.item.question: [c.order for c in j.calls] for j in r1.judgments}
    orders2 = {j.item.question: [c.order for c in j.calls] for j in r2.judgments}
    assert orders1 == orders2


def test_ci_is_seeded_and_clustered() -> None:
    # The outcome is the same within each question: strongly correlated clusters.
    items = [Item(f"q{i % 5}", "x" * (i % 5 + 1), "yyy", id=str(i)) for i in range(40)]
    a = evaluate_pairs(longer, items, seed=1)
    b = evaluate_pairs(longer, items, seed=1)
    assert a.win_rate is not None
    assert b.win_rate is not None
    assert a.win_rate.ci == b.win_rate.ci
    assert a.win_rate.ci.low <= a.win_rate.estimate <= a.win_rate.ci.high
    # Items share 5 questions: clustering widens the interval versus independent items.
    solo = [Item(it.question, it.answer_1, it.answer_2, id=it.id, cluster=it.id) for it in items]
    c = evaluate_pairs(longer, solo, seed=1)
    assert c.win_rate is not None
    width = a.win_rate.ci.high - a.win_rate.ci.low
    assert width >= c.win_rate.ci.high - c.win_rate.ci.low


def test_batch_judges_receive_planned_requests() -> None:
    class Batch:
        def __init__(self) -> None:
            self.seen: list[PairwiseRequest] = []

        def judge_batch(self, requests, progress=None):  # type: ignore[no-untyped-def]
            from fairjudge.judges._callable import reply_from_value

            self.seen.extend(requests)
            return [reply_from_value("A") for _ in requests]

    judge = Batch()
    evaluate_pairs(judge, [Item("q", "one", "two", reference="ref")])
    assert [(r.answer_a, r.answer_b, r.reference) for r in judge.seen] == [
        ("one", "two", "ref"),
        ("two", "one", "ref"),
    ]


def test_empty_and_bad_arguments() -> None:
    with pytest.raises(ValueError, match="empty"):
        evaluate_pairs(longer, [])
    with pytest.raises(ValueError, match="level"):
        evaluate_pairs(longer, ITEMS, level=1.5)
    with pytest.raises(ValueError, match=r"conservative|rule|'nope'"):
        evaluate_pairs(longer, ITEMS, rule="nope")  # type: ignore[arg-type]


def test_with_rule_reresolves_without_calling_again() -> None:
    calls: list[int] = []

    def judge(q: str, a: str, b: str) -> Probabilities:
        calls.append(1)
        return Probabilities(0.6, 0.3, 0.1) if len(a) > len(b) else Probabilities(0.5, 0.4, 0.1)

    r = evaluate_pairs(judge, ITEMS[:2], seed=4)
    n = len(calls)
    soft = r.with_rule("soft")
    assert len(calls) == n
    assert r.has_probabilities
    assert soft.settings.rule == "soft"
    assert soft.settings.seed == 4
    # Labels always say A: conservatively all ties; softly the longer answer leads.
    assert r.win_rate is not None
    assert r.win_rate.ties == 2
    assert soft.judgments[0].score is not None
    assert soft.judgments[0].score > 0.5
    assert soft.judgments[1].score is not None
    assert soft.judgments[1].score < 0.5
