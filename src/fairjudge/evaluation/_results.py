"""A pairwise evaluation: one pass over items (plan, judge, resolve, summarise) and its result.

:func:`evaluate_pairs` is the typed layer over the seed protocol; :func:`summarise`
gives the headline numbers with seeded bootstrap intervals clustered by question, and
:func:`length_controlled` the AlpacaEval-2-style length-controlled win rate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from fairjudge._errors import ConfigError, InputError
from fairjudge._items import Call, Item, Judgment
from fairjudge._protocol import item_seed, plan_orders, resolve
from fairjudge._types import OUTCOME_SCORE, Order, Outcome, Reply, Resolution, Verdict, stopped_by
from fairjudge.evaluation._settings import (
    EvalSettings,
    Failure,
    RuleLike,
    SettingsFrame,
    as_rule,
    check_plan,
    check_probabilities,
    check_repeats,
)
from fairjudge.judges import BatchJudge, CallableJudge, PairwiseRequest, ProgressCallback
from fairjudge.runner import announce_plan
from fairjudge.stats import ConfidenceInterval, bootstrap_mean, prefetch_resamples, shared_resamples

if TYPE_CHECKING:
    from fairjudge.stats import LengthControlledWinRate

__all__ = [
    "MIN_LC_ITEMS",
    "ItemLike",
    "JudgeLike",
    "PairwiseResult",
    "Rate",
    "WinRate",
    "evaluate",
    "evaluate_pairs",
    "judgment",
    "length_controlled",
    "summarise",
]


def _fields(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


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
        return {**_fields(self), "ci": self.ci.to_dict()}


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion with its CI and the counts behind it."""

    estimate: float
    ci: ConfidenceInterval
    successes: int
    n: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``successes`` as ``count``)."""
        data = {**_fields(self), "ci": self.ci.to_dict()}
        data["count"] = data.pop("successes")
        return data


@dataclass(frozen=True, slots=True)
class PairwiseResult(SettingsFrame):
    """Everything one comparison produced (on the shared :class:`SettingsFrame`).

    Attributes:
        win_rate: Model 1's win rate under the rule (``None`` if no item resolved).
            Debiased when the items were shown in both orders; with ``rounds=1``
            it is a single-order figure (see :attr:`debiased`).
        single_order: The win rate from the label of the first original-order call
            alone: what a user who asked once, without swapping, would have trusted.
        position_consistency: Share of resolved items, among those shown in both
            orders, whose calls all agree; ``None`` when no item was swapped.
        first_position_calls: Share of decisive single *calls* (A or B) that chose
            the first position; 0.5 means no position preference. (Not to be
            confused with :func:`fairjudge.stats.position_bias`, which counts
            *pairs* of calls.)
        tie_rate: Share of single calls that said tie.
        n_items: Items submitted.
        n_inconsistent: Resolved items whose calls disagree.
        n_parse_failures: Calls whose reply held no readable verdict.
        n_call_errors: Calls that failed after retries.
        n_unresolved: Items left out of the rates because a call failed.
        judgments: Per-item judgments, in input order.
        settings: Rule, rounds, seed and the rest, recorded for reproducibility.
        stopped: Why the evaluation stopped before every call was made (a spent
            budget), or ``None`` when it ran to the end. A stopped result is partial:
            items whose calls were not made are unresolved.
    """

    win_rate: WinRate | None
    single_order: WinRate | None
    position_consistency: Rate | None
    first_position_calls: Rate | None
    tie_rate: float | None
    n_items: int
    n_inconsistent: int
    n_parse_failures: int
    n_call_errors: int
    n_unresolved: int
    judgments: tuple[Judgment, ...]
    settings: EvalSettings = field(default_factory=EvalSettings)
    stopped: str | None = None

    @property
    def debiased(self) -> bool:
        """Whether every resolved item was shown in both orders (the swap protocol)."""
        done = [j for j in self.judgments if j.outcome is not None]
        return bool(done) and all(j.both_orders for j in done)

    def item_failures(self) -> Iterator[Iterable[Failure]]:
        """Per item, its calls' failures."""
        return ((c.reply.failure for c in j.calls) for j in self.judgments)

    def with_rule(self, rule: RuleLike) -> PairwiseResult:
        """The same calls resolved with another rule: no judge is called again.

        Useful to show the seed's conservative result next to the soft one, or to
        check how much a conclusion depends on the rule.
        """
        rule = as_rule(rule)
        judgments = [judgment(j.item, j.calls, rule, j.extra) for j in self.judgments]
        result = summarise(judgments, replace(self.settings, rule=rule))
        return replace(result, stopped=self.stopped)

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
        if self.first_position_calls is not None:
            rate = self.first_position_calls.estimate
            lines.append(f"calls choosing the first position: {rate:.3f}")
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
            "debiased": self.debiased,
            "first_position_call_rate": (
                self.first_position_calls.to_dict() if self.first_position_calls else None
            ),
            "tie_rate": self.tie_rate,
            "n_inconsistent": self.n_inconsistent,
            "n_parse_failures": self.n_parse_failures,
            "n_call_errors": self.n_call_errors,
            "n_unresolved": self.n_unresolved,
            "n_not_run": self.n_not_run,
            **self.frame_dict(),
        }
        if include_judgments:
            out["judgments"] = [j.to_dict() for j in self.judgments]
        return out


