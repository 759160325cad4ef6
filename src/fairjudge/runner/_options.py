"""One frozen bundle of run options, validated once, passed whole from the CLI down.

Every command that calls a judge takes the same run options, so they are declared and
checked once: the CLI builds one :class:`RunOptions`, its constructor checks every
field and names the parameter at fault, and the session and the runner read it as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, get_args

from fairjudge._errors import ConfigError
from fairjudge.runner._limits import Prices, RetryPolicy
from fairjudge.runner._progress import ProgressMode, RunProgress

__all__ = ["RunOptions"]

_PROGRESS_MODES: tuple[str, ...] = get_args(ProgressMode)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How a run makes its calls: concurrency, rate limits, budgets, retries, progress.

    Attributes:
        concurrency: Calls in flight at most (a backend may cap it lower: an
            in-process model answers one call at a time).
        rpm: Requests per minute at most, retries included.
        tpm: Tokens per minute at most (estimated before a call, corrected after).
        max_calls: New (uncached) calls the session may make over its life.
        max_cost: Dollars the session may spend over its life (needs ``prices``).
            Calls in flight are reserved at a guess corrected by the usage replies
            report; the run overspends by at most what the calls in flight when the
            last one started cost beyond that guess (:mod:`fairjudge.runner._prices`).
        prices: Dollars per million input, cached input and output tokens, for
            every call's cost (:class:`~fairjudge.runner.Prices`).
        list_prices: Without ``prices``, price the calls of a model that
            fairjudge's dated list (:data:`fairjudge.runner._prices.LIST_PRICES`)
            names at its list price; other models stay unpriced. With ``max_cost``,
            every judge must then be priced one way or the other, or the first batch
            is refused before any call.
        retry: Retry policy for 429s, timeouts and server errors.
        progress: ``auto`` (a bar on a terminal, plain lines otherwise), ``rich``,
            ``plain``, ``quiet``, or a display object (:class:`RunProgress`).

    Raises:
        ConfigError: A field is out of range; the message names the parameter.

    Example:
        >>> RunOptions(concurrency=8, rpm=600).concurrency
        8
    """

    concurrency: int = 16
    rpm: float | None = None
    tpm: float | None = None
    max_calls: int | None = None
    max_cost: float | None = None
    prices: Prices | None = None
    list_prices: bool = True
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    progress: ProgressMode | RunProgress = "auto"

    def __post_init__(self) -> None:
        if not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise ConfigError(
                f"concurrency must be an integer >= 1; got {self.concurrency!r}",
                params="concurrency",
            )
        for name, value in (("rpm", self.rpm), ("tpm", self.tpm)):
            if value is not None and not value > 0:
                raise ConfigError(f"{name} must be > 0 when given; got {value!r}", params=name)
        if self.max_calls is not None and self.max_calls < 0:
            raise ConfigError(f"max_calls must be >= 0; got {self.max_calls!r}", params="max_calls")
        if self.max_cost is not None:
            if not self.max_cost >= 0:
                raise ConfigError(
                    f"max_cost must be >= 0; got {self.max_cost!r}", params="max_cost"
                )
            if self.prices is None and not self.list_prices:
                raise ConfigError(
                    "max_cost needs prices: pass prices=Prices(input, output), in dollars "
                    "per million input and output tokens (or list_prices=True, for a "
                    "model fairjudge's list prices)",
                    params="max_cost",
                )
        if isinstance(self.progress, str) and self.progress not in _PROGRESS_MODES:
            raise ConfigError(
                f"progress must be one of {', '.join(_PROGRESS_MODES)}; got {self.progress!r}"
            )

    @classmethod
    def build(
        cls,
        *,
        price_input: float | None = None,
        price_output: float | None = None,
        price_cached_input: float | None = None,
        quiet: bool = False,
        max_attempts: int | None = None,
        **fields: Any,
    ) -> RunOptions:
        """Build from command-line values: separate prices, ``quiet``, ``max_attempts``.

        The prices given replace the list prices for every call: ``price_input`` and
        ``price_output`` come together, and ``price_cached_input`` (default: the input
        price) needs them. Without them a model on fairjudge's dated list is priced
        from it, and ``max_cost`` needs every judge to be on it.

        Raises:
            ConfigError: Only one of the two prices is given, or a field is invalid.
        """
        if (price_input is None) != (price_output is None):
            given = "price_input" if price_input is not None else "price_output"
            missing = "price_output" if price_input is not None else "price_input"
            raise ConfigError(
                f"{given} needs {missing} too: cost is priced on both sides",
                params=(given, missing),
            )
        for name, value in (
            ("price_input", price_input),
            ("price_output", price_output),
            ("price_cached_input", price_cached_input),
        ):
            if value is not None and not 0 <= value < math.inf:  # NaN fails too
                raise ConfigError(
                    f"{name} must be a finite number >= 0 (dollars per million tokens); "
                    f"got {value!r}",
                    params=name,
                )
        if price_input is not None and price_output is not None:
            fields["prices"] = Prices(
                price_input, price_output, cached_input_per_million=price_cached_input
            )
        elif price_cached_input is not None:
            raise ConfigError(
                "price_cached_input needs price_input and price_output too: the prices "
                "given replace the list prices for every call",
                params=("price_cached_input", "price_input", "price_output"),
            )
        if quiet:
            fields["progress"] = "quiet"
        if max_attempts is not None:
            if max_attempts < 1:
                raise ConfigError(
                    f"max_attempts must be >= 1; got {max_attempts}", params="max_attempts"
                )
            fields["retry"] = RetryPolicy(max_attempts=max_attempts)
        return cls(**fields)

    @property
    def quiet(self) -> bool:
        """Whether progress is off."""
        return self.progress == "quiet"

    def remaining(self, calls_made: int, spent: float) -> RunOptions:
        """The same options with the budgets reduced by what a session already used."""
        return replace(
            self,
            max_calls=None if self.max_calls is None else max(0, self.max_calls - calls_made),
            max_cost=None if self.max_cost is None else max(0.0, self.max_cost - spent),
        )
