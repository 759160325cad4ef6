"""How a run makes its calls: :class:`RunOptions`, and the arithmetic of its limits.

The CLI builds one frozen :class:`RunOptions`, checked field by field in its
constructor, and the session and runner read it whole. The limits' rules (retry
delays, rate-limit buckets, token estimates, prices) neither sleep nor read a clock:
callers pass ``now`` and get back how long to wait, so each is tested exactly.
"""

from __future__ import annotations

import math
import os
import random
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, get_args

from fairjudge._call import CallSpec, Route
from fairjudge._errors import BackendError, ConfigError, EndpointUnreachable, RateLimitError
from fairjudge.runner._progress import ProgressMode, RunProgress

__all__ = [
    "CACHE_WRITE_MARKUP",
    "DEFAULT_GRACE_S",
    "GRACEFUL_STOP",
    "GRACE_ENV",
    "Prices",
    "RetryPolicy",
    "RunOptions",
    "TokenBucket",
    "estimate_tokens",
    "interrupt_grace_s",
    "text_tokens",
]

_CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text and BPE tokenizers
_TOKENS_PER_MESSAGE = 4  # role markers and separators around each chat message
_PROGRESS_MODES: tuple[str, ...] = get_args(ProgressMode)

GRACE_ENV = "FAIRJUDGE_INTERRUPT_GRACE"
"""The environment variable that sets :func:`interrupt_grace_s`, in seconds."""
DEFAULT_GRACE_S = 5.0
"""Half of the 10 s ``docker stop`` leaves between its SIGTERM and its SIGKILL."""


def interrupt_grace_s(environ: Mapping[str, str] | None = None) -> float:
    """How long an interrupted run waits for its calls in flight: ``$FAIRJUDGE_INTERRUPT_GRACE``.

    A Ctrl-C or SIGTERM starts no new call; the calls already sent are billed
    whether or not their replies are waited for, so the run waits up to this many
    seconds (:data:`DEFAULT_GRACE_S` when the variable is unset or empty) for them,
    and each reply that arrives is stored as any other. ``0`` waits for none.

    Raises:
        ConfigError: The variable is set to something other than a number of
            seconds, 0 or more.
    """
    text = (os.environ if environ is None else environ).get(GRACE_ENV, "").strip()
    if not text:
        return DEFAULT_GRACE_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (0 <= seconds < math.inf):
        raise ConfigError(
            f"{GRACE_ENV}={text!r} is not a number of seconds: it is how long a Ctrl-C or "
            f"SIGTERM waits for the calls in flight ({DEFAULT_GRACE_S:g} by default, 0 to "
            "wait for none)"
        )
    return seconds


class GracefulStop:
    """A stop the command line asks of every run, so that a judge with no store keeps its work.

    A judge that keeps nothing (an undeclared Python judge's calls run on a store in
    memory) lost every verdict to a Ctrl-C that ended its run with ``KeyboardInterrupt``.
    Its first run (``runner.run_calls`` on a ``:memory:`` store) :meth:`arm` s this; the
    command line's first Ctrl-C or SIGTERM then :meth:`stop` s instead of raising, and
    each run sees it (``runner._executor.stop_gracefully``): it starts no call, gives the
    calls in flight :func:`interrupt_grace_s`, and returns what answered, stopped
    ``"interrupted"``: a partial result the command writes as any, then :meth:`say` s.
    A library call is never stopped so: nothing but the command line asks it.
    """

    poll_s = 0.1
    """How often an armed run looks whether the command line asked it to stop."""

    def __init__(self) -> None:
        self.armed = False
        """A run kept nothing in this process: a Ctrl-C stops it rather than ending it."""
        self.requested = False
        """The stop was asked for (a plain bool: set in a signal handler, read anywhere)."""

    def arm(self) -> None:
        self.armed = True

    def stop(self) -> bool:
        """Ask every run to stop, if armed (in a signal handler: no Python I/O); whether it was."""
        if self.armed:
            self.requested = True
            os.write(2, _STOPPING)
        return self.armed

    def say(self, code: object, sigterm: bool, command: Mapping[str, Any] | None = None) -> None:
        """Say on stderr what the stop kept and where, once the command ended with ``code``.

        Unwrapped, so that a terminal never breaks a file's path in two.
        """
        if not self.requested or code not in (0, 4, 5):  # an error said its own line
            return
        partial = code == 5  # the result stands in part (EXIT_BUDGET)
        files = [str(path) for _, path in _files(command or {})]
        where = " and ".join(files) or "the result printed above alone (no file was asked for)"
        print(
            f"interrupted{' by SIGTERM' if sigterm else ''}; what answered is kept in "
            f"{where}{', marked partial' if partial else ''}; a judge that declares no name "
            "and version keeps its calls nowhere else, so a rerun makes them again (README: "
            "'Your own judge')",
            file=sys.stderr,
        )

    def clear(self) -> None:
        """Forget all of it (a test that stops a run in-process)."""
        self.armed = self.requested = False