def win_rate_of(
    scores: list[float], outcomes: list[Outcome], clusters: list[str], *, boot: EvalSettings
) -> WinRate | None:
    if not scores:
        return None
    ci = bootstrap_mean(
        scores, clusters, n_resamples=boot.n_resamples, seed=boot.seed, level=boot.level,
        proportion=True,  # every question alike: alike_interval, not a zero-width one
    )  # fmt: skip
    return WinRate(
        estimate=sum(scores) / len(scores),
        ci=ci,
        n=len(scores),
        wins=outcomes.count(Outcome.ONE),
        ties=outcomes.count(Outcome.TIE),
        losses=outcomes.count(Outcome.TWO),
        seed=boot.seed,
    )


def _rate(flags: list[bool], clusters: list[str] | None, *, boot: EvalSettings) -> Rate | None:
    if not flags:
        return None
    values = [1.0 if f else 0.0 for f in flags]
    ci = bootstrap_mean(
        values, clusters, n_resamples=boot.n_resamples, seed=boot.seed, level=boot.level,
        proportion=True,  # every question alike: alike_interval on the clusters
    )  # fmt: skip
    return Rate(sum(values) / len(values), ci, sum(flags), len(flags))


def judgment(
    item: Item, calls: tuple[Call, ...], rule: Resolution, extra: dict[str, Any] | None = None
) -> Judgment:
    """Resolve an item's calls with a rule; unresolved (``None`` fields) when any failed."""
    resolved = resolve(calls, rule)
    if resolved is None:
        return Judgment(item, calls, rule, None, None, None, dict(extra or {}))
    outcome, score, consistent = resolved
    return Judgment(item, calls, rule, outcome, score, consistent, dict(extra or {}))


def summarise(judgments: list[Judgment], settings: EvalSettings) -> PairwiseResult:
    """The headline numbers over resolved judgments, each with its bootstrap CI.

    The intervals share one resampling plan when their cluster counts agree (see
    :func:`~fairjudge.stats.shared_resamples`); each is the same as on its own.
    """
    with shared_resamples():
        return _summarise(judgments, settings)


