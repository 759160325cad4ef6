"""What each member adds to a panel, and how much the panel agrees with itself.

It calls no judge: the figures are read off a :class:`JuryResult`, so a dissenting
member shows up (leave-one-out agreement) at no cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairjudge._types import OUTCOME_SCORE, Outcome
from fairjudge.evaluation._jury import JuryResult, PanelJudgment
from fairjudge.evaluation._panel import aggregate, effective, lean, leave_one_out, skipped_or_dict
from fairjudge.evaluation._results import Rate, WinRate
from fairjudge.stats import (
    AgreementResult,
    EffectiveJudges,
    FleissKappa,
    agreement_matrix,
    bootstrap_mean,
    fleiss_kappa,
    judge_agreement,
    shared_resamples,
)

if TYPE_CHECKING:
    from fairjudge.judges import MemberUsage

__all__ = ["JuryDiagnostics", "MemberDiagnostics", "jury_diagnostics"]


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
        cached: Of those, served from the store (0 for Python members).
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
    cached: int
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
    ci = bootstrap_mean(values, clusters, **result.boot)
    return Rate(sum(values) / len(values), ci, sum(flags), len(flags))


def _human(
    votes: Sequence[Outcome], done: Sequence[PanelJudgment], result: JuryResult
) -> AgreementResult | None:
    labelled = [(v, j) for v, j in zip(votes, done, strict=True) if j.item.human is not None]
    if not labelled:
        return None
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
    return MemberDiagnostics(
        name=result.names[k],
        weight=result.weights[k],
        win_rate=own.win_rate,
        position_consistency=own.position_consistency,
        first_position_calls=own.first_position_calls,
        agreement_with_panel=_leave_one_out(k, done, votes, result),
        human=_human([v[k] for v in votes], done, result),
        calls=len(calls),
        cached=sum(c.reply.cached for c in calls),
        failed=sum(not c.reply.ok for c in calls),
        usage=result.member_usage[k],
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
        votes = [[v.value for v in row] for row in outcomes]
        fleiss = fleiss_kappa(votes, questions=clusters, **result.boot)
        agreement = tuple(tuple(row) for row in agreement_matrix(votes))
    scores = [_scores(j, rule) for j in done]
    too_few = "needs at least two items resolved by every member"
    panel_votes = [j.outcome for j in done if j.outcome is not None]
    return JuryDiagnostics(
        members, len(done), fleiss, agreement, effective(scores, clusters, result.boot, too_few),
        _human(panel_votes, done, result),
    )  # fmt: skip