def _files(command: Mapping[str, Any]) -> list[tuple[str, object]]:
    """A command's ``out`` and ``html`` given, among its parameters or a group of them."""
    found: dict[str, object] = {}
    for name, value in command.items():
        group = getattr(value, "__dataclass_fields__", None)  # a group of flags
        named = [(f, getattr(value, f)) for f in group] if group else [(name, value)]
        for key, path in named:
            if key in ("out", "html") and path is not None and not isinstance(path, bool):
                found.setdefault(key, path)
    return [(key, found[key]) for key in ("out", "html") if key in found]


_STOPPING = (
    b"interrupted: stopping; no new call starts, and what answered is kept in a partial "
    b"result (a second Ctrl-C stops at once, and loses it)\n"
)
"""The first Ctrl-C's line when the judge keeps nothing: the run is stopped, not ended."""

GRACEFUL_STOP = GracefulStop()
"""The process's one :class:`GracefulStop`."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How the runner retries a call that failed with a retryable error.

    Retryable errors are :class:`fairjudge.RateLimitError` (429),
    :class:`fairjudge.BackendTimeout` and :class:`fairjudge.ServerError` (5xx,
    malformed replies, dropped connections). The delay after the *n*-th failed
    attempt is drawn uniformly from ``[0, min(max_delay, base_delay * 2**(n-1))]``
    ("full jitter", so that many clients backing off at once spread out), and is
    never shorter than the server's ``Retry-After``.

    Attributes:
        max_attempts: Attempts per call, the first one included.
        base_delay: Cap of the first backoff, in seconds.
        max_delay: Largest backoff cap, in seconds.
        max_retry_after: Longest ``Retry-After`` honoured as given; longer ones are
            clipped to this.
        max_unreachable_attempts: Attempts for a call that found nothing listening
            (:class:`fairjudge.EndpointUnreachable`): a server that is restarting
            gets a moment, a wrong ``--base-url`` does not cost minutes.
        max_call_s: No retry starts after this many seconds of one call's attempts
            and backoffs (a backoff that would cross it ends the call instead), so
            one call takes at most this plus one attempt's timeout. With the default
            60 s timeout, a hanging server costs a call at most 6 attempts, not 8.
    """

    max_attempts: int = 8
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 300.0
    max_unreachable_attempts: int = 3
    max_call_s: float = 300.0

    def __post_init__(self) -> None:
        for name in ("max_attempts", "max_unreachable_attempts"):
            if getattr(self, name) < 1:
                raise ConfigError(f"RetryPolicy.{name} must be >= 1; got {getattr(self, name)}")
        if not self.max_call_s > 0:
            raise ConfigError(f"RetryPolicy.max_call_s must be > 0; got {self.max_call_s}")
        for name in ("base_delay", "max_delay", "max_retry_after"):
            if getattr(self, name) < 0:
                raise ConfigError(f"RetryPolicy.{name} must be >= 0; got {getattr(self, name)}")

    def should_retry(self, error: BackendError, attempt: int) -> bool:
        """Whether to try again after ``attempt`` (1-based) failed with ``error``."""
        if isinstance(error, EndpointUnreachable):
            return attempt < min(self.max_attempts, self.max_unreachable_attempts)
        return error.retryable and attempt < self.max_attempts

    def delay(self, error: BackendError, attempt: int, rng: random.Random) -> float:
        """Seconds to wait after attempt number ``attempt`` (1-based) failed with ``error``.

        Example:
            >>> policy = RetryPolicy(base_delay=1.0)
            >>> policy.delay(RateLimitError("429", retry_after=7.0), 1, random.Random(0))
            7.0
        """
        cap = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        backoff = rng.uniform(0.0, cap)
        if isinstance(error, RateLimitError) and error.retry_after is not None:
            return max(min(error.retry_after, self.max_retry_after), backoff)
        return backoff


