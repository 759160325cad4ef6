"""The core protocol: the seed's exact debiased verdict, and the pure pieces it is built from.

This module is pure: no I/O, no asyncio, no clocks. Everything richer in fairjudge
(LLM backends, the async runner, the store) plans calls with :func:`plan_orders`,
gets one reply per planned call, and resolves them with :func:`resolve`. The seed
functions below use the same pieces, so the two paths cannot drift apart.

The seed contract (``seeds/000``):

- A judge is any callable ``judge(question, answer_a, answer_b)`` returning
  ``"A"``, ``"B"`` or ``"tie"`` (whitespace and case are normalised; anything else
  raises :class:`ValueError` naming the value).
- :func:`debiased_verdict` calls it exactly twice, ``(q, ans1, ans2)`` then
  ``(q, ans2, ans1)``, translates the second reply back, and returns ``"1"`` if both
  prefer ans1, ``"2"`` if both prefer ans2, and ``"tie"`` otherwise.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from fairjudge._items import Call
from fairjudge._types import OUTCOME_SCORE, Order, Outcome, Resolution, Verdict, translate

__all__ = [
    "SeedJudge",
    "debiased_verdict",
    "item_seed",
    "normalize_verdict",
    "plan_orders",
    "position_consistency",
    "resolve",
    "win_rate",
]

SeedJudge = Callable[[str, str, str], str]
"""The seed's judge type: ``judge(question, answer_a, answer_b) -> "A" | "B" | "tie"``."""

_LABELS = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE}


def normalize_verdict(reply: object) -> Verdict:
    """Read a seed judge's reply strictly.

    Surrounding whitespace and letter case are forgiven; nothing else is. Richer
    replies (``[[A]]``, ``Verdict: B``) are the job of :mod:`fairjudge.prompts`.

    Raises:
        ValueError: The reply is not ``"A"``, ``"B"`` or ``"tie"``; the message
            names the offending value.
    """
    if isinstance(reply, Verdict):
        return reply
    if isinstance(reply, str):
        verdict = _LABELS.get(reply.strip().lower())
        if verdict is not None:
            return verdict
    raise ValueError(f"judge returned {reply!r}; expected 'A', 'B' or 'tie'")


def _seed_outcome(first: Outcome, second: Outcome) -> Outcome:
    return first if first == second and first is not Outcome.TIE else Outcome.TIE


def _two_calls(judge: SeedJudge, question: str, ans1: str, ans2: str) -> tuple[Outcome, Outcome]:
    first = translate(normalize_verdict(judge(question, ans1, ans2)), Order.ORIGINAL)
    second = translate(normalize_verdict(judge(question, ans2, ans1)), Order.SWAPPED)
    return first, second


def debiased_verdict(judge: SeedJudge, question: str, ans1: str, ans2: str) -> str:
    """Ask the judge in both orders and keep only a verdict that survives the swap.

    Calls ``judge`` exactly twice: ``(question, ans1, ans2)`` then
    ``(question, ans2, ans1)``.

    Returns:
        ``"1"`` if both calls prefer ``ans1``, ``"2"`` if both prefer ``ans2``, and
        ``"tie"`` otherwise (they disagree, or either says tie).

    Raises:
        ValueError: The judge replied something other than A, B or tie.

    Example:
        >>> always_a = lambda q, a, b: "A"
        >>> debiased_verdict(always_a, "q", "x", "y")
        'tie'
    """
    first, second = _two_calls(judge, question, ans1, ans2)
    return _seed_outcome(first, second).value


def _unpack(item: Sequence[str], index: int) -> tuple[str, str, str]:
    if isinstance(item, str) or len(item) != 3:
        raise ValueError(f"items[{index}] must be a (question, ans1, ans2) triple; got {item!r}")
    question, ans1, ans2 = item
    return question, ans1, ans2


def _outcomes(judge: SeedJudge, items: Iterable[Sequence[str]]) -> list[tuple[Outcome, Outcome]]:
    pairs = [_two_calls(judge, *_unpack(item, i)) for i, item in enumerate(items)]
    if not pairs:
        raise ValueError("items is empty; need at least one (question, ans1, ans2)")
    return pairs


def win_rate(judge: SeedJudge, items: Iterable[Sequence[str]]) -> float:
    """Model 1's score over the items: a win counts 1, a tie ½, a loss 0, averaged.

    Each item is resolved with :func:`debiased_verdict` (two calls per item).
    ``items`` may be any iterable of ``(question, ans1, ans2)``, a generator too.

    Raises:
        ValueError: ``items`` is empty or malformed, or the judge misbehaved.
    """
    pairs = _outcomes(judge, items)
    return sum(OUTCOME_SCORE[_seed_outcome(a, b)] for a, b in pairs) / len(pairs)


