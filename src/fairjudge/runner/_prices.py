"""The cost of a run: list prices, the ``max_cost`` rule, and what each call is charged.

A call starts only if the spend so far, the calls in flight and this call, each at a
guess corrected by the usage replies report, fit ``max_cost`` (:class:`CostBudget`;
the rule and its overspend bound are in ``docs/internals.md``). Each fresh reply is
then charged every token class at its own price (batch replies at
:data:`BATCH_PRICE_FACTOR`); list prices apply only when the run allows them, and a
reply whose usage cannot be believed is charged its estimate, never less.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fairjudge._call import CallSpec, Completion, Route
from fairjudge._errors import ConfigError
from fairjudge.runner._limits import Prices, estimate_tokens, text_tokens

__all__ = [
    "BATCH_PRICE_FACTOR",
    "LIST_PRICES",
    "LIST_PRICES_DATE",
    "PRIOR_TOKEN_RATIO",
    "UNKNOWN_OUTPUT_TOKENS",
    "CallGuess",
    "Charge",
    "CostBudget",
    "Pricing",
    "charge",
    "list_price",
]

PRIOR_TOKEN_RATIO = 8.0
"""Input tokens assumed per estimated token until a reply reports the true count."""
UNKNOWN_OUTPUT_TOKENS = 256
"""Output tokens assumed for a call with no ``max_tokens`` until a reply reports some."""


@dataclass(frozen=True, slots=True)
class CallGuess:
    """A call's size as guessed before it is made.

    Attributes:
        input: Estimated input tokens (characters over four, plus four per message).
        cap: The call's ``max_tokens``; 0 when it sets none.
    """

    input: int
    cap: int

    @classmethod
    def of(cls, spec: CallSpec, params: Mapping[str, Any] | None = None) -> CallGuess:
        """The guess for ``spec``; its cap from ``params`` when given (as sent, see below).

        A model the capability table does not know is sent what its refusals taught
        (``max_tokens`` becomes ``max_completion_tokens`` with room to reason), so
        its cap on the wire is not the spec's: the engine passes the parameters as
        the backend sends them now.
        """
        return cls(*estimate_tokens(spec, params))


class CostBudget:
    """The ``max_cost`` rule of one run (see ``docs/internals.md`` for the rule and its bound).

    Args:
        max_cost: Dollars the run may spend.
        prices: Dollars per million input and output tokens.
        prior_ratio: The input ratio assumed before the first reply.
    """

    def __init__(
        self, max_cost: float, prices: Prices, prior_ratio: float = PRIOR_TOKEN_RATIO
    ) -> None:
        self.max_cost = max_cost
        self.prices = prices
        self.prior_ratio = prior_ratio
        self.replies = 0  # settled calls that came back with a reply
        self._est_in = self._charged_in = 0  # over those replies
        self._cap = self._capped_out = 0  # over those replies whose call set max_tokens
        self._charged_out = 0  # over all replies
        self.in_flight = 0
        self._flight_in = self._flight_cap = self._flight_uncapped = 0

    # -- the corrected guess -------------------------------------------------------------

    def input_ratio(self) -> float:
        """Charged input tokens per estimated one, so far (the prior before any reply)."""
        return self._charged_in / self._est_in if self._est_in else self.prior_ratio

    def _cap_ratio(self) -> float:
        return self._capped_out / self._cap if self._cap else 1.0

    def _mean_out(self) -> float:
        return self._charged_out / self.replies if self.replies else UNKNOWN_OUTPUT_TOKENS

    def _cost(self, n_in: float, n_cap: float, n_uncapped: float, raw: bool = False) -> float:
        if raw:
            n_out = n_cap + n_uncapped * UNKNOWN_OUTPUT_TOKENS
        else:
            n_in *= self.input_ratio()
            n_out = n_cap * self._cap_ratio() + n_uncapped * self._mean_out()
        p = self.prices
        return (n_in * p.input_per_million + n_out * p.output_per_million) / 1e6

    def corrected(self, guess: CallGuess) -> float:
        """The call's cost at the current ratios (its ``ĉ``)."""
        return self._cost(guess.input, guess.cap, 0 if guess.cap else 1)

    def reserved(self) -> float:
        """The calls in flight, at the current ratios."""
        return self._cost(self._flight_in, self._flight_cap, self._flight_uncapped)

    # -- the rule ----------------------------------------------------------------------------

    def admit(self, guess: CallGuess, spent: float) -> bool:
        """Whether the call may start, given ``spent`` so far; if so, it is now in flight.

        Example:
            >>> budget = CostBudget(1.0, Prices(1_000_000, 0))  # $1 per input token
            >>> budget.admit(CallGuess(input=1, cap=0), spent=0.0)  # the probe, at 1x
            True
            >>> budget.admit(CallGuess(input=1, cap=0), spent=0.0)  # 8 + 8 > 1: wait
            False
        """
        probe = self.replies == 0 and self.in_flight == 0
        n_uncapped = 0 if guess.cap else 1
        need = self._cost(guess.input, guess.cap, n_uncapped, raw=probe)
        if spent + self.reserved() + need > self.max_cost:
            return False
        self.in_flight += 1
        self._flight_in += guess.input
        self._flight_cap += guess.cap
        self._flight_uncapped += n_uncapped
        return True

    def settle(
        self,
        guess: CallGuess,
        input_tokens: int | None = None,
        output_tokens: int = 0,
        *,
        sent_cap: int | None = None,
    ) -> None:
        """An admitted call is over: with its charged tokens if it got a reply, else ``None``.

        ``sent_cap`` is the cap the call went out with, when that is not ``guess.cap``
        (the call taught a lesson that changed it, as an unknown model's first call
        does): the output ratio is learned against what was sent, the basis later
        guesses are made on (:meth:`CallGuess.of` with the parameters as sent).
        """
        self.in_flight -= 1
        self._flight_in -= guess.input
        self._flight_cap -= guess.cap
        self._flight_uncapped -= 0 if guess.cap else 1
        if input_tokens is None:
            return
        self.replies += 1
        self._est_in += guess.input
        self._charged_in += input_tokens
        self._charged_out += output_tokens
        cap = guess.cap if sent_cap is None else sent_cap
        if cap:
            self._cap += cap
            self._capped_out += output_tokens