class TokenBucket:
    """A token bucket that answers "how long until I may go?" instead of sleeping.

    The level refills at ``rate`` per second up to ``capacity``. :meth:`reserve`
    takes ``amount`` at once, even if that drives the level below zero, and returns
    how long the caller must wait for the level to be back at zero. Reservations are
    served in the order they are made, and a call larger than the capacity still
    gets through (it waits longer). :meth:`adjust` corrects an estimate once the
    real size is known.

    Args:
        rate: Refill rate, units per second.
        capacity: Largest burst.
        now: The current time, in the clock the caller will keep using.
    """

    def __init__(self, rate: float, capacity: float, now: float) -> None:
        if rate <= 0 or capacity <= 0:
            raise ConfigError(f"rate limits must be > 0; got rate={rate}, capacity={capacity}")
        self.rate = rate
        self.capacity = capacity
        self._level = capacity
        self._t = now

    def _refill(self, now: float) -> None:
        if now > self._t:
            self._level = min(self.capacity, self._level + (now - self._t) * self.rate)
            self._t = now

    def reserve(self, amount: float, now: float) -> float:
        """Take ``amount`` and return the seconds to wait before using it."""
        self._refill(now)
        self._level -= amount
        return 0.0 if self._level >= 0 else -self._level / self.rate

    def adjust(self, extra: float, now: float) -> None:
        """Take ``extra`` more (or give back, when negative) after the fact."""
        self._refill(now)
        self._level = min(self.capacity, self._level - extra)

    @classmethod
    def per_minute(cls, limit: float, now: float) -> TokenBucket:
        """A bucket for a per-minute limit, smoothed: at most one second's worth at once."""
        if limit <= 0:
            raise ConfigError(f"per-minute limits must be > 0; got {limit}")
        rate = limit / 60.0
        return cls(rate, max(1.0, rate), now)


def estimate_tokens(spec: CallSpec, params: Mapping[str, Any] | None = None) -> tuple[int, int]:
    """Guess a call's (input, output) tokens before it is made.

    Input is the message text at four characters a token plus a few per message;
    output is the call's ``max_tokens`` (what providers count against a TPM limit),
    or 0 when unset: in ``params``, the parameters as the backend sends them when
    they differ from the spec's (a model learned from refusals), else the spec's.
    """
    chars = sum(len(content) for _, content in spec.messages)
    n_in = chars // _CHARS_PER_TOKEN + _TOKENS_PER_MESSAGE * len(spec.messages)
    return n_in, _max_tokens(spec.params if params is None else params)


def _max_tokens(params: Mapping[str, Any]) -> int:
    for name in ("max_tokens", "max_completion_tokens", "max_output_tokens"):
        value = params.get(name)
        if isinstance(value, int) and value > 0:
            return value
    return 0


