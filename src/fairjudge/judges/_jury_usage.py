"""What each member of a panel cost: calls, tokens, dollars and latency.

The per-member split comes from the store rows behind each member's replies; only
calls made in this run count, and a call two members share is charged to the first
that asked for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairjudge._types import Reply, never_made

if TYPE_CHECKING:
    from fairjudge.runner import RunSummary, Store

__all__ = ["MemberUsage", "function_usage", "model_usage", "no_model_usage"]


@dataclass(frozen=True, slots=True)
class MemberUsage:
    """One member's calls and what they cost in this run.

    Attributes:
        calls: Replies the member gave (one per planned call).
        made: Calls sent for it in this run, to a model's backend or to a Python
            judge's function (both run on the engine, and the panel's ``calls`` and
            budget count them); a call served from the store or already made for an
            earlier member is not made again. ``None`` for a member that answers
            without any call (a replay): there is nothing to make.
        cached: Replies served from the store, at no cost; ``None`` as for ``made``.
        input_tokens: Prompt tokens of the calls made.
        output_tokens: Completion tokens of the calls made.
        cost_usd: Estimated cost of the calls made; ``None`` when a made call's
            price was unknown (0 when nothing was made).
        latency_s: Mean seconds per call made (per reply, for a member that calls no
            model); ``None`` when there is none to measure.
        local: The member calls no model (a Python function, a replay): it has no
            tokens and nothing to pay for.
    """

    calls: int
    made: int | None
    cached: int | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    latency_s: float | None
    local: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "calls": self.calls,
            "made": self.made,
            "cached": self.cached,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            "mean_latency_s": self.latency_s,
            "answered_locally": self.local,
        }


def no_model_usage(replies: Sequence[Reply[object]], wall_s: float) -> MemberUsage:
    """A member answered in this process without a call (a replay): nothing made or spent."""
    latency = wall_s / len(replies) if replies else None
    return MemberUsage(len(replies), None, None, 0, 0, 0.0, latency, local=True)


def function_usage(
    replies: Sequence[Reply[object]], run: RunSummary | None, wall_s: float
) -> MemberUsage:
    """A Python judge's calls of its function on the engine: made or cached, never paid.

    ``run`` is the judge's own run of this batch (``None``: it ran none), the run the
    panel's ``calls`` adds up, so the members' ``made`` add up to the panel's.
    """
    latency = wall_s / len(replies) if replies else None
    made, cached = (run.made, run.cached) if run is not None else (0, 0)
    return MemberUsage(len(replies), made, cached, 0, 0, 0.0, latency, local=True)


def model_usage(replies: Sequence[Reply[object]], store: Store, charged: set[str]) -> MemberUsage:
    """A model member's usage from its calls' rows in the store.

    Args:
        replies: The member's replies, each with its store key.
        store: The session's store, which holds a row for every call made.
        charged: Keys already charged to an earlier member (updated here).
    """
    made: list[str] = []
    for reply in replies:
        key = reply.key
        if key is None or reply.cached or never_made(reply.failure) or key in charged:
            continue
        charged.add(key)
        made.append(key)
    n_in = n_out = 0
    cost: float | None = 0.0
    latencies: list[float] = []
    rows = store.usage_rows(made)
    for key in made:
        row = rows.get(key)
        if row is None:  # the row is written before the reply returns; be safe anyway
            cost = None
            continue
        status, row_in, row_out, latency, row_cost = row
        n_in += row_in or 0
        n_out += row_out or 0
        if status == "ok" and latency is not None:
            latencies.append(latency)
        if row_cost is not None:
            cost = None if cost is None else cost + row_cost
        elif status == "ok":  # a reply with no price: the sum is unknown
            cost = None
    return MemberUsage(
        calls=len(replies),
        made=len(made),
        cached=sum(r.cached for r in replies),
        input_tokens=n_in,
        output_tokens=n_out,
        cost_usd=cost,
        latency_s=sum(latencies) / len(latencies) if latencies else None,
    )