def _summarise(judgments: list[Judgment], settings: EvalSettings) -> PairwiseResult:
    # One pass collects what each interval resamples, each list in judgment order.
    scores: list[float] = []
    outcomes: list[Outcome] = []
    clusters: list[str] = []
    naive_scores: list[float] = []
    naive_outcomes: list[Outcome] = []
    naive_clusters: list[str] = []
    agree: list[bool] = []
    swapped_clusters: list[str] = []
    chose_first: list[bool] = []
    decisive_clusters: list[str] = []
    n_ok = ties = 0
    for j in judgments:
        key = j.item.cluster_key
        if j.outcome is not None and j.score is not None:
            scores.append(j.score)
            outcomes.append(j.outcome)
            clusters.append(key)
            # Consistency means surviving the swap: only items shown in both orders count.
            if j.both_orders:
                agree.append(bool(j.consistent))
                swapped_clusters.append(key)
        # The naive baseline reads the label of one original-order call, as a user who
        # asked once would; probabilities are not what such a user sees.
        first = next((c for c in j.calls if c.order is Order.ORIGINAL and c.sample == 0), None)
        if first is not None and (preferred := first.preferred) is not None:
            naive_outcomes.append(preferred)
            naive_scores.append(OUTCOME_SCORE[preferred])
            naive_clusters.append(key)
        for c in j.calls:
            if c.reply.ok:
                n_ok += 1
                if c.reply.verdict is Verdict.TIE:
                    ties += 1
                else:
                    chose_first.append(c.reply.verdict is Verdict.A)
                    decisive_clusters.append(key)
    boot = settings
    groups = (clusters, naive_clusters, swapped_clusters, decisive_clusters)
    prefetch_resamples((len(set(g)) for g in groups), boot.n_resamples, boot.seed)
    return PairwiseResult(
        win_rate=win_rate_of(scores, outcomes, clusters, boot=boot),
        single_order=win_rate_of(naive_scores, naive_outcomes, naive_clusters, boot=boot),
        position_consistency=_rate(agree, swapped_clusters, boot=boot),
        first_position_calls=_rate(chose_first, decisive_clusters, boot=boot),
        tie_rate=ties / n_ok if n_ok else None,
        n_items=len(judgments),
        n_inconsistent=agree.count(False),
        n_parse_failures=sum(j.parse_failures for j in judgments),
        n_call_errors=sum(j.call_errors for j in judgments),
        n_unresolved=len(judgments) - len(scores),
        judgments=tuple(judgments),
        settings=settings,
    )


MIN_LC_ITEMS = 10
"""Fewer resolved items give the regression nothing to learn the length effect from."""


def length_controlled(result: PairwiseResult) -> LengthControlledWinRate | str:
    """AlpacaEval-2-style length-controlled win rate, or the reason it was not computed.

    Needs at least :data:`MIN_LC_ITEMS` resolved items whose answer lengths differ.
    """
    from fairjudge.stats import length_controlled_win_rate  # scipy: load only when used

    done = [j for j in result.judgments if j.outcome is not None]
    if len(done) < MIN_LC_ITEMS:
        return f"needs at least {MIN_LC_ITEMS} resolved items, have {len(done)}"
    s = result.settings
    try:
        return length_controlled_win_rate(
            [j.outcome.value for j in done if j.outcome is not None],
            [len(j.item.answer_1) for j in done],
            [len(j.item.answer_2) for j in done],
            questions=[j.item.cluster_key for j in done],
            n_resamples=s.n_resamples,
            seed=s.seed,
            level=s.level,
        )
    except (InputError, ValueError) as exc:
        return str(exc)


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
    """:func:`evaluate_pairs` with its settings as one validated value.

    Raises:
        ConfigError: As :func:`evaluate_pairs`, or a plan past
            :data:`~fairjudge.evaluation._settings.MAX_PLANNED_CALLS` calls with no
            ``max_calls`` budget on the judge, before any call is built.
    """
    check_repeats(settings.rounds, getattr(judge, "temperature", None))
    check_probabilities(settings.rule, settings.rounds, judge)
    item_list = list(items)
    check_plan(len(item_list), settings.rounds, judge)
    return judge_planned(judge, item_list, settings, progress)


def judge_planned(
    judge: JudgeLike,
    items: list[ItemLike],
    settings: EvalSettings,
    progress: ProgressCallback | None = None,
) -> PairwiseResult:
    """Plan the calls for ``items``, judge them and resolve: :func:`evaluate` past its checks."""
    # Each item's plan is ``rounds`` calls: said before anything is built, as a large
    # plan takes a while (MAX_PLANNED_CALLS).
    announce_plan(len(items) * settings.rounds, _progress_mode(judge))
    item_list = [_as_item(obj, i) for i, obj in enumerate(items)]
    if not item_list:
        raise ConfigError("items is empty; need at least one item to judge")
    # One call, or two balanced ones (original then swapped), draw no order: no seed.
    drawn = settings.rounds > 2 or (settings.rounds == 2 and not settings.balanced)
    plans = [
        plan_orders(
            settings.rounds,
            balanced=settings.balanced,
            seed=item_seed(settings.seed, it.question_text, it.answer_1, it.answer_2)
            if drawn
            else None,
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


def _progress_mode(judge: object) -> object:
    """An LLM judge's progress mode (its session's ``options.progress``); else ``quiet``.

    A Python judge builds no calls up front and shows no progress of its own.
    """
    options = getattr(getattr(judge, "session", None), "options", None)
    return getattr(options, "progress", "quiet")


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
