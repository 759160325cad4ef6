"""A panel's reply to one call: the members' replies to that call, aggregated.

This makes a :class:`~fairjudge.judges.Jury` a judge like any other: the members'
verdicts vote by weight (a strict majority wins, else a tie), probabilities are
averaged, and the swap protocol then debiases the panel as one judge. A failed member
does not vote; a panel without a majority of the weight fails the call, never a tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from fairjudge._types import CallError, ParseFailure, Probabilities, Reply, Verdict, never_made

__all__ = ["PANEL_FAILED", "panel_reply", "weighted_majority"]

L = TypeVar("L")

PANEL_FAILED = "JuryMembersFailed"
"""The :class:`~fairjudge.CallError` kind of a panel call whose members failed in
different ways (call errors of one kind keep that kind)."""

_ONE_HOT = {
    Verdict.A: Probabilities(1.0, 0.0, 0.0),
    Verdict.B: Probabilities(0.0, 1.0, 0.0),
    Verdict.TIE: Probabilities(0.0, 0.0, 1.0),
}


def panel_reply(replies: Sequence[Reply], names: Sequence[str], weights: Sequence[float]) -> Reply:
    """The panel's reply to one call from each member's reply to it.

    Args:
        replies: Each member's reply to the call, in member order.
        names: The members' names, for the payload and failure messages.
        weights: The members' weights (> 0).

    Returns:
        A reply with the panel's verdict (and probabilities, when any member gave
        them), or a failure when the members that answered hold no more than half
        of the weight.

    Example:
        >>> a, b = Reply(Verdict.A), Reply(Verdict.B)
        >>> panel_reply([a, a, b], ["x", "y", "z"], [1, 1, 1]).verdict
        <Verdict.A: 'A'>
    """
    answered = [k for k, r in enumerate(replies) if r.verdict is not None]
    total = float(sum(weights))
    held_total = float(sum(weights[k] for k in answered))
    if held_total <= total / 2:
        return _failure(replies, names, weights, answered)
    votes = [replies[k].verdict for k in answered]
    verdict = weighted_majority(votes, [weights[k] for k in answered], held_total, list(Verdict),
                                Verdict.TIE)  # fmt: skip
    members = {
        n: (r.verdict.value if r.verdict is not None else None)
        for n, r in zip(names, replies, strict=True)
    }
    return Reply(
        verdict=verdict,
        probabilities=_mean_probabilities(
            [replies[k] for k in answered], [weights[k] for k in answered]
        ),
        cached=all(replies[k].cached for k in answered),
        payload={"members": members},
    )


def weighted_majority(
    votes: Sequence[L], weights: Sequence[float], total: float, labels: Sequence[L], tie: L
) -> L:
    """The label whose voters hold more than half of ``total``; else ``tie``.

    The one vote of every panel: a jury's verdict on a call here, and its debiased
    outcome on an item (:func:`fairjudge.evaluation._panel.aggregate`).
    """
    held = dict.fromkeys(labels, 0.0)
    for vote, weight in zip(votes, weights, strict=True):
        held[vote] += weight
    best = max(held, key=held.__getitem__)
    return best if held[best] > total / 2 else tie


def _mean_probabilities(replies: Sequence[Reply], weights: Sequence[float]) -> Probabilities | None:
    """Weighted mean of normalised probabilities; ``None`` when no member gave any."""
    if all(r.probabilities is None for r in replies):
        return None
    a = b = tie = 0.0
    for reply, w in zip(replies, weights, strict=True):
        if reply.probabilities is not None:
            p = reply.probabilities.normalized()
        else:
            assert reply.verdict is not None  # only answered members are averaged
            p = _ONE_HOT[reply.verdict]
        a, b, tie = a + w * p.a, b + w * p.b, tie + w * p.tie
    scale = a + b + tie  # the weights' sum; dividing by it also keeps the sum <= 1
    return Probabilities(a / scale, b / scale, tie / scale)


def _why(reply: Reply) -> str:
    failure = reply.failure
    if isinstance(failure, ParseFailure):
        return f"parse failure: {failure.reason}"
    if isinstance(failure, CallError):
        return f"{failure.kind}: {failure.message}"
    return "no verdict in its reply"


def _failure(
    replies: Sequence[Reply], names: Sequence[str], weights: Sequence[float], answered: list[int]
) -> Reply:
    """The panel's failed call: names every member that failed, and why."""
    failed = [k for k in range(len(replies)) if k not in answered]
    lost = sum(weights[k] for k in failed)
    detail = "; ".join(f"{names[k]} ({_why(replies[k])})" for k in failed)
    message = (
        f"jury members failed on this call, holding {lost:g} of the panel's weight "
        f"{sum(weights):g} (more than half must answer): {detail}"
    )
    failures = [replies[k].failure for k in failed]
    calls = [f for f in failures if isinstance(f, CallError)]
    if any(never_made(f) for f in calls):
        # A budget stopped the run: the call is "not yet made", never an error.
        return Reply(verdict=None, failure=CallError("NotRun", message))
    if failures and all(isinstance(f, ParseFailure) for f in failures):
        raw = replies[failed[0]].raw or ""
        return Reply(verdict=None, raw=raw, failure=ParseFailure(raw, message))
    kinds = {f.kind for f in calls}
    kind = kinds.pop() if len(kinds) == 1 and len(calls) == len(failures) else PANEL_FAILED
    return Reply(verdict=None, failure=CallError(kind, message))
