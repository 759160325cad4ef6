"""The ``max_cost`` rule: which call may start, with its cost guess corrected as the run goes.

A call starts only if the spend so far, the calls in flight and this call, each at a
guess corrected by the usage replies report, fit ``max_cost``; the overspend this
allows is bounded by the calls in flight at the last start. The rule and its bound
are in ``docs/internals.md``. Nothing here does I/O or waits.
"""

from __future__ import annotations

from dataclasses import dataclass

from fairjudge._call import CallSpec
from fairjudge.runner._limits import Prices, estimate_tokens

__all__ = ["PRIOR_TOKEN_RATIO", "UNKNOWN_OUTPUT_TOKENS", "CallGuess", "CostBudget"]

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
    def of(cls, spec: CallSpec) -> CallGuess:
        """The guess for ``spec``."""
        return cls(*estimate_tokens(spec))


class CostBudget:
    """The ``max_cost`` rule of one run (see the module docstring for the rule and bound).

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
        self, guess: CallGuess, input_tokens: int | None = None, output_tokens: int = 0
    ) -> None:
        """An admitted call is over: with its charged tokens if it got a reply, else ``None``."""
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
        if guess.cap:
            self._cap += guess.cap
            self._capped_out += output_tokens