BATCH_PRICE_FACTOR = 0.5
"""What a batch-API call costs, as a share of the online price (OpenAI and Anthropic)."""

LIST_PRICES_DATE = "2025-11-01"
"""When :data:`LIST_PRICES` was checked against the providers' pricing pages."""


def _openai(inp: float, cached: float, out: float) -> Prices:
    # OpenAI charges nothing for writing its cache (and never reports a write).
    return Prices(inp, out, cached_input_per_million=cached, cache_write_per_million=inp)


def _anthropic(inp: float, write: float, read: float, out: float) -> Prices:
    return Prices(inp, out, cached_input_per_million=read, cache_write_per_million=write)


LIST_PRICES: Mapping[tuple[str, str], Prices] = {
    # OpenAI: input, cached input, output.
    ("openai", "gpt-5"): _openai(1.25, 0.125, 10.0),
    ("openai", "gpt-5-mini"): _openai(0.25, 0.025, 2.0),
    ("openai", "gpt-5-nano"): _openai(0.05, 0.005, 0.4),
    # gpt-5.1 and gpt-5.2 as OpenAI's GPT-5.2 launch page gives them (quoted in
    # https://benchlm.ai/blog/posts/openai-api-pricing; gpt-5.1 also in
    # https://koishiai.com/en/articles/openai-gpt-5-1-api-pricing-limits).
    ("openai", "gpt-5.1"): _openai(1.25, 0.125, 10.0),
    ("openai", "gpt-5.2"): _openai(1.75, 0.175, 14.0),
    ("openai", "o1"): _openai(15.0, 7.5, 60.0),
    ("openai", "o1-mini"): _openai(1.1, 0.55, 4.4),
    ("openai", "o3"): _openai(2.0, 0.5, 8.0),
    ("openai", "o3-mini"): _openai(1.1, 0.55, 4.4),
    ("openai", "o4-mini"): _openai(1.1, 0.275, 4.4),
    ("openai", "gpt-4o"): _openai(2.5, 1.25, 10.0),
    ("openai", "gpt-4o-mini"): _openai(0.15, 0.075, 0.6),
    ("openai", "gpt-4.1"): _openai(2.0, 0.5, 8.0),
    ("openai", "gpt-4.1-mini"): _openai(0.4, 0.1, 1.6),
    ("openai", "gpt-4.1-nano"): _openai(0.1, 0.025, 0.4),
    # Anthropic: input, 5-minute cache write (1.25x), cache read (0.1x), output.
    # Opus 4.6 and 4.7 and Sonnet 4.6 at Opus 4.5's and Sonnet 4.5's prices (Sonnet 4.6:
    # https://platform.claude.com/docs/en/models/sonnet-4-6/overview; Opus 4.6 and 4.7 as
    # Anthropic's pricing page is tabled in
    # https://docs.rs/synaps/0.10.2/synaps_cli/pricing/index.html and
    # https://aiunpacker.com/blog/claude-ai-for-developers-api-integration-and-best-practices).
    ("anthropic", "claude-opus-4-7"): _anthropic(5.0, 6.25, 0.5, 25.0),
    ("anthropic", "claude-opus-4-6"): _anthropic(5.0, 6.25, 0.5, 25.0),
    ("anthropic", "claude-sonnet-4-6"): _anthropic(3.0, 3.75, 0.3, 15.0),
    ("anthropic", "claude-opus-4-5"): _anthropic(5.0, 6.25, 0.5, 25.0),
    ("anthropic", "claude-opus-4-1"): _anthropic(15.0, 18.75, 1.5, 75.0),
    ("anthropic", "claude-opus-4"): _anthropic(15.0, 18.75, 1.5, 75.0),
    ("anthropic", "claude-opus-4-0"): _anthropic(15.0, 18.75, 1.5, 75.0),
    ("anthropic", "claude-sonnet-4-5"): _anthropic(3.0, 3.75, 0.3, 15.0),
    ("anthropic", "claude-sonnet-4"): _anthropic(3.0, 3.75, 0.3, 15.0),
    ("anthropic", "claude-sonnet-4-0"): _anthropic(3.0, 3.75, 0.3, 15.0),
    ("anthropic", "claude-3-7-sonnet"): _anthropic(3.0, 3.75, 0.3, 15.0),
    ("anthropic", "claude-haiku-4-5"): _anthropic(1.0, 1.25, 0.1, 5.0),
    ("anthropic", "claude-3-5-haiku"): _anthropic(0.8, 1.0, 0.08, 4.0),
}
"""List prices by ``(backend, model)``, dated :data:`LIST_PRICES_DATE`."""