def text_tokens(text: str) -> int:
    """Guess the tokens in ``text`` (for replies whose usage the backend did not report)."""
    return max(1, len(text) // _CHARS_PER_TOKEN) if text else 0


CACHE_WRITE_MARKUP = 1.25
"""A prompt-cache write's price over the input price, when no price for it is given.

Anthropic's 5-minute cache writes cost 1.25 times the input price; OpenAI charges no
write (it never reports one), so the markup is the safe default for both.
"""


_CACHED_ABOVE = (
    "{} ({}) is above {} ({}): a token read from the prompt cache never costs more than "
    "one sent in full, so this is likely a typo (a tenth of the input price is usual)"
)


@dataclass(frozen=True, slots=True)
class Prices:
    """Prices in US dollars per million tokens, for costs and ``--max-cost``.

    Attributes:
        input_per_million: Price of a million prompt tokens.
        output_per_million: Price of a million completion tokens, reasoning tokens
            included (they are billed as output).
        cached_input_per_million: Price of a million prompt tokens read from the
            provider's prompt cache; ``None``: the input price (no discount assumed).
        cache_write_per_million: Price of a million prompt tokens written to the
            prompt cache; ``None``: :data:`CACHE_WRITE_MARKUP` times the input price.

    Raises:
        ConfigError: A price is negative, NaN or infinite, or the cached input price is
            above the input price (a cache read never costs more).
    """

    input_per_million: float
    output_per_million: float
    cached_input_per_million: float | None = None
    cache_write_per_million: float | None = None

    def __post_init__(self) -> None:
        for name in (
            "input_per_million",
            "output_per_million",
            "cached_input_per_million",
            "cache_write_per_million",
        ):
            value = getattr(self, name)
            if value is None and name.startswith("cache"):
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"prices: {name} must be a number; got {value!r}")
            if not 0 <= value < math.inf:  # NaN fails too
                raise ConfigError(f"prices: {name} must be >= 0 and finite; got {value!r}")
        cached = self.cached_input_per_million
        if cached is not None and cached > self.input_per_million:
            raise ConfigError(_CACHED_ABOVE.format(
                "cached_input_per_million", cached, "input_per_million", self.input_per_million
            ))  # fmt: skip

    @property
    def cached_input(self) -> float:
        """Dollars per million cached prompt tokens (the input price unless given)."""
        c = self.cached_input_per_million
        return self.input_per_million if c is None else c

    @property
    def cache_write(self) -> float:
        """Dollars per million prompt tokens written to the cache."""
        w = self.cache_write_per_million
        return self.input_per_million * CACHE_WRITE_MARKUP if w is None else w

    def cost(
        self, input_tokens: int, output_tokens: int, cached: int = 0, written: int = 0
    ) -> float:
        """Dollars for a call of that size.

        Args:
            input_tokens: Every prompt token, cached and cache-written ones included.
            output_tokens: Every completion token, reasoning included.
            cached: Of ``input_tokens``, those read from the prompt cache.
            written: Of ``input_tokens``, those written to the prompt cache.

        Example:
            >>> Prices(2.5, 10.0).cost(1000, 10)
            0.0026
            >>> Prices(1.25, 10.0, cached_input_per_million=0.125).cost(1000, 10, cached=800)
            0.00045
        """
        plain = input_tokens - cached - written
        return (
            plain * self.input_per_million
            + cached * self.cached_input
            + written * self.cache_write
            + output_tokens * self.output_per_million
        ) / 1e6


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
        route_prices: Prices of particular judges, each ``((backend, model,
            base_url), Prices)``: a judge's calls are charged its own, in place of
            ``prices`` and the list price. A panel sets them from its members' price
            keys (:class:`~fairjudge.judges.MemberSpec`).

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
    route_prices: tuple[tuple[Route, Prices], ...] = ()

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
        for entry in self.route_prices:
            if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], Prices)):
                raise ConfigError(
                    f"route_prices holds ((backend, model, base_url), Prices) pairs; got {entry!r}",
                    params="route_prices",
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
            ConfigError: Only one of the two prices is given, the cached input price is
                above the input price, or a field is invalid.
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
        cached, full = price_cached_input, price_input
        if cached is not None and full is not None and cached > full:
            raise ConfigError(
                _CACHED_ABOVE.format("price_cached_input", cached, "price_input", full),
                params=("price_cached_input", "price_input"),
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
