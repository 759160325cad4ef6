"""The seed protocol (seeds/000), exactly: worked examples verbatim, then properties."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairjudge import (
    Call,
    Order,
    Outcome,
    Reply,
    Verdict,
    debiased_verdict,
    position_consistency,
    win_rate,
)
from fairjudge._protocol import plan_orders, resolve


def always_a(question: str, answer_a: str, answer_b: str) -> str:
    return "A"


def longer(question: str, answer_a: str, answer_b: str) -> str:
    # The seed's length-preferring judge: equal lengths say "A".
    return "B" if len(answer_b) > len(answer_a) else "A"


class Recorder:
    """Wraps a judge and records every call, to check the exact call sequence."""

    def __init__(self, judge: Callable[[str, str, str], str]) -> None:
        self.judge = judge
        self.calls: list[tuple[str, str, str]] = []

    def __call__(self, q: str, a: str, b: str) -> str:
        self.calls.append((q, a, b))
        return self.judge(q, a, b)


SEED_ITEMS = [("q", "long answer", "short"), ("q", "s", "longer one"), ("q", "same", "same")]


# --- the seed's worked examples -------------------------------------------------------


def test_seed_always_a_judge_is_a_tie() -> None:
    assert debiased_verdict(always_a, "q", "x", "y") == "tie"


def test_seed_longer_judge_prefers_longer_in_both_positions() -> None:
    assert debiased_verdict(longer, "q", "long answer", "short") == "1"
    assert debiased_verdict(longer, "q", "s", "longer one") == "2"


def test_seed_three_item_example() -> None:
    assert [debiased_verdict(longer, *it) for it in SEED_ITEMS] == ["1", "2", "tie"]
    assert win_rate(longer, SEED_ITEMS) == pytest.approx(0.5)
    assert position_consistency(longer, SEED_ITEMS) == pytest.approx(2 / 3)


def test_seed_always_a_win_rate_and_consistency() -> None:
    assert position_consistency(always_a, SEED_ITEMS) == 0.0
    assert win_rate(always_a, SEED_ITEMS) == 0.5


# --- exact call sequence and input handling ---------------------------------------------


def test_debiased_verdict_calls_exactly_twice_in_order() -> None:
    rec = Recorder(longer)
    debiased_verdict(rec, "Q", "one", "two")
    assert rec.calls == [("Q", "one", "two"), ("Q", "two", "one")]


@pytest.mark.parametrize("fn", [win_rate, position_consistency])
def test_rates_call_twice_per_item_and_accept_generators(fn: Callable[..., float]) -> None:
    rec = Recorder(longer)
    fn(rec, (it for it in SEED_ITEMS))
    assert len(rec.calls) == 2 * len(SEED_ITEMS)
    assert rec.calls[0] == ("q", "long answer", "short")
    assert rec.calls[1] == ("q", "short", "long answer")


@pytest.mark.parametrize("fn", [win_rate, position_consistency])
def test_empty_items_raise(fn: Callable[..., float]) -> None:
    with pytest.raises(ValueError, match="empty"):
        fn(longer, [])
    with pytest.raises(ValueError, match="empty"):
        fn(longer, iter(()))


@pytest.mark.parametrize("reply", [" a ", "B\n", "TIE", "Tie", "tie"])
def test_whitespace_and_case_are_normalised(reply: str) -> None:
    assert debiased_verdict(lambda q, a, b: reply, "q", "x", "y") in {"1", "2", "tie"}


@pytest.mark.parametrize("reply", ["C", "", "A.", "[[A]]", None, 1, "AB"])
def test_other_replies_raise_naming_the_value(reply: object) -> None:
    with pytest.raises(ValueError, match=repr(reply).replace("[", r"\[").replace(".", r"\.")):
        debiased_verdict(lambda q, a, b: reply, "q", "x", "y")  # type: ignore[arg-type,return-value]


def test_malformed_item_raises() -> None:
    with pytest.raises(ValueError, match=r"items\[0\]"):
        win_rate(longer, [("q", "only one answer")])


def test_tie_then_preference_is_a_tie_under_the_seed_rule() -> None:
    replies = iter(["tie", "B"])  # second call's B means ans1 after translation
    assert debiased_verdict(lambda q, a, b: next(replies), "q", "x", "y") == "tie"


def test_opposite_raw_labels_agree_after_translation() -> None:
    replies = iter(["B", "A"])  # both prefer ans2
    assert debiased_verdict(lambda q, a, b: next(replies), "q", "x", "y") == "2"


# --- properties ------------------------------------------------------------------------

texts = st.text(min_size=0, max_size=12)
triples = st.tuples(texts, texts, texts)


def content_judge(q: str, a: str, b: str) -> str:
    """Ignores position: prefers the lexicographically larger answer."""
    return "A" if a > b else "B" if b > a else "tie"


@given(triples)
def test_position_blind_judge_mirrors_under_swap(item: tuple[str, str, str]) -> None:
    q, a1, a2 = item
    mirror = {"1": "2", "2": "1", "tie": "tie"}
    assert (
        debiased_verdict(content_judge, q, a2, a1)
        == mirror[debiased_verdict(content_judge, q, a1, a2)]
    )


judges = st.sampled_from([always_a, longer, content_judge, lambda q, a, b: "tie"])


@given(judges, st.lists(triples, min_size=1, max_size=8))
def test_win_rate_of_swapped_items_complements(
    judge: Callable[[str, str, str], str], items: list[tuple[str, str, str]]
) -> None:
    swapped = [(q, a2, a1) for q, a1, a2 in items]
    assert win_rate(judge, items) + win_rate(judge, swapped) == pytest.approx(1.0)


@given(st.lists(st.sampled_from(["A", "B", "tie"]), min_size=2, max_size=40))
def test_rates_in_unit_interval_and_exact_call_counts(script: list[str]) -> None:
    n_items = len(script) // 2
    if n_items == 0:
        return
    replies = iter(script)
    rec = Recorder(lambda q, a, b: next(replies))
    items = [("q", f"a{i}", f"b{i}") for i in range(n_items)]
    rate = win_rate(rec, items)
    assert 0.0 <= rate <= 1.0
    assert len(rec.calls) == 2 * n_items
    replies = iter(script)
    assert 0.0 <= position_consistency(rec, items) <= 1.0


# --- the pieces the richer layer shares ------------------------------------------------


def _call(order: Order, verdict: Verdict | None) -> Call:
    if verdict is None:
        from fairjudge import ParseFailure

        return Call(order, 0, Reply(verdict=None, raw="??", failure=ParseFailure("??", "x")))
    return Call(order, 0, Reply(verdict=verdict, raw=verdict.value))


@given(st.sampled_from(list(Verdict)), st.sampled_from(list(Verdict)))
def test_resolve_conservative_equals_seed(v1: Verdict, v2: Verdict) -> None:
    replies = iter([v1.value, v2.value])
    seed = debiased_verdict(lambda q, a, b: next(replies), "q", "x", "y")
    resolved = resolve([_call(Order.ORIGINAL, v1), _call(Order.SWAPPED, v2)], "conservative")
    assert resolved is not None
    assert resolved[0].value == seed


def test_resolve_lenient_counts_preference_plus_tie() -> None:
    calls = [_call(Order.ORIGINAL, Verdict.A), _call(Order.SWAPPED, Verdict.TIE)]
    assert resolve(calls, "lenient") == (Outcome.ONE, 1.0, False)
    assert resolve(calls, "conservative") == (Outcome.TIE, 0.5, False)
    opposite = [_call(Order.ORIGINAL, Verdict.A), _call(Order.SWAPPED, Verdict.A)]
    assert resolve(opposite, "lenient") == (Outcome.TIE, 0.5, False)


def test_resolve_soft_averages_probabilities() -> None:
    from fairjudge import Probabilities

    calls = [
        Call(Order.ORIGINAL, 0, Reply(Verdict.A, Probabilities(0.9, 0.1, 0.0))),
        Call(Order.SWAPPED, 0, Reply(Verdict.A, Probabilities(0.6, 0.2, 0.2))),
    ]
    # original: P(1 better)=0.9; swapped: P(1)=P(B)=0.2 plus half the tie 0.1 -> 0.3
    outcome, score, consistent = resolve(calls, "soft") or (None, None, None)
    assert score == pytest.approx((0.9 + 0.3) / 2)
    assert outcome is Outcome.ONE
    assert consistent is False


def test_resolve_never_guesses_a_failure() -> None:
    calls = [_call(Order.ORIGINAL, Verdict.A), _call(Order.SWAPPED, None)]
    for rule in ("conservative", "lenient", "soft"):
        assert resolve(calls, rule) is None


def test_plan_orders() -> None:
    assert plan_orders(2) == ((Order.ORIGINAL, 0), (Order.SWAPPED, 0))
    assert plan_orders(1) == ((Order.ORIGINAL, 0),)
    plan = plan_orders(6, balanced=True, seed=7)
    assert [o for o, _ in plan].count(Order.ORIGINAL) == 3
    assert sorted(s for o, s in plan if o is Order.SWAPPED) == [0, 1, 2]
    assert plan_orders(6, balanced=True, seed=7) == plan
    assert len(plan_orders(5, balanced=False, seed=1)) == 5
    with pytest.raises(ValueError, match="even"):
        plan_orders(3, balanced=True, seed=1)
    with pytest.raises(ValueError, match="seed"):
        plan_orders(4)
    with pytest.raises(ValueError, match="rounds"):
        plan_orders(0)