# A snapshot's suffix: a date (2024-08-06, 20250929) or "latest".
_SNAPSHOT = re.compile(r"-(?:\d{4}-?\d{2}-?\d{2}|latest)$")


def list_price(backend: str, model: str) -> Prices | None:
    """The list price of ``model`` on ``backend``, or ``None`` when the table lacks it.

    Example:
        >>> list_price("openai", "gpt-4o-mini-2024-07-18").output_per_million
        0.6
        >>> list_price("openai", "my-finetune") is None
        True
    """
    found = LIST_PRICES.get((backend, model))
    if found is None:
        found = LIST_PRICES.get((backend, _SNAPSHOT.sub("", model)))
    return found


class Pricing:
    """The prices of one run's routes, and the ceiling ``max_cost`` reserves at.

    Args:
        prices: Prices for every call (the user's), or ``None``.
        use_list: Price the models :data:`LIST_PRICES` names when ``prices`` is ``None``.
        routes: The routes the run may call.
        max_cost: The run's budget; with one, every route must have a price.
        own: Prices of particular routes, in place of ``prices`` and the list's
            (:attr:`~fairjudge.runner.RunOptions.route_prices`).

    Raises:
        ConfigError: ``max_cost`` is set and a route has no price (names the model
            and the parameters that give one).
    """

    def __init__(
        self,
        prices: Prices | None,
        *,
        use_list: bool,
        routes: Iterable[Route],
        max_cost: float | None,
        own: Mapping[Route, Prices] | None = None,
    ) -> None:
        self._by_route: dict[Route, Prices | None] = {}
        for route in routes:
            found = (own or {}).get(route, prices)
            if found is None and use_list:
                found = list_price(route[0], route[1])
            self._by_route[route] = found
        missing = [f"{r[0]}/{r[1]}" for r, p in self._by_route.items() if p is None]
        if max_cost is not None and missing:
            raise ConfigError(
                "max_cost needs prices: give price_input and price_output (dollars per "
                f"million input and output tokens); fairjudge's list prices "
                f"({LIST_PRICES_DATE}) do not name {', '.join(sorted(missing))}",
                params=("max_cost", "price_input", "price_output"),
            )

    def of(self, spec: CallSpec) -> Prices | None:
        """The prices of the call's route (``None``: unpriced)."""
        return self._by_route.get(spec.route)

    def of_route(self, route: Route) -> Prices | None:
        """The prices of ``route`` (``None``: unpriced)."""
        return self._by_route.get(route)

    @property
    def priced(self) -> bool:
        """Whether any route has a price (so the run reports a cost)."""
        return any(p is not None for p in self._by_route.values())

    def ceiling(self) -> Prices | None:
        """Each token class at its highest price over the routes (``None`` if none is priced).

        ``max_cost`` reserves calls in flight at these, so a run whose judges have
        different prices never reserves less than a call can cost.
        """
        known = [p for p in self._by_route.values() if p is not None]
        if not known:
            return None
        return Prices(
            max(p.input_per_million for p in known),
            max(p.output_per_million for p in known),
            cached_input_per_million=max(p.cached_input for p in known),
            cache_write_per_million=max(p.cache_write for p in known),
        )


