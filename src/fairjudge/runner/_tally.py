"""What a run has done so far (counters, spend, progress, summary), and a batch served whole.

:class:`Tally` is the bookkeeping half of :class:`~fairjudge.runner._run.Run`: it admits
calls under ``max_cost`` and enters each fresh reply in the ledger.
:func:`serve_from_store` answers a batch the store holds entirely with the result
the engine would give, without an event loop, a thread or a loaded model.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fairjudge._call import Backend, CallSpec, Completion, Route, route_of
from fairjudge._errors import ConfigError, CutAtCap
from fairjudge.runner._limits import RunOptions
from fairjudge.runner._prices import (
    LIST_PRICES_DATE,
    CallGuess,
    Charge,
    CostBudget,
    Pricing,
    charge,
)
from fairjudge.runner._progress import RunProgress, Snapshot, make_progress
from fairjudge.runner._result import CallOutcome, RunResult, RunSummary, StopReason
from fairjudge.runner._store import Store

if TYPE_CHECKING:
    import asyncio

__all__ = ["TICK_S", "Tally", "serve_from_store", "unique_calls"]


TICK_S = 0.25
"""Seconds between progress refreshes."""

PROVIDERS = frozenset({"openai", "anthropic"})
"""The backends that bill per token: a call to one of them with no price has an unknown cost."""


class Tally:
    """Counters of one run, and the snapshots and summary built from them."""

    progress: RunProgress | None
    on_progress: Callable[[int], None] | None
    stopped: StopReason | None
    halted: bool

    def __init__(
        self, options: RunOptions, routes: Iterable[Route] = (), learners: Iterable[Any] = ()
    ) -> None:
        self.options = options
        self.pricing = Pricing(
            options.prices, use_list=options.list_prices, routes=routes,
            max_cost=options.max_cost, own=dict(options.route_prices),
        )  # fmt: skip
        self.total = self.cached = self.done = self.failed = 0
        self.started = self.requests = self.retries = 0
        self.input_tokens = self.output_tokens = 0
        self.reasoning_tokens = self.cached_input_tokens = self.cache_write_tokens = 0
        self.usage_unreported = 0  # replies whose usage was not believed: charged an estimate
        self.reasoning_unreported = 0  # replies that did not say their reasoning tokens
        self.cut_at_cap = 0  # replies cut by their token cap before any text: billed
        self.charged: set[Route] = set()  # the routes of the replies charged
        self.spent = self.backoff_s = self.cache_saved = 0.0
        self.sent: dict[str, float] = {}  # key -> when its current request was sent
        self.request_s: list[float] = []  # how long each request took, for "waiting"
        self._median: tuple[int, float | None] = (0, None)  # (len(request_s), its median)
        self.reported = 0
        self.t0 = time.perf_counter()
        self.budget: CostBudget | None = None
        ceiling = self.pricing.ceiling()
        if options.max_cost is not None and ceiling is not None:  # Pricing: every route priced
            self.budget = CostBudget(options.max_cost, ceiling)
        self._settled: asyncio.Event | None = None  # set when a call in flight settles
        self._learning = _Learning(learners)
        # An unknown model's calls, under max_cost (see _admit): the routes whose model
        # is learned from refusals, those answered once, and each one's probe's key.
        self.untaught: frozenset[Route] = frozenset()
        self.answered: set[Route] = set()
        self.probes: dict[Route, str] = {}
        self.sent_params: dict[Route, Callable[[Mapping[str, Any]], Mapping[str, Any]]] = {}

    async def _admit(self, key: str, spec: CallSpec, budget: CostBudget) -> CallGuess | None:
        """Wait until ``max_cost`` lets the call start; ``None`` when it never will.

        A call that does not fit waits for a call in flight to settle (which frees its
        reserve and corrects the guess); with none in flight, the budget is spent.

        The check follows an unknown model's probe line
        (:class:`~fairjudge.backends.OpenAIBackend`): until one of its calls is
        answered, the backend sends them one at a time, and what the first teaches
        changes what the rest send (``max_tokens`` becomes ``max_completion_tokens``
        with room to reason, which the spec's cap does not show). So only the call
        about to be sent is checked and reserved; the rest wait here, not in the
        backend's line, and are guessed once the probe is over, with the parameters
        as sent (:meth:`_guess`) and the ratios its reply taught. Checked earlier, at
        the spec's cap, a call would be reserved for far less than the cap it is sent
        with, and the budget would be overspent.
        """
        route = spec.route
        while True:
            if route not in self.probes or route in self.answered:
                guess = self._guess(spec)
                if budget.admit(guess, self.spent):
                    if route in self.untaught and route not in self.answered:
                        self.probes[route] = key
                    return guess
                if not budget.in_flight:
                    self.stopped = "max_cost"
                    return None
            if self._settled is None:
                import asyncio  # here: a run the store answers whole needs no loop

                self._settled = asyncio.Event()
            await self._settled.wait()
            if self.halted or self.stopped == "max_cost":  # (a max_calls stop spares it)
                return None

    def _probe_over(self, key: str, spec: CallSpec) -> None:
        """A call is over; if it was its route's probe, the next call may be checked."""
        if self.probes.get(spec.route) == key:
            del self.probes[spec.route]
            self._wake()

    def _guess(self, spec: CallSpec) -> CallGuess:
        """The call's size as it would go on the wire now, what refusals taught applied."""
        sent = self.sent_params.get(spec.route)
        return CallGuess.of(spec) if sent is None else CallGuess.of(spec, sent(spec.params))

    def _settle(
        self,
        guess: CallGuess | None,
        n_in: int | None = None,
        n_out: int = 0,
        sent: CallGuess | None = None,
    ) -> None:
        """Tell the budget a call is over (``sent``: as it went out), and wake the waiters."""
        if self.budget is not None and guess is not None:
            cap = None if sent is None else sent.cap
            self.budget.settle(guess, n_in, n_out, sent_cap=cap)
            self._wake()

    def _wake(self) -> None:
        if self._settled is not None:  # wake every waiter; the next makes a new one
            self._settled.set()
            self._settled = None

    def _charge(self, spec: CallSpec, completion: Completion, guess: CallGuess | None) -> Charge:
        """Enter a fresh reply in the ledger and settle it with the budget.

        The spend only grows: every charge is non-negative counts times non-negative
        finite prices, whatever the server reported (:func:`~fairjudge.runner._prices.charge`).
        """
        # The call as it went out (the cap a lesson gave it, see _admit): what an
        # estimate charges and what the budget learns its output ratio against.
        if guess is None:  # no budget: the guess is needed only to estimate usage
            unknown = completion.usage_problem is not None or completion.input_tokens is None
            sent = self._guess(spec) if unknown else CallGuess(0, 0)
        else:
            sent = self._guess(spec)
        ratio = 1.0
        if self.budget is not None and self.budget.replies:
            ratio = self.budget.input_ratio()
        bill = charge(completion, sent, self.pricing.of(spec), ratio)
        self.input_tokens += bill.input_tokens
        self.output_tokens += bill.output_tokens
        self.reasoning_tokens += bill.reasoning_tokens
        self.cached_input_tokens += bill.cached_input_tokens
        self.cache_write_tokens += bill.cache_write_tokens
        self.usage_unreported += not bill.believed
        self.reasoning_unreported += completion.reasoning_tokens is None
        self.charged.add(spec.route)
        if bill.cost_usd is not None:
            assert bill.cost_usd >= 0  # by construction; the spend never goes down
            self.spent += bill.cost_usd
            self.cache_saved += bill.saved_usd
        self._settle(guess, bill.input_tokens, bill.output_tokens, sent)
        return bill

    def _charge_failed(
        self,
        spec: CallSpec,
        exc: BaseException,
        guess: CallGuess | None,
        scrubbed: Callable[[Completion], Completion],
    ) -> tuple[Completion | None, float | None]:
        """A failed call's bill: its reply and cost when the provider billed one, else none.

        A reply its token cap cut off before any text (:class:`CutAtCap`, which
        carries it as ``billed``) has no answer but is paid for: it is charged
        like any reply (tokens, cost, ``max_cost``) and counted in :attr:`cut_at_cap`.
        Any other failure only settles the call with the budget.
        """
        billed = exc.billed if isinstance(exc, CutAtCap) else None
        if not isinstance(billed, Completion):
            self._settle(guess)
            return None, None
        self.cut_at_cap += 1
        billed = scrubbed(billed)  # every reply is scrubbed before it is kept
        return billed, self._charge(spec, billed, guess).cost_usd

    def snapshot(self) -> Snapshot:
        elapsed = time.perf_counter() - self.t0
        counts = (self.total, self.cached, self.done, self.failed, self.retries)
        return Snapshot(
            *counts, elapsed, len(self.sent), self._longest_wait(), self._median_request_s()
        )

    def _answered_after(self, sent: float | None, now: float) -> None:
        """Note how long a request took (``sent`` is ``None`` when it was not in flight)."""
        if sent is not None:
            self.request_s.append(max(0.0, now - sent))

    def _median_request_s(self) -> float | None:
        """The median request time so far (``None`` before the first reply); cached per count."""
        n, median = self._median
        if n != len(self.request_s):
            median = statistics.median(self.request_s)
            self._median = (len(self.request_s), median)
        return median

    def _longest_wait(self) -> float:
        if not self.sent:
            return 0.0
        import asyncio  # here: a run the store answers whole has no loop and needs none

        return max(0.0, asyncio.get_running_loop().time() - min(self.sent.values()))

    def _report(self) -> None:
        if self.on_progress is not None:
            settled = self.cached + self.done + self.failed
            if settled > self.reported:
                self.on_progress(settled - self.reported)
                self.reported = settled

    async def _tick(self) -> None:
        import asyncio

        while True:
            await asyncio.sleep(TICK_S)
            self._report()
            if self.progress is not None:
                self.progress.update(self.snapshot())

    def summary(self) -> RunSummary:
        return RunSummary(
            total=self.total,
            cached=self.cached,
            made=self.done + self.failed,
            failed=self.failed,
            not_run=self.total - self.cached - self.done - self.failed,
            requests=self.requests,
            retries=self.retries,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.spent if self.pricing.priced else None,
            wall_s=time.perf_counter() - self.t0,
            backoff_s=self.backoff_s,
            stopped=self.stopped,
            reasoning_tokens=None if self.reasoning_unreported else self.reasoning_tokens,
            cached_input_tokens=self.cached_input_tokens,
            cache_write_tokens=self.cache_write_tokens,
            cache_saved_usd=self.cache_saved if self.pricing.priced else None,
            usage_unreported=self.usage_unreported,
            refused=self._learning.refused(),
            learned=self._learning.learned(),
            cut_at_cap=self.cut_at_cap,
            notes=self._notes(),
        )

    def _notes(self) -> tuple[tuple[str, str], ...]:
        """What the figures leave out, for the reader: unknown costs, a price assumed."""
        notes = []
        if self.cut_at_cap:
            n = self.cut_at_cap
            notes.append((
                "cut by the token cap",
                f"{n} {'reply' if n == 1 else 'replies'} spent the whole token cap before "
                "any text: no answer, but billed (counted in the tokens and cost)",
            ))  # fmt: skip
        unpriced = sorted(
            f"{route[0]}/{route[1]}"
            for route in self.charged
            if route[0] in PROVIDERS and self.pricing.of_route(route) is None
        )
        if unpriced:
            named = ", ".join(unpriced)
            said = f"fairjudge's list prices ({LIST_PRICES_DATE}) do not name {named}"
            text = (
                f"the estimate leaves out {named} ({said})"
                if self.pricing.priced
                else f"unknown: {said}"
            )
            notes.append(("cost", f"{text}; give price_input and price_output to price it"))
        prices = self.options.prices
        if (
            prices is not None
            and prices.cached_input_per_million is None
            and self.cached_input_tokens
        ):
            notes.append((
                "cached input price",
                f"the {self.cached_input_tokens} cached input tokens are priced at "
                "price_input: the prices given replace the list's, its cached price "
                "too; give price_cached_input for the cache's price",
            ))  # fmt: skip
        return tuple(notes)

    def paid_note(self) -> str:
        """What the calls made so far cost, for a stop message; ``""`` when nothing was."""
        made = self.done + self.failed
        if not made or not (self.input_tokens or self.output_tokens):
            return ""
        cost = f", est. ${self.spent:.4f}" if self.pricing.priced else ", cost unknown"
        text = (
            f"This run made {made} call(s) ({self.input_tokens} input + "
            f"{self.output_tokens} output tokens{cost})"
        )
        if self.cut_at_cap:
            n = self.cut_at_cap
            text += (
                f"; {n} of them {'was' if n == 1 else 'were'} cut by the token cap before any "
                "text, billed all the same: sent again with the same settings, "
                f"{'it is' if n == 1 else 'they are'} cut and paid again"
            )
        return text


class _Learning:
    """What the run's backends learned from refused requests during this run.

    A backend that learns (:class:`~fairjudge.backends.OpenAIBackend` on a model the
    capability table does not know) counts its refusals and keeps its lessons for its
    whole life, across the runs of one session; the run reports its own, the
    difference between now and when it started. A backend that does not learn has
    neither attribute and adds nothing.
    """

    def __init__(self, backends: Iterable[Any]) -> None:
        unique = {id(b): b for b in backends if isinstance(getattr(b, "refused", None), int)}
        self.start = [(b, b.refused, set(_lessons(b))) for b in unique.values()]

    def refused(self) -> int:
        return sum(b.refused - before for b, before, _ in self.start)

    def learned(self) -> tuple[str, ...]:
        return tuple(line for b, _, seen in self.start for line in _lessons(b) if line not in seen)


def _lessons(backend: Any) -> list[str]:
    """A backend's lessons, a few words each (none when it keeps none)."""
    lessons = getattr(backend, "lessons", None)
    return [line for line in lessons if isinstance(line, str)] if lessons else []


def unique_calls(
    specs: Iterable[CallSpec], routes: Collection[Route]
) -> tuple[list[str], dict[str, CallSpec]]:
    """Each spec's key, and the unique specs by key; every one must have a backend.

    Raises:
        ConfigError: A spec names a backend that is not among ``routes``.
    """
    keys: list[str] = []
    unique: dict[str, CallSpec] = {}
    for spec in specs:
        key = spec.key
        keys.append(key)
        if key not in unique:
            unique[key] = spec
            if spec.route not in routes:
                raise ConfigError(
                    f"no backend for the call to {spec.backend}/{spec.model}"
                    f"{' at ' + spec.base_url if spec.base_url else ''}; "
                    f"this run has: {', '.join('/'.join(r[:2]) for r in routes)}"
                )
    return keys, unique


def serve_from_store(
    backends: Sequence[Backend],
    specs: Sequence[CallSpec],
    *,
    store: Store,
    options: RunOptions,
    on_progress: Callable[[int], None] | None = None,
) -> RunResult | None:
    """The result of a batch the store answers entirely; ``None`` when a call is missing.

    The result is the one :func:`~fairjudge.runner.run_calls` would return (every
    outcome cached, at no cost), and the progress display and ``on_progress`` see
    the same, but no event loop, thread, backend or connection is touched. Only the
    keys are read until they are known to be all there, so a batch with work left
    costs one cheap query before the engine's own lookup.

    Raises:
        ConfigError: A spec names a backend that is not among ``backends``.
    """
    keys, unique = unique_calls(specs, dict.fromkeys(route_of(b) for b in backends))
    if not store.has_all(unique):
        return None
    found = store.get_many(unique)
    if len(found) < len(unique):  # cannot happen (ok rows are final), but never guess
        return None
    tally = Tally(options, (route_of(b) for b in backends))
    tally.total = tally.cached = len(unique)
    tally.progress, tally.on_progress = make_progress(options.progress), on_progress
    tally.stopped = None
    outcomes = {
        key: CallOutcome(key, unique[key], "ok", completion=found[key], cached=True, cost_usd=0.0)
        for key in unique
    }
    if tally.progress is not None:
        tally.progress.start(tally.snapshot())
    tally._report()
    if tally.progress is not None:
        tally.progress.finish(tally.snapshot())
    return RunResult(tuple(keys), outcomes, tally.summary())
