"""A panel's member: as configured (:class:`MemberSpec`), and what it cost (:class:`MemberUsage`).

A member comes from ``--judge`` or a jury file's ``[[member]]`` (whose keys are
:class:`MemberSpec`'s fields, :mod:`fairjudge.judges._jury_file`). Its backend values
fill in from the panel's where it sets none; its prices, checked as the price flags
are, are charged to its calls alone (:func:`price_routes`, ``RunOptions.route_prices``).

The per-member split of the cost comes from the store rows behind each member's
replies; only calls made in this run count, and a call two members share is charged
to the first that asked for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from fairjudge._call import Route, route_of
from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge._types import Reply, never_made
from fairjudge.judges._registry import BackendOptions, calls_no_model
from fairjudge.runner import Prices, RunOptions

if TYPE_CHECKING:
    from fairjudge.judges._session import JudgeSession
    from fairjudge.runner import RunSummary, Store

__all__ = [
    "MODEL_SETTINGS", "PRICE_KEYS", "MemberSpec", "MemberUsage", "function_usage",
    "model_usage", "no_model_usage", "price_routes",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class MemberSpec:
    """One member as configured (``--judge`` or a ``[[member]]`` of a jury file).

    Attributes:
        judge: A ``--judge`` spec: ``openai/<model>``, ``python:module:function``, ...
        name: How reports name the member; default the spec (``#2``, ``#3`` added to
            repeats).
        template: The member's prompt template (model members only).
        weight: The member's weight in the aggregate (> 0).
        base_url: Server URL (``openai/`` and ``anthropic/`` members).
        temperature: Sampling temperature of the member's calls.
        timeout: Seconds to wait for one reply (HTTP and ``python:`` members).
        reasoning_effort: ``reasoning_effort`` of an ``openai/`` reasoning model.
        thinking_budget: Extended-thinking budget in tokens of an ``anthropic/`` model.
        max_tokens: Output cap of the member's calls (reasoning included).
        price_input: $ per 1M input tokens of the member's calls, with
            ``price_output``: its own price, for a model fairjudge's list does not
            price (a self-hosted or new one) or priced otherwise; the panel's other
            members keep theirs. Checked as the ``price_input`` flag is.
        price_output: $ per 1M output tokens (reasoning included), with ``price_input``.
        price_cached_input: $ per 1M input tokens read from the prompt cache (at most
            ``price_input``; default ``price_input``); needs the other two.

    Members calling the same model at the same server share its price: the one that
    one of them gives (two different ones are refused).
    """

    judge: str
    name: str | None = None
    template: str | None = None
    weight: float = 1.0
    base_url: str | None = None
    temperature: float | None = None
    timeout: float | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    max_tokens: int | None = None
    price_input: float | None = None
    price_output: float | None = None
    price_cached_input: float | None = None

    @property
    def is_python(self) -> bool:
        """Whether the member calls no model (a Python callable or a replay), so no session."""
        return calls_no_model(self.judge)

    def with_defaults(
        self, *, template: str | None = None, backend: BackendOptions | None = None
    ) -> MemberSpec:
        """A model member with these settings where it sets none; others as they are.

        ``backend``'s values of the member's fields (``base_url``, ``temperature``,
        ``timeout``, ``reasoning_effort``, ``thinking_budget``, ``max_tokens``) fill
        those the member leaves unset; a value the member sets is its own. A
        ``python:`` member takes the ``timeout`` alone (a replay, nothing).
        """
        given = backend or BackendOptions()
        if self.is_python:
            python = self.judge.strip().startswith("python:")
            return replace(self, timeout=given.timeout) if python and self.timeout is None else self
        unset = {name: getattr(given, name) for name in _BACKEND_FIELDS
                 if getattr(self, name) is None}  # fmt: skip
        return replace(self, template=self.template or template, **unset)

    def backend_options(self) -> BackendOptions:
        """The member's backend options, checked as a judge's (:class:`BackendOptions`)."""
        return BackendOptions(
            self.base_url, None, None, self.temperature, self.timeout,
            reasoning_effort=self.reasoning_effort, thinking_budget=self.thinking_budget,
            max_tokens=self.max_tokens,
        )  # fmt: skip

    def prices(self) -> Prices | None:
        """The member's own prices, checked as the price flags are; ``None`` when it gives none.

        Raises:
            ConfigError: Only one of ``price_input`` and ``price_output``, a price below
                0, or a cached price above the input price (names the keys).
        """
        given = {key: value for key in PRICE_KEYS if (value := getattr(self, key)) is not None}
        return RunOptions.build(**given).prices if given else None

    def named(self, error: ConfigError) -> FairJudgeError:
        """``error``, raised as the member was built, naming where its values were set.

        A spec given in code keeps the parameters' names; a jury file's member
        names the file, the line and the key (:func:`~fairjudge.judges.load_jury_file`).
        """
        return error


PRICE_KEYS = ("price_input", "price_output", "price_cached_input")
"""A member's own prices, named as the flags (``--price-input``...) are."""

