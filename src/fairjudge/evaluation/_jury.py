"""A panel's verdict: every member judges every item, the verdicts are aggregated.

:func:`evaluate_jury` plans the calls once, as :func:`evaluate` does, has every member
answer them in one batch, debiases each member on its own, and aggregates item by
item under the panel's rule; a missing vote is reported, never guessed.
:func:`jury_diagnostics` reads what each member adds and how much the panel agrees
off the result, calling no judge, so a dissenting member shows up at no cost.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from fairjudge._items import Call, Item, Judgment
from fairjudge._protocol import resolve
from fairjudge._types import OUTCOME_SCORE, Outcome, Replies, Reply, Resolution
from fairjudge.evaluation._panel import (
    AGGREGATIONS,
    PanelResult,
    aggregate,
    check_rule,
    effective,
    lean,
    leave_one_out,
    skipped_or_dict,
)
from fairjudge.evaluation._results import ItemLike, PairwiseResult, Rate, WinRate, judge_planned
from fairjudge.evaluation._settings import (
    EvalSettings,
    SettingsFrame,
    check_plan,
    check_probabilities,
    check_repeats,
)
from fairjudge.judges import PairwiseRequest, ProgressCallback, ReplayJudge, panel_reply
from fairjudge.stats import bootstrap_mean, shared_resamples

if TYPE_CHECKING:
    from fairjudge.judges import Jury, MemberUsage
    from fairjudge.stats import AgreementResult, EffectiveJudges, FleissKappa

__all__ = [
    "JuryDiagnostics",
    "JuryResult",
    "MemberDiagnostics",
    "PanelJudgment",
    "evaluate_jury",
    "jury_diagnostics",
    "jury_records",
]


@dataclass(frozen=True, slots=True)
class PanelJudgment:
    """One item as the panel decided it, with every member's verdict.

    Attributes:
        item: The item.
        outcome: The panel's outcome; ``None`` when a member could not resolve it.
        score: Model 1's score from the panel (1, ½, 0 by majority; a mean otherwise).
        votes: Each member's debiased outcome (``None`` where unresolved).
        soft: Each member's soft score (``None`` where unresolved).
    """

    item: Item
    outcome: Outcome | None
    score: float | None
    votes: tuple[Outcome | None, ...]
    soft: tuple[float | None, ...]

    def to_dict(self, names: Sequence[str]) -> dict[str, Any]:
        """JSON-ready record (the members keyed by name)."""
        return {
            "id": self.item.id,
            "outcome": self.outcome.value if self.outcome is not None else None,
            "score": self.score,
            "human": self.item.human.value if self.item.human is not None else None,
            "members": {
                n: {"outcome": v.value if v is not None else None, "soft_score": s}
                for n, v, s in zip(names, self.votes, self.soft, strict=True)
            },
        }


def _member_view(j: Judgment) -> tuple[Outcome | None, float | None]:
    soft = resolve(j.calls, Resolution.SOFT) if j.calls else None
    return j.outcome, soft[1] if soft is not None else None


@dataclass(frozen=True, slots=True)
class JuryResult(PanelResult, SettingsFrame):
    """Everything a jury evaluation produced (on the panels' shared frame).

    Attributes:
        names: The members, in order.
        weights: Their weights.
        aggregation: The rule that produced :attr:`judgments` and :attr:`win_rate`.
        win_rate: The panel's win rate of model 1 with its bootstrap CI (clustered
            by question), or ``None`` when no item resolved.
        judgments: Per item, the panel's outcome and every member's verdict.
        members: Each member's own debiased result, in member order.
        settings: Rule, rounds, seed and the rest (shared by every member).
        stopped: Why the run stopped early (a spent budget), or ``None``.
        usage: Each member's calls, tokens, cost and latency in this run, in member
            order; empty when the jury did not record them.
    """

    names: tuple[str, ...]
    weights: tuple[float, ...]
    aggregation: str
    win_rate: WinRate | None
    judgments: tuple[PanelJudgment, ...]
    members: tuple[PairwiseResult, ...]
    settings: EvalSettings
    stopped: str | None = None
    usage: tuple[MemberUsage, ...] = ()

    @property
    def n_items(self) -> int:
        """Items submitted."""
        return len(self.judgments)

    @property
    def n_unresolved(self) -> int:
        """Items some member could not resolve (left out of the panel's numbers)."""
        return sum(j.outcome is None for j in self.judgments)

    def with_aggregation(self, rule: str) -> JuryResult:
        """The same members' verdicts aggregated under another rule; no judge is called."""
        rule = check_rule(rule, AGGREGATIONS)
        return jury_result(self.names, self.weights, rule, self.members, self.stopped, self.usage)

    def mean_reading(self) -> tuple[str, str | None]:
        """What the panel's win rate averages, and a note when members' labels are in it.

        Under ``"mean"`` each member's score on an item is its soft score: from the
        probabilities it measured, or, on a call where it gave none (an OpenAI
        reasoning model, Claude, a label-only Python judge), from its label (model 1
        better 1, tie ½, model 2 better 0). A mean of labels is no probability any
        member reported, so the label says what was averaged, as ``compare --rule
        soft`` does: ``"mean"`` when every member measured every call of the items
        the panel resolved, ``"mean of the labels, no probabilities"`` when none
        did, ``"mean; 3 of 4 members by label"`` when they are mixed (with a note
        that names them). Any other rule gives its name and no note.

        Example:
            >>> result.mean_reading()  # doctest: +SKIP
            ('mean; 3 of 4 members by label', 'openai/gpt-5-mini, ... gave no probabilities ...')
        """
        if self.aggregation != "mean":
            return self.aggregation, None
        done = [k for k, j in enumerate(self.judgments) if j.outcome is not None]
        labels, measured, any_measured = [], [], False
        for name, member in zip(self.names, self.members, strict=True):
            given = [c.reply.probabilities is not None for k in done
                     for c in member.judgments[k].calls if c.reply.verdict is not None]  # fmt: skip
            missing, n = given.count(False), len(given)
            any_measured = any_measured or missing < n
            if missing:
                labels.append(name if missing == n else f"{name} ({missing} of {n} calls)")
            elif n:
                measured.append(name)
        counted = "model 1 better 1, tie ½, model 2 better 0"
        if not labels:
            return "mean", None
        if not any_measured:
            return "mean of the labels, no probabilities", (
                "No member gave probabilities: under the mean rule each member's calls "
                f"count as their labels ({counted}), so this win rate is a mean of labels, "
                "not a probability any member reported."
            )
        return f"mean; {len(labels)} of {len(self.names)} members by label", (
            f"{', '.join(labels)} gave no probabilities: under the mean rule each of their "
            f"calls counts as its label ({counted}), averaged with the probabilities "
            f"measured {'by ' + ', '.join(measured) if measured else 'on the other calls'}, "
            "so this win rate is not a probability the panel measured."
        )

    def to_dict(self, *, include_judgments: bool = False) -> dict[str, Any]:
        """JSON-ready summary; per-item records only when asked."""
        out: dict[str, Any] = {
            "members": self.roster(),
            "aggregation": self.aggregation,
            "n_items": self.n_items,
            "n_unresolved": self.n_unresolved,
            "win_rate": self.win_rate.to_dict() if self.win_rate is not None else None,
            **self.frame_dict(),
        }
        if include_judgments:
            out["judgments"] = [j.to_dict(self.names) for j in self.judgments]
        return out


def jury_result(
    names: tuple[str, ...],
    weights: tuple[float, ...],
    rule: str,
    members: tuple[PairwiseResult, ...],
    stopped: str | None,
    usage: tuple[MemberUsage, ...],
) -> JuryResult:
    settings = members[0].settings
    judgments = []
    for row in zip(*(m.judgments for m in members), strict=True):
        views = [_member_view(j) for j in row]
        votes = tuple(v for v, _ in views)
        soft = tuple(s for _, s in views)
        outcome: Outcome | None = None
        score: float | None = None
        if all(v is not None for v in votes) and all(s is not None for s in soft):
            outcome, score = aggregate(
                [v for v in votes if v is not None],
                [s for s in soft if s is not None],
                weights,
                rule,
            )
        judgments.append(PanelJudgment(row[0].item, outcome, score, votes, soft))
    done = [j for j in judgments if j.outcome is not None and j.score is not None]
    win = None
    if done:
        scores = [j.score for j in done if j.score is not None]
        ci = bootstrap_mean(
            scores, [j.item.cluster_key for j in done], n_resamples=settings.n_resamples,
            seed=settings.seed, level=settings.level, proportion=True,
        )  # fmt: skip
        outcomes = [j.outcome for j in done]
        win = WinRate(
            sum(scores) / len(scores), ci, len(done), outcomes.count(Outcome.ONE),
            outcomes.count(Outcome.TIE), outcomes.count(Outcome.TWO), settings.seed,
        )  # fmt: skip
    return JuryResult(names, weights, rule, win, tuple(judgments), members, settings, stopped,
                      usage)  # fmt: skip


class _Recorder:
    """Runs the whole panel on the batch ``evaluate`` plans; hands it the first member's."""

    def __init__(self, jury: Jury) -> None:
        self.jury = jury
        self.replies: list[Replies[Reply]] | None = None

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> Replies[Reply]:
        self.replies = self.jury.member_readings(requests, progress)
        return self.replies[0]  # marked with the panel's budget stop, if any


@dataclass(frozen=True, slots=True)
class _Replay:
    """Answers the same plan with replies already gathered."""

    replies: list[Reply]

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> list[Reply]:
        return list(self.replies)


def evaluate_jury(
    jury: Jury,
    items: Iterable[ItemLike],
    settings: EvalSettings,
    *,
    aggregation: str = "majority",
    progress: ProgressCallback | None = None,
) -> JuryResult:
    """Every member judges every item with the debiased protocol; aggregate the verdicts.

    A spent budget does not raise: the result is returned with ``stopped`` set (on
    it and on every member's result); unmade calls leave their items unresolved.

    Args:
        jury: The panel.
        items: Items or ``(question, ans1, ans2)`` triples.
        settings: Protocol and bootstrap settings, the same for every member.
        aggregation: ``"majority"`` or ``"mean"`` (see the module docstring).
        progress: Called with the number of calls as they finish (members × calls).

    Raises:
        ConfigError: Bad items, an unknown rule, ``rounds`` > 2 for a member that does
            not sample, or a plan past the limits (:func:`check_repeats`,
            :func:`check_plan`); a replayed member (a results file read back) is not
            planned, so only the rule binds it.
    """
    rule = check_rule(aggregation, AGGREGATIONS)
    for m in jury.members:
        if not isinstance(m.judge, ReplayJudge):
            check_repeats(settings.rounds, getattr(m.judge, "temperature", None))
        check_probabilities(settings.rule, settings.rounds, m.judge)
    item_list = list(items)
    check_plan(len(item_list), settings.rounds, jury)
    recorder = _Recorder(jury)
    first = judge_planned(recorder, item_list, settings, progress)
    assert recorder.replies is not None  # judge_planned judged the batch, or raised
    rest = [judge_planned(_Replay(r), item_list, settings) for r in recorder.replies[1:]]
    reason = first.stopped
    members = tuple(replace(m, stopped=reason) for m in (first, *rest))
    return jury_result(jury.names, jury.weights, rule, members, reason, jury.last_usage)


_ITEM_FIELDS = ("id", "question", "answer_1", "answer_2", "category", "human", "human_score")


def _call_record(call: Call) -> dict[str, Any]:
    """One call in the ``compare --out`` form that ``replay:`` reads, with the members' replies."""
    out = call.to_dict()
    if call.reply.payload is not None:
        out["members"] = dict(call.reply.payload).get("members")
    return out


def jury_records(result: JuryResult) -> Iterator[dict[str, Any]]:
    """One JSON-ready record per item (see the module docstring)."""
    names, weights = result.names, result.weights
    for k, panel in enumerate(result.judgments):
        own = [m.judgments[k] for m in result.members]
        item = {**own[0].item_dict(), **own[0].extra}  # as its to_dict has them
        record = {f: item[f] for f in _ITEM_FIELDS}
        record.update(panel.to_dict(names))
        for name, weight, judgment in zip(names, weights, own, strict=True):
            entry = record["members"][name]
            entry["weight"] = weight
            entry["calls"] = [_call_record(c) for c in judgment.calls]
        calls = []
        for row in zip(*(j.calls for j in own), strict=True):
            # Every member ran the same plan, so call i is the same order and sample.
            reply = panel_reply([c.reply for c in row], names, weights)
            calls.append(_call_record(Call(row[0].order, row[0].sample, reply)))
        record["calls"] = calls
        record["aggregation"] = result.aggregation
        yield record


@dataclass(frozen=True, slots=True)
class MemberDiagnostics:
    """One member's figures.

    Attributes:
        name: The member.
        weight: Its weight.
        win_rate: Its own debiased win rate of model 1.
        position_consistency: Share of its items whose calls agree after the swap.
        first_position_calls: Share of its decisive calls that chose position A.
        agreement_with_panel: Share of items where its vote equals the others'
            aggregate (leave-one-out), with a bootstrap CI.
        human: Its agreement with the human labels, when items carry them.
        calls: Calls it was asked for.
        cached: Of those, served from the store; ``None`` for a member that answers
            without any call (a replay), as its usage's ``cached`` is: there is no
            store to serve it, so 0 would claim a count that does not exist.
        failed: Of those, parse failures and call errors.
        usage: Calls made for it in this run, tokens, cost and latency; ``None``
            when the result carries no usage.
    """

    name: str
    weight: float
    win_rate: WinRate | None
    position_consistency: Rate | None
    first_position_calls: Rate | None
    agreement_with_panel: Rate | None
    human: AgreementResult | None
    calls: int
    cached: int | None
    failed: int
    usage: MemberUsage | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        o = skipped_or_dict
        return {
            "name": self.name, "weight": self.weight, "win_rate": o(self.win_rate),
            "position_consistency": o(self.position_consistency),
            "first_position_call_rate": o(self.first_position_calls),
            "agreement_with_panel": o(self.agreement_with_panel),
            "human_agreement": o(self.human), "calls": self.calls, "cached": self.cached,
            "failed": self.failed, "usage": o(self.usage),
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class JuryDiagnostics:
    """Per-member and panel figures of one jury result.

    Attributes:
        members: One entry per member, in order.
        n_complete: Items every member resolved (the items all figures use).
        fleiss: Fleiss' kappa of the votes, or why it was not computed.
        agreement: Member × member share of items with the same vote.
        effective: The effective number of independent judges, or why not computed.
        human: The panel's aggregate against the human labels, when items carry them.
    """

    members: tuple[MemberDiagnostics, ...]
    n_complete: int
    fleiss: FleissKappa | str
    agreement: tuple[tuple[float, ...], ...]
    effective: EffectiveJudges | str
    human: AgreementResult | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "members": [m.to_dict() for m in self.members],
            "n_complete_items": self.n_complete,
            "fleiss_kappa": skipped_or_dict(self.fleiss),
            "agreement_matrix": [list(r) for r in self.agreement],
            "effective_judges": skipped_or_dict(self.effective),
            "human_agreement": skipped_or_dict(self.human),
        }


def _votes(j: PanelJudgment, rule: str) -> list[Outcome]:
    if rule == "mean":
        return [lean(s) for s in j.soft if s is not None]
    return [v for v in j.votes if v is not None]


def _scores(j: PanelJudgment, rule: str) -> list[float]:
    if rule == "mean":
        return [s for s in j.soft if s is not None]
    return [OUTCOME_SCORE[v] for v in j.votes if v is not None]


def _rate(flags: list[bool], clusters: list[str], result: JuryResult) -> Rate | None:
    if not flags:
        return None
    values = [1.0 if f else 0.0 for f in flags]
    ci = bootstrap_mean(values, clusters, **result.boot, proportion=True)  # alike: alike_interval
    return Rate(sum(values) / len(values), ci, sum(flags), len(flags))


def _human(
    votes: Sequence[Outcome], done: Sequence[PanelJudgment], result: JuryResult
) -> AgreementResult | None:
    labelled = [(v, j) for v, j in zip(votes, done, strict=True) if j.item.human is not None]
    if not labelled:
        return None
    from fairjudge.stats import judge_agreement  # loads scipy: only for diagnostics

    return judge_agreement(
        [v.value for v, _ in labelled],
        [j.item.human.value for _, j in labelled if j.item.human is not None],
        questions=[j.item.cluster_key for _, j in labelled], **result.boot,
    )  # fmt: skip


def _leave_one_out(
    k: int, done: list[PanelJudgment], item_votes: list[list[Outcome]], result: JuryResult
) -> Rate | None:
    """Member ``k``'s agreement with the others; ``item_votes``: each item's :func:`_votes`."""
    rule = result.aggregation

    def others(readings: list[Any], weights: list[float]) -> Outcome:
        votes, soft = zip(*readings, strict=True)  # (vote under the rule, soft score) each
        return aggregate(votes, soft, weights, rule)[0]

    rows = [list(zip(v, j.soft, strict=True)) for v, j in zip(item_votes, done, strict=True)]
    pairs = leave_one_out(k, rows, result.weights, others)
    flags = [own[0] is rest for _, own, rest in pairs]
    return _rate(flags, [done[i].item.cluster_key for i, _, _ in pairs], result)


def _member(
    k: int, done: list[PanelJudgment], votes: list[list[Outcome]], result: JuryResult
) -> MemberDiagnostics:
    own = result.members[k]
    calls = [c for j in own.judgments for c in j.calls]
    usage = result.member_usage[k]
    replayed = usage is not None and usage.cached is None  # no call, so nothing cached
    return MemberDiagnostics(
        name=result.names[k],
        weight=result.weights[k],
        win_rate=own.win_rate,
        position_consistency=own.position_consistency,
        first_position_calls=own.first_position_calls,
        agreement_with_panel=_leave_one_out(k, done, votes, result),
        human=_human([v[k] for v in votes], done, result),
        calls=len(calls),
        cached=None if replayed else sum(c.reply.cached for c in calls),
        failed=sum(not c.reply.ok for c in calls),
        usage=usage,
    )


def jury_diagnostics(result: JuryResult) -> JuryDiagnostics:
    """Per-member and panel diagnostics of a jury result; no judge is called.

    The members' rates share their resampling plans (the same numbers, one draw).
    """
    with shared_resamples():
        return _diagnostics(result)


def _diagnostics(result: JuryResult) -> JuryDiagnostics:
    rule = result.aggregation
    done = [j for j in result.judgments if j.outcome is not None]
    clusters = [j.item.cluster_key for j in done]
    outcomes = [_votes(j, rule) for j in done]
    members = tuple(_member(k, done, outcomes, result) for k in range(len(result.names)))
    fleiss: FleissKappa | str = "no item was resolved by every member"
    n = len(result.names)
    agreement = tuple(tuple(float("nan") for _ in range(n)) for _ in range(n))
    if done:
        from fairjudge.stats import agreement_matrix, fleiss_kappa  # loads scipy

        votes = [[v.value for v in row] for row in outcomes]
        kappa = fleiss_kappa(votes, questions=clusters, **result.boot)
        # Chance agreement 1 (every vote one label): the statistic says why it is undefined.
        fleiss = (kappa.ci.reason or "undefined") if math.isnan(kappa.kappa) else kappa
        agreement = tuple(tuple(row) for row in agreement_matrix(votes))
    scores = [_scores(j, rule) for j in done]
    too_few = "needs at least two items resolved by every member"
    panel_votes = [j.outcome for j in done if j.outcome is not None]
    return JuryDiagnostics(
        members, len(done), fleiss, agreement, effective(scores, clusters, result.boot, too_few),
        _human(panel_votes, done, result),
    )  # fmt: skip
