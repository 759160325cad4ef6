"""One pass over a set of items: plan calls, judge them, resolve, and summarise.

:func:`evaluate_pairs` is the typed layer over the seed protocol. It plans every
call with :func:`fairjudge._protocol.plan_orders`, hands the whole batch to the
judge (so an LLM judge can run it concurrently and from cache), resolves each item
with :func:`fairjudge._protocol.resolve`, and computes the headline numbers with
their uncertainty. With the defaults (two calls, conservative rule) each item's
outcome is exactly the seed's ``debiased_verdict``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from fairjudge._errors import ConfigError
from fairjudge._items import Call, Item, Judgment
from fairjudge._protocol import item_seed, plan_orders
from fairjudge._types import Order, Reply, Resolution, stopped_by
from fairjudge.evaluation._results import PairwiseResult, judgment, summarise
from fairjudge.evaluation._settings import (
    EvalSettings,
    RuleLike,
    as_rule,
    check_probabilities,
    check_repeats,
)
from fairjudge.judges import BatchJudge, CallableJudge, PairwiseRequest, ProgressCallback
from fairjudge.stats import prefetch_resamples

__all__ = ["ItemLike", "JudgeLike", "evaluate", "evaluate_pairs"]

JudgeLike = BatchJudge | Callable[[str, str, str], Any]
ItemLike = Item | Sequence[str]


def _as_item(obj: ItemLike, index: int) -> Item:
    if isinstance(obj, Item):
        return obj
    if isinstance(obj, str) or len(obj) != 3:
        raise ConfigError(f"items[{index}] must be an Item or a (question, ans1, ans2) triple")
    q, a1, a2 = obj
    return Item(question=q, answer_1=a1, answer_2=a2, id=str(index))


def as_batch_judge(judge: JudgeLike) -> BatchJudge:
    """A judge object as it is; a plain ``judge(question, answer_a, answer_b)`` function wrapped."""
    if isinstance(judge, BatchJudge):
        return judge
    return CallableJudge(judge)


def evaluate_pairs(
    judge: JudgeLike,
    items: Iterable[ItemLike],
    *,
    rule: RuleLike = Resolution.CONSERVATIVE,
    rounds: int = 2,
    balanced: bool = True,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    progress: ProgressCallback | None = None,
) -> PairwiseResult:
    """Judge every item with the position-debiased protocol and summarise.

    Args:
        judge: A seed-style callable ``judge(q, a, b)`` (returning a label, a
            ``[[A]]``-style string, :class:`fairjudge.Probabilities` or a mapping) or
            a :class:`fairjudge.judges.BatchJudge` such as an LLM judge.
        items: :class:`fairjudge.Item` objects or ``(question, ans1, ans2)`` triples;
            any iterable, a generator too.
        rule: How the calls on an item are resolved (see :class:`fairjudge.Resolution`).
        rounds: Calls per item. 2 (default) is the seed protocol; 1 is the naive
            single-order baseline (the result says it is not debiased); more
            randomise the order (see ``balanced``).
        balanced: With ``rounds`` > 2, give each order exactly half the calls.
        seed: Run seed: derives each item's order sequence (from its content) and
            the bootstrap. Recorded in the result.
        level: Confidence level of the intervals.
        n_resamples: Bootstrap resamples.
        progress: Called with the number of calls as they finish.

    Returns:
        A :class:`PairwiseResult`. Items whose calls failed are listed as unresolved
        and left out of the rates; they are never counted as ties or losses. When a
        budget stopped the judge, the result is partial: its ``stopped`` says why,
        and the items with calls not made are unresolved (``n_not_run``).

    Raises:
        ConfigError: ``items`` is empty or malformed, or a parameter is invalid (a
            :class:`ValueError`, as the seed API raises).
    """
    settings = EvalSettings(
        rule=as_rule(rule),
        rounds=rounds,
        balanced=balanced,
        seed=seed,
        level=level,
        n_resamples=n_resamples,
    )
    return evaluate(judge, items, settings, progress=progress)


def evaluate(
    judge: JudgeLike,
    items: Iterable[ItemLike],
    settings: EvalSettings,
    *,
    progress: ProgressCallback | None = None,
) -> PairwiseResult:
    """:func:`evaluate_pairs` with its settings as one validated value."""
    check_repeats(settings.rounds, getattr(judge, "temperature", None))
    check_probabilities(settings.rule, settings.rounds, judge)
    item_list = [_as_item(obj, i) for i, obj in enumerate(items)]
    if not item_list:
        raise ConfigError("items is empty; need at least one item to judge")
    plans = [
        plan_orders(
            settings.rounds,
            balanced=settings.balanced,
            seed=item_seed(settings.seed, it.question_text, it.answer_1, it.answer_2),
        )
        for it in item_list
    ]
    # In a command (a shared_resamples block), the win rate's resampling plan is drawn
    # in the background while the calls run or are read back: once every item
    # resolves, its clusters are the questions.
    keys = {it.cluster_key for it in item_list}
    prefetch_resamples([len(keys)], settings.n_resamples, settings.seed)
    requests: list[PairwiseRequest] = []
    for it, plan in zip(item_list, plans, strict=True):
        for order, sample in plan:
            a, b = (
                (it.answer_1, it.answer_2)
                if order is Order.ORIGINAL
                else (it.answer_2, it.answer_1)
            )
            requests.append(PairwiseRequest(it.question, a, b, it.reference, sample))
    replies = as_batch_judge(judge).judge_batch(requests, progress)
    result = _resolve(item_list, plans, replies, settings)
    stopped = stopped_by(replies)
    return result if stopped is None else replace(result, stopped=stopped)


def _resolve(
    item_list: list[Item],
    plans: list[tuple[tuple[Order, int], ...]],
    replies: Sequence[Reply],
    settings: EvalSettings,
) -> PairwiseResult:
    if len(replies) != sum(len(plan) for plan in plans):
        raise RuntimeError(f"judge returned {len(replies)} replies for the planned calls")

    judgments: list[Judgment] = []
    cursor = 0
    for it, plan in zip(item_list, plans, strict=True):
        calls = tuple(
            Call(order, sample, replies[cursor + k]) for k, (order, sample) in enumerate(plan)
        )
        cursor += len(plan)
        judgments.append(judgment(it, calls, settings.rule))
    return summarise(judgments, settings)