_BACKEND_FIELDS = (
    "base_url", "temperature", "timeout", "reasoning_effort", "thinking_budget", "max_tokens",
)  # fmt: skip
"""The :class:`BackendOptions` a member sets for itself (a panel's fill those it leaves unset)."""


MODEL_SETTINGS = (
    "template", "base_url", "temperature", "reasoning_effort", "thinking_budget", "max_tokens",
    *PRICE_KEYS,
)  # fmt: skip
"""A member's settings for a model's calls: a ``python:`` member takes none of them."""


def price_routes(
    session: JudgeSession, specs: Sequence[MemberSpec], members: Sequence[Any]
) -> None:
    """Charge each priced member's calls its own prices (:attr:`RunOptions.route_prices`).

    Raises:
        ConfigError: Two members on one route (the same model at the same server)
            give different prices; named as the second one's keys.
    """
    priced: dict[Route, tuple[Prices, str]] = {}
    for spec, member in zip(specs, members, strict=True):
        prices, backend = spec.prices(), getattr(member.judge, "backend", None)
        if prices is None or backend is None:
            continue
        route = route_of(backend)
        earlier = priced.setdefault(route, (prices, member.name))
        if earlier[0] != prices:
            error = ConfigError(
                f"members {earlier[1]!r} and {member.name!r} call the same model at the same "
                f"server ({route[0]}/{route[1]}), which has one price; give them the same "
                "prices, or give them once",
                params=tuple(k for k in PRICE_KEYS if getattr(spec, k) is not None),
            )
            raise spec.named(error)
    if priced:
        own = {**dict(session.options.route_prices), **{r: p for r, (p, _) in priced.items()}}
        session.options = replace(session.options, route_prices=tuple(own.items()))


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
        reasoning_tokens: Of ``output_tokens``, the hidden reasoning tokens of the
            calls made; ``None`` (not reported) when a reply did not say its own (an
            Anthropic model that thought: its usage counts thinking in the output
            tokens, not apart). 0 for a member that calls no model.
    """

    calls: int
    made: int | None
    cached: int | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    latency_s: float | None
    local: bool = False
    reasoning_tokens: int | None = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``reasoning_tokens``: ``null`` when not reported)."""
        return {
            "calls": self.calls,
            "made": self.made,
            "cached": self.cached,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
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
    reasoning: int | None = 0  # None once a reply did not report its own
    cost: float | None = 0.0
    latencies: list[float] = []
    rows = store.usage_rows(made)
    for key in made:
        row = rows.get(key)
        if row is None:  # the row is written before the reply returns; be safe anyway
            cost = reasoning = None
            continue
        status, row_in, row_out, latency, row_cost, row_reasoning = row
        n_in += row_in or 0
        n_out += row_out or 0
        if status == "ok" or row_out is not None:  # a reply, as the run's ledger counts it
            reasoning = None if reasoning is None or row_reasoning is None else (
                reasoning + row_reasoning)  # fmt: skip
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
        reasoning_tokens=reasoning,
    )
