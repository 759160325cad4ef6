"""A panel's member as configured: :class:`MemberSpec`, its settings and its prices.

A member comes from ``--judge`` or a jury file's ``[[member]]`` (whose keys are this
dataclass's fields, :mod:`fairjudge.judges._jury_file`). Its backend values fill in
from the panel's where it sets none; its prices, checked as the price flags are, are
charged to its calls alone (:func:`price_routes`, ``RunOptions.route_prices``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from fairjudge._call import Route, route_of
from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge.judges._registry import BackendOptions, calls_no_model
from fairjudge.runner import Prices, RunOptions

if TYPE_CHECKING:
    from fairjudge.judges._session import JudgeSession

__all__ = ["MODEL_SETTINGS", "PRICE_KEYS", "MemberSpec", "price_routes"]


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
