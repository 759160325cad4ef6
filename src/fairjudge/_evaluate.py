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
from dataclasses import dataclass, field
from typing import Any, Literal

from fairjudge._protocol import OUTCOME_SCORE, item_seed, plan_orders, resolve
from fairjudge._types import Call, Item, Judgment, Order, Outcome, Resolution, Verdict
from fairjudge.judges._callable import CallableJudge
from fairjudge.judges._pairwise import BatchJudge, PairwiseRequest, ProgressCallback
from fairjudge.stats._intervals import ConfidenceInterval, bootstrap_mean

__all__ = ["PairwiseResult", "Rate", "WinRate", "evaluate_pairs"]


@dataclass(frozen=True, slots=True)
class WinRate:
    """Model 1's win rate: wins count 1, ties ½, losses 0, with a bootstrap CI.

    Attributes:
        estimate: The mean score over resolved items.
        ci: Percentile bootstrap interval, clustered by question.
        n: Items that count (every call produced a verdict).
        wins: Items model 1 won.
        ties: Items resolved as ties.
        losses: Items model 1 lost.
        seed: The bootstrap seed.
    """

    estimate: float
    ci: ConfidenceInterval
    n: int
    wins: int
    ties: int
    losses: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "estimate": self.estimate,
            "ci": self.ci.to_dict(),
            "n": self.n,
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
            "seed": self.seed,
        }


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion with its CI and the counts behind it."""

    estimate: float
    ci: ConfidenceInterval
    successes: int
    n: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "estimate": self.estimate,
            "ci": self.ci.to_dict(),
            "count": self.successes,
            "n": self.n,
        }


@dataclass(frozen=True, slots=True)
class PairwiseResult:
    """Everything one comparison produced.

    Attributes:
        win_rate: Model 1's debiased win rate (``None`` if no item resolved).
        single_order: The win rate from the label of the first original-order call
            alone: what a user who asked once, without swapping, would have trusted.
        position_consistency: Share of resolved items whose calls all agree.
        first_position: Share of decisive single calls (A or B) that chose position A;
            0.5 means no position preference.
        tie_rate: Share of single calls that said tie.
        n_items: Items submitted.
        n_inconsistent: Resolved items whose calls disagree.
        n_parse_failures: Calls whose reply held no readable verdict.
        n_call_errors: Calls that failed after retries.
        n_unresolved: Items left out of the rates because a call failed.
        judgments: Per-item judgments, in input order.
        settings: Rule, rounds, seed and the rest, recorded for reproducibility.
    """

    win_rate: WinRate | None
    single_order: WinRate | None
    position_consistency: Rate | None
    first_position: Rate | None
    tie_rate: float | None
    n_items: int
    n_inconsistent: int
    n_parse_failures: int
    n_call_errors: int
    n_unresolved: int
    judgments: tuple[Judgment, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def with_rule(
        self, rule: Resolution | Literal["conservative", "lenient", "soft"]
    ) -> PairwiseResult:
        """The same calls resolved with another rule: no judge is called again.

        Useful to show the seed's conservative result next to the soft one, or to
        check how much a conclusion depends on the rule.
        """
        rule = Resolution(rule)
        judgments = []
        for j in self.judgments:
            resolved = resolve(j.calls, rule)
            if resolved is None:
                judgments.append(Judgment(j.item, j.calls, rule, None, None, None, j.extra))
            else:
                outcome, score, consistent = resolved
                judgments.append(
                    Judgment(j.item, j.calls, rule, outcome, score, consistent, j.extra)
                )
        s = self.settings
        result = _summarise(
            judgments,
            rule=rule,
            rounds=int(s.get("rounds", 2)),
            balanced=bool(s.get("balanced", True)),
            seed=int(s.get("seed", 0)),
            level=float(s.get("level", 0.95)),
            n_resamples=int(s.get("n_resamples", 2000)),
        )
        extra = {k: v for k, v in s.items() if k not in result.settings}
        result.settings.update(extra)
        return result

    @property
    def has_probabilities(self) -> bool:
        """Whether the judge gave probabilities (so the ``soft`` rule uses real ones)."""
        return any(c.reply.probabilities is not None for j in self.judgments for c in j.calls)

    def summary(self) -> str:
        """A few human-readable lines."""
        lines = [f"items: {self.n_items} (unresolved: {self.n_unresolved})"]
        if self.win_rate is not None:
            w = self.win_rate
            lines.append(
                f"win rate of model 1: {w.estimate:.3f} {w.ci} "
                f"(W/T/L {w.wins}/{w.ties}/{w.losses}, n={w.n})"
            )
        if self.single_order is not None:
            lines.append(f"single-order win rate: {self.single_order.estimate:.3f}")
        if self.position_consistency is not None:
            lines.append(f"position consistency: {self.position_consistency.estimate:.3f}")
        if self.first_position is not None:
            lines.append(f"first-position preference: {self.first_position.estimate:.3f}")
        lines.append(f"parse failures: {self.n_parse_failures}, call errors: {self.n_call_errors}")
        return "\n".join(lines)

    def to_dict(self, *, include_judgments: bool = False) -> dict[str, Any]:
        """JSON-ready summary; per-item judgments only when asked."""
        out: dict[str, Any] = {
            "n_items": self.n_items,
            "win_rate": self.win_rate.to_dict() if self.win_rate else None,
            "single_order_win_rate": self.single_order.to_dict() if self.single_order else None,
            "position_consistency": (
                self.position_consistency.to_dict() if self.position_consistency else None
            ),
            "first_position_preference": (
                self.first_position.to_dict() if self.first_position else None
            ),
            "tie_rate": self.tie_rate,
            "n_inconsistent": self.n_inconsistent,
            "n_parse_failures": self.n_parse_failures,
            "n_call_errors": self.n_call_errors,
            "n_unresolved": self.n_unresolved,
            "settings": self.settings,
        }
        if include_judgments:
            out["judgments"] = [j.to_dict() for j in self.judgments]
        return out


@dataclass(frozen=True, slots=True)
class _Boot:
    seed: int
    level: float
    n_resamples: int


JudgeLike = BatchJudge | Callable[[str, str, str], Any]
ItemLike = Item | Sequence[str]


def _as_item(obj: ItemLike, index: int) -> Item:
    if isinstance(obj, Item):
        return obj
    if isinstance(obj, str) or len(obj) != 3:
        raise ValueError(f"items[{index}] must be an Item or a (question, ans1, ans2) triple")
    q, a1, a2 = obj
    return Item(question=q, answer_1=a1, answer_2=a2, id=str(index))


def _as_batch_judge(judge: JudgeLike) -> BatchJudge:
    if isinstance(judge, BatchJudge):
        return judge
    return CallableJudge(judge)


def _win_rate(
    scores: list[float], outcomes: list[Outcome], clusters: list[str], *, boot: _Boot
) -> WinRate | None:
    if not scores:
        return None
    ci = bootstrap_mean(
        scores, clusters, n_resamples=boot.n_resamples, seed=boot.seed, level=boot.level
    )
    return WinRate(
        estimate=sum(scores) / len(scores),
        ci=ci,
        n=len(scores),
        wins=outcomes.count(Outcome.ONE),
        ties=outcomes.count(Outcome.TIE),
        losses=outcomes.count(Outcome.TWO),
        seed=boot.seed,
    )


def _rate(flags: list[bool], clusters: list[str] | None, *, boot: _Boot) -> Rate | None:
    if not flags:
        return None
    values = [1.0 if f else 0.0 for f in flags]
    ci = bootstrap_mean(
        values, clusters, n_resamples=boot.n_resamples, seed=boot.seed, level=boot.level
    )
    return Rate(sum(values) / len(values), ci, sum(flags), len(flags))


def evaluate_pairs(
    judge: JudgeLike,
    items: Iterable[ItemLike],
    *,
    rule: Resolution | Literal["conservative", "lenient", "soft"] = Resolution.CONSERVATIVE,
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
            single-order baseline; more randomise the order (see ``balanced``).
        balanced: With ``rounds`` > 2, give each order exactly half the calls.
        seed: Run seed: derives each item's order sequence (from its content) and
            the bootstrap. Recorded in the result.
        level: Confidence level of the intervals.
        n_resamples: Bootstrap resamples.
        progress: Called with the number of calls as they finish.

    Returns:
        A :class:`PairwiseResult`. Items whose calls failed are listed as unresolved
        and left out of the rates; they are never counted as ties or losses.

    Raises:
        ValueError: ``items`` is empty or malformed, or a parameter is invalid.
    """
    rule = Resolution(rule)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1); got {level!r}")
    item_list = [_as_item(obj, i) for i, obj in enumerate(items)]
    if not item_list:
        raise ValueError("items is empty; need at least one item to judge")
    plans = [
        plan_orders(
            rounds, balanced=balanced, seed=item_seed(seed, it.question, it.answer_1, it.answer_2)
        )
        for it in item_list
    ]
    requests: list[PairwiseRequest] = []
    for it, plan in zip(item_list, plans, strict=True):
        for order, sample in plan:
            a, b = (
                (it.answer_1, it.answer_2)
                if order is Order.ORIGINAL
                else (it.answer_2, it.answer_1)
            )
            requests.append(PairwiseRequest(it.question, a, b, it.reference, sample))
    replies = _as_batch_judge(judge).judge_batch(requests, progress)
    if len(replies) != len(requests):
        raise RuntimeError(f"judge returned {len(replies)} replies for {len(requests)} calls")

    judgments: list[Judgment] = []
    cursor = 0
    for it, plan in zip(item_list, plans, strict=True):
        calls = tuple(
            Call(order, sample, replies[cursor + k]) for k, (order, sample) in enumerate(plan)
        )
        cursor += len(plan)
        resolved = resolve(calls, rule)
        if resolved is None:
            judgments.append(Judgment(it, calls, rule, None, None, None))
        else:
            outcome, score, consistent = resolved
            judgments.append(Judgment(it, calls, rule, outcome, score, consistent))
    return _summarise(
        judgments,
        rule=rule,
        rounds=rounds,
        balanced=balanced,
        seed=seed,
        level=level,
        n_resamples=n_resamples,
    )