@dataclass(frozen=True, slots=True)
class Charge:
    """What one fresh reply is charged.

    Attributes:
        input_tokens: Prompt tokens charged (reported, or estimated).
        output_tokens: Completion tokens charged, reasoning included.
        cached_input_tokens: Of the prompt, tokens charged at the cached price.
        cache_write_tokens: Of the prompt, tokens charged at the cache-write price.
        reasoning_tokens: Of the completion, the reasoning tokens reported.
        cost_usd: Dollars, when the call has a price.
        saved_usd: What the prompt cache saved against the input price (a cache
            write costs more, so this can be below 0); 0 without a price.
        believed: The server's usage figures were used (not an estimate for them).
    """

    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = None
    saved_usd: float = 0.0
    believed: bool = True


def charge(
    completion: Completion, guess: CallGuess, prices: Prices | None, input_ratio: float = 1.0
) -> Charge:
    """What ``completion`` costs (see the module docstring for the rules).

    Args:
        completion: A fresh reply.
        guess: The call's size as guessed before it was made.
        prices: The call's prices, or ``None`` (tokens are still counted).
        input_ratio: Reported prompt tokens per guessed one so far in the run; an
            estimated prompt is the guess times this, when it is above 1.
    """
    c = completion
    if c.usage_problem is not None:
        est_in = math.ceil(guess.input * max(1.0, input_ratio))
        est_out = max(guess.cap or UNKNOWN_OUTPUT_TOKENS, text_tokens(c.text))
        n_in = max(est_in, c.input_tokens or 0)
        n_out = max(est_out, c.output_tokens or 0)
        cost = None if prices is None else prices.cost(n_in, n_out)
        if cost is not None and c.batch:
            cost *= BATCH_PRICE_FACTOR
        return Charge(n_in, n_out, cost_usd=cost, believed=False)
    # A backend that reports no usage at all (an in-process model, a custom backend)
    # is guessed as before: the prompt from its characters, the reply from its text.
    n_in = guess.input if c.input_tokens is None else c.input_tokens
    n_out = text_tokens(c.text) if c.output_tokens is None else c.output_tokens
    cached = min(c.cached_input_tokens or 0, n_in)
    written = min(c.cache_write_tokens or 0, n_in - cached)
    reasoning = min(c.reasoning_tokens or 0, n_out)
    if prices is None:
        return Charge(n_in, n_out, cached, written, reasoning)
    factor = BATCH_PRICE_FACTOR if c.batch else 1.0
    cost = prices.cost(n_in, n_out, cached, written) * factor
    saved = prices.cost(n_in, n_out) * factor - cost
    return Charge(n_in, n_out, cached, written, reasoning, cost, saved)