def position_consistency(judge: SeedJudge, items: Iterable[Sequence[str]]) -> float:
    """The fraction of items whose two calls agree after translation.

    Agreement means both calls prefer the same answer, or both say tie. A perfectly
    position-biased judge scores 0 (Zheng et al., 2023).

    Raises:
        ValueError: ``items`` is empty or malformed, or the judge misbehaved.
    """
    pairs = _outcomes(judge, items)
    return sum(a == b for a, b in pairs) / len(pairs)


# --------------------------------------------------------------------------------------
# Pieces for the richer layer: planning orders and resolving k calls.
# --------------------------------------------------------------------------------------


def item_seed(run_seed: int, *parts: str) -> int:
    """A 64-bit seed derived from the run seed and the item's content.

    Hashing the content (not the item's position in the file) keeps an item's
    randomised orders stable when the file is reordered or filtered.
    """
    h = hashlib.sha256(str(run_seed).encode())
    for part in parts:
        h.update(b"\x1f")
        h.update(part.encode("utf-8", "surrogatepass"))
    return int.from_bytes(h.digest()[:8], "big")


def plan_orders(
    rounds: int = 2,
    *,
    balanced: bool = True,
    seed: int | None = None,
) -> tuple[tuple[Order, int], ...]:
    """Plan the calls on one item: the order of each and its sample index.

    - ``rounds=1``: one call in the original order (the naive, biased baseline).
    - ``rounds=2, balanced=True`` (the default): the seed protocol, original then
      swapped. No randomness is involved.
    - ``rounds=k, balanced=True``: exactly k/2 calls in each order, in a seeded
      random sequence (balanced position calibration). ``k`` must be even.
    - ``rounds=k, balanced=False``: each call's order is a seeded coin flip, as in
      seed 003's ``pairwise_with_randomization``.

    The sample index counts earlier calls in the same order, so repeated calls in
    one order are distinct requests (and distinct cache entries).

    Args:
        rounds: Number of calls on the item, at least 1.
        balanced: Whether each order gets exactly half the calls.
        seed: Seed for the random sequence; needed when randomness is involved.
            Derive it per item with :func:`item_seed`.

    Raises:
        ValueError: ``rounds`` < 1, or odd with ``balanced`` and > 1, or a random plan
            without a ``seed``.
    """
    if not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be an integer >= 1; got {rounds!r}")
    if rounds == 1:
        orders: list[Order] = [Order.ORIGINAL]
    elif rounds == 2 and balanced:
        orders = [Order.ORIGINAL, Order.SWAPPED]
    else:
        if seed is None:
            raise ValueError(f"rounds={rounds} randomises the order, so a seed is required")
        rng = random.Random(seed)
        if balanced:
            if rounds % 2:
                raise ValueError(f"balanced rounds must be even; got rounds={rounds}")
            orders = [Order.ORIGINAL, Order.SWAPPED] * (rounds // 2)
            rng.shuffle(orders)
        else:
            orders = [
                Order.ORIGINAL if rng.random() < 0.5 else Order.SWAPPED for _ in range(rounds)
            ]
    seen = {Order.ORIGINAL: 0, Order.SWAPPED: 0}
    plan = []
    for order in orders:
        plan.append((order, seen[order]))
        seen[order] += 1
    return tuple(plan)


Resolved = tuple[Outcome, float, bool]


def resolve(
    calls: Sequence[Call], rule: Resolution | Literal["conservative", "lenient", "soft"]
) -> Resolved | None:
    """Resolve the calls on one item into (outcome, model 1's score, consistent).

    Returns ``None`` when any call failed: a failure is reported, never guessed.
    ``consistent`` is True when every call preferred the same model, or all said tie.

    With two calls in opposite orders and the ``conservative`` rule this is exactly
    :func:`debiased_verdict`.

    Raises:
        ValueError: ``calls`` is empty or ``rule`` is unknown.
    """
    rule = Resolution(rule)
    if not calls:
        raise ValueError("calls is empty; an item needs at least one call")
    preferred = [c.preferred for c in calls]
    if any(p is None for p in preferred):
        return None
    prefs = [p for p in preferred if p is not None]
    consistent = len(set(prefs)) == 1
    if rule is Resolution.CONSERVATIVE:
        outcome = prefs[0] if consistent else Outcome.TIE
        return outcome, OUTCOME_SCORE[outcome], consistent
    if rule is Resolution.LENIENT:
        ones, twos = prefs.count(Outcome.ONE), prefs.count(Outcome.TWO)
        outcome = Outcome.ONE if ones > twos else Outcome.TWO if twos > ones else Outcome.TIE
        return outcome, OUTCOME_SCORE[outcome], consistent
    p_ones = [c.p_one for c in calls]
    score = sum(p for p in p_ones if p is not None) / len(p_ones)
    outcome = Outcome.ONE if score > 0.5 else Outcome.TWO if score < 0.5 else Outcome.TIE
    return outcome, score, consistent