def _summarise(
    judgments: list[Judgment],
    *,
    rule: Resolution,
    rounds: int,
    balanced: bool,
    seed: int,
    level: float,
    n_resamples: int,
) -> PairwiseResult:
    done = [j for j in judgments if j.outcome is not None and j.score is not None]
    clusters = [j.item.cluster_key for j in done]
    boot = _Boot(seed, level, n_resamples)
    win = _win_rate(
        [j.score for j in done if j.score is not None],
        [j.outcome for j in done if j.outcome is not None],
        clusters,
        boot=boot,
    )

    # The naive baseline reads the label of one original-order call, as a user who
    # asked once would; probabilities are not what such a user sees.
    naive_scores: list[float] = []
    naive_outcomes: list[Outcome] = []
    naive_clusters: list[str] = []
    for j in judgments:
        first = next((c for c in j.calls if c.order is Order.ORIGINAL and c.sample == 0), None)
        if first is not None and first.preferred is not None:
            naive_outcomes.append(first.preferred)
            naive_scores.append(OUTCOME_SCORE[first.preferred])
            naive_clusters.append(j.item.cluster_key)
    naive = _win_rate(naive_scores, naive_outcomes, naive_clusters, boot=boot)

    consistency = _rate([bool(j.consistent) for j in done], clusters, boot=boot)
    all_calls = [(j.item.cluster_key, c) for j in judgments for c in j.calls if c.reply.ok]
    decisive = [(k, c) for k, c in all_calls if c.reply.verdict is not Verdict.TIE]
    first_pos = _rate(
        [c.reply.verdict is Verdict.A for _, c in decisive], [k for k, _ in decisive], boot=boot
    )
    ties = sum(c.reply.verdict is Verdict.TIE for _, c in all_calls)
    return PairwiseResult(
        win_rate=win,
        single_order=naive,
        position_consistency=consistency,
        first_position=first_pos,
        tie_rate=ties / len(all_calls) if all_calls else None,
        n_items=len(judgments),
        n_inconsistent=sum(not j.consistent for j in done),
        n_parse_failures=sum(j.parse_failures for j in judgments),
        n_call_errors=sum(j.call_errors for j in judgments),
        n_unresolved=len(judgments) - len(done),
        judgments=tuple(judgments),
        settings={
            "rule": rule.value,
            "rounds": rounds,
            "balanced": balanced,
            "seed": seed,
            "level": level,
            "n_resamples": n_resamples,
        },
    )
