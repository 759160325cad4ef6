"""The async engine: dedupe, serve from cache, and make the rest of the calls.

:func:`run_calls` takes rendered calls (:class:`fairjudge.judges.CallSpec`), looks
them all up in the store at once, and sends the missing ones to the backend from a
fixed pool of worker tasks (one task per concurrency slot, not one per call: fewer
objects, less scheduling, the same throughput). Around each call sit the optional
rate limits, retries with full-jitter backoff that honour ``Retry-After``, and the
budget checks; after it, the record goes to the store before the slot is reused.

Stopping:

- A :class:`fairjudge.FatalBackendError` (400/401/403/404) cancels the calls in
  flight and is re-raised with a message that names the backend and what to do.
- A budget (``max_calls``, ``max_cost``) stops *starting* calls; those in flight
  finish, and the result marks the unstarted calls ``not_run``. The caller decides
  whether that is an error (:class:`fairjudge.judges.LLMJudge` raises
  :class:`fairjudge.BudgetExceeded`).

Either way, every call that finished is in the store, so running the same work
again continues where this run stopped.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from fairjudge._errors import BackendError, FatalBackendError
from fairjudge._types import CallError
from fairjudge.judges._base import Backend, CallSpec, Completion
from fairjudge.runner._limits import (
    Prices,
    RetryPolicy,
    TokenBucket,
    check_options,
    estimate_tokens,
    text_tokens,
)
from fairjudge.runner._progress import ProgressMode, RunProgress, Snapshot, make_progress
from fairjudge.runner._records import call_row
from fairjudge.runner._redact import scrub
from fairjudge.runner._result import CallOutcome, RunResult, RunSummary, StopReason
from fairjudge.runner._store import Store
from fairjudge.runner._writer import BatchWriter

__all__ = ["Parser", "run_calls"]

Parser = Callable[[CallSpec, Completion], Mapping[str, Any] | None]
"""Reads a fresh reply into JSON-ready data for the store's ``parsed`` column."""

_TICK_S = 0.25  # progress refresh period
_UNKNOWN_OUTPUT_TOKENS = 256  # cost guess for a call with no max_tokens and no history


async def run_calls(
    backend: Backend,
    specs: Iterable[CallSpec],
    *,
    store: Store,
    concurrency: int = 16,
    rpm: float | None = None,
    tpm: float | None = None,
    max_calls: int | None = None,
    max_cost: float | None = None,
    prices: Prices | None = None,
    retry: RetryPolicy | None = None,
    progress: ProgressMode | RunProgress = "auto",
    on_progress: Callable[[int], None] | None = None,
    parse: Parser | None = None,
    rng: random.Random | None = None,
) -> RunResult:
    """Run judge calls through the store, the limits and the backend.

    Args:
        backend: Where uncached calls go.
        specs: The calls; duplicates (equal keys) are made once.
        store: The cache and audit log.
        concurrency: Calls in flight at most (also capped by
            ``backend.max_concurrency``).
        rpm: Requests per minute at most, retries included.
        tpm: Tokens per minute at most (estimated from message length and
            ``max_tokens`` before a call, corrected after it).
        max_calls: New (uncached) calls this run may start.
        max_cost: Dollars this run may spend, by the ``prices`` estimate.
        prices: Prices per million tokens, for costs and ``max_cost``.
        retry: Retry policy for 429s, timeouts and server errors.
        progress: ``auto``, ``rich``, ``plain``, ``quiet`` or a display object.
        on_progress: Called with the number of calls just settled (batched, a few
            times a second; cached calls are reported at once).
        parse: Turns each fresh reply into the JSON stored with it.
        rng: Source of retry jitter (for reproducible tests).

    Returns:
        One outcome per unique call and a summary. Calls that failed after their
        retries are outcomes with status ``error``; calls a budget kept from starting
        have status ``not_run`` and ``result.stopped`` names the budget.

    Raises:
        FatalBackendError: The backend rejected a call in a way retrying cannot fix
            (bad request, bad credentials, unknown model). Calls in flight are
            cancelled; every finished call is already in the store.
        ConfigError: An option is out of range.
    """
    check_options(concurrency, rpm, tpm, max_calls, max_cost, prices)
    run = _Run(
        backend,
        store=store,
        concurrency=concurrency,
        rpm=rpm,
        tpm=tpm,
        max_calls=max_calls,
        max_cost=max_cost,
        prices=prices,
        retry=retry if retry is not None else RetryPolicy(),
        progress=make_progress(progress),
        on_progress=on_progress,
        parse=parse,
        rng=rng if rng is not None else random.Random(),
    )
    return await run.execute(specs)


class _Run:
    """The state of one :func:`run_calls` invocation."""

    def __init__(
        self,
        backend: Backend,
        *,
        store: Store,
        concurrency: int,
        rpm: float | None,
        tpm: float | None,
        max_calls: int | None,
        max_cost: float | None,
        prices: Prices | None,
        retry: RetryPolicy,
        progress: RunProgress | None,
        on_progress: Callable[[int], None] | None,
        parse: Parser | None,
        rng: random.Random,
    ) -> None:
        self.backend = backend
        self.store = store
        limit = backend.max_concurrency
        self.concurrency = min(concurrency, limit) if limit else concurrency
        self.rpm, self.tpm = rpm, tpm
        self.max_calls, self.max_cost, self.prices = max_calls, max_cost, prices
        self.retry, self.rng, self.parse = retry, rng, parse
        self.progress, self.on_progress = progress, on_progress
        self.outcomes: dict[str, CallOutcome] = {}
        self.total = self.cached = self.done = self.failed = 0
        self.started = self.requests = self.retries = 0
        self.input_tokens = self.output_tokens = 0
        self.spent = self.reserved = self.backoff_s = 0.0
        self.stopped: StopReason | None = None
        self.halted = False
        self.reported = 0
        self.t0 = time.perf_counter()

    # -- the run ---------------------------------------------------------------------

    async def execute(self, specs: Iterable[CallSpec]) -> RunResult:
        keys: list[str] = []
        todo: dict[str, CallSpec] = {}
        for spec in specs:
            key = spec.key
            keys.append(key)
            if key not in todo:
                todo[key] = spec
        self.total = len(todo)
        cached = self.store.get_many(todo)
        for key, completion in cached.items():
            self.outcomes[key] = CallOutcome(
                key, todo.pop(key), "ok", completion=completion, cached=True, cost_usd=0.0
            )
        self.cached = len(cached)
        if self.progress is not None:
            self.progress.start(self.snapshot())
        self._report()
        try:
            if todo:
                await self._make_calls(iter(todo.items()), min(self.concurrency, len(todo)))
        except FatalBackendError as exc:
            raise self._fatal(exc) from exc
        finally:
            self._report()
            if self.progress is not None:
                self.progress.finish(self.snapshot())
        for key, spec in todo.items():
            if key not in self.outcomes:
                self.outcomes[key] = CallOutcome(key, spec, "not_run")
        return RunResult(tuple(keys), self.outcomes, self.summary())

    async def _make_calls(self, todo: Iterator[tuple[str, CallSpec]], workers: int) -> None:
        loop = asyncio.get_running_loop()
        self.loop = loop
        self.todo = todo
        self.writer = BatchWriter(self.store, loop)
        now = loop.time()
        self.rpm_bucket = TokenBucket.per_minute(self.rpm, now) if self.rpm else None
        self.tpm_bucket = TokenBucket.per_minute(self.tpm, now) if self.tpm else None
        tasks = [loop.create_task(self._worker()) for _ in range(workers)]
        ticker = None
        if self.progress is not None or self.on_progress is not None:
            ticker = loop.create_task(self._tick())
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            errors = [t.exception() for t in tasks if t.done() and not t.cancelled()]
            fatal = [e for e in errors if isinstance(e, FatalBackendError)]
            others = [e for e in errors if e is not None]
            if fatal or others:
                raise (fatal or others)[0]
        finally:
            for task in (*tasks, ticker):
                if task is not None and not task.done():
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if ticker is not None:
                await asyncio.gather(ticker, return_exceptions=True)
            self.writer.flush()

    async def _worker(self) -> None:
        take, call = self._take, self._call
        while (item := take()) is not None:
            await call(*item)

    def _take(self) -> tuple[str, CallSpec, float] | None:
        """The next call to start, or ``None`` when there is none or a budget is spent."""
        if self.stopped is not None or self.halted:
            return None
        item = next(self.todo, None)
        if item is None:
            return None
        key, spec = item
        if self.max_calls is not None and self.started >= self.max_calls:
            self.stopped = "max_calls"
            return None
        reserve = 0.0
        if self.max_cost is not None:
            reserve = self._guess_cost(spec)
            if self.spent + self.reserved + reserve > self.max_cost:
                self.stopped = "max_cost"
                return None
            self.reserved += reserve
        self.started += 1
        return key, spec, reserve

    async def _call(self, key: str, spec: CallSpec, reserved: float) -> None:
        loop, backend, retry = self.loop, self.backend, self.retry
        est = estimate_tokens(spec) if self.tpm_bucket is not None else (0, 0)
        attempts = 0
        while True:
            if self.rpm_bucket is not None:
                wait = self.rpm_bucket.reserve(1, loop.time())
                if wait > 0:
                    await asyncio.sleep(wait)
            if self.tpm_bucket is not None:
                wait = self.tpm_bucket.reserve(est[0] + est[1], loop.time())
                if wait > 0:
                    await asyncio.sleep(wait)
            attempts += 1
            self.requests += 1
            try:
                completion = await backend.complete(spec)
            except BackendError as exc:
                if retry.should_retry(exc, attempts):
                    delay = retry.delay(exc, attempts, self.rng)
                    self.retries += 1
                    self.backoff_s += delay
                    await asyncio.sleep(delay)
                    continue
                if not exc.retryable:
                    self.halted = True  # start nothing more while the error row is written
                    await self._failed(key, spec, exc, attempts, reserved)
                    raise
                await self._failed(key, spec, exc, attempts, reserved)
                return
            except Exception as exc:  # a bug in a backend is this call's error, not the run's
                await self._failed(key, spec, exc, attempts, reserved)
                return
            break
        await self._succeeded(key, spec, completion, attempts, reserved, est)

    async def _succeeded(
        self,
        key: str,
        spec: CallSpec,
        completion: Completion,
        attempts: int,
        reserved: float,
        est: tuple[int, int],
    ) -> None:
        n_in = completion.input_tokens
        if n_in is None:
            n_in = estimate_tokens(spec)[0]
        n_out = completion.output_tokens
        if n_out is None:
            n_out = text_tokens(completion.text)
        if self.tpm_bucket is not None:
            self.tpm_bucket.adjust(n_in + n_out - est[0] - est[1], self.loop.time())
        self.input_tokens += n_in
        self.output_tokens += n_out
        cost = None
        if self.prices is not None:
            cost = self.prices.cost(n_in, n_out)
            self.spent += cost
            self.reserved -= reserved
        parsed = None
        if self.parse is not None:
            try:
                parsed = self.parse(spec, completion)
            except Exception as exc:  # keep the paid reply even if the parser breaks
                parsed = {"parser_error": scrub(f"{type(exc).__name__}: {exc}")}
        self.outcomes[key] = CallOutcome(
            key, spec, "ok", completion=completion, attempts=attempts, cost_usd=cost, parsed=parsed
        )
        self.done += 1
        record = call_row(
            spec,
            key,
            "ok",
            completion=completion,
            parsed=parsed,
            cost_usd=cost,
            attempts=attempts,
        )
        await self.writer.write(record)

    async def _failed(
        self, key: str, spec: CallSpec, exc: Exception, attempts: int, reserved: float
    ) -> None:
        error = CallError(type(exc).__name__, scrub(str(exc)) or type(exc).__name__)
        self.reserved -= reserved
        self.outcomes[key] = CallOutcome(key, spec, "error", error=error, attempts=attempts)
        self.failed += 1
        record = call_row(
            spec,
            key,
            "error",
            attempts=attempts,
            error_kind=error.kind,
            error_message=error.message,
        )
        await self.writer.write(record)

    # -- budgets, progress, summary ----------------------------------------------------

    def _guess_cost(self, spec: CallSpec) -> float:
        assert self.prices is not None  # checked with the options
        n_in, n_out = estimate_tokens(spec)
        if not n_out:
            n_out = self.output_tokens // self.done if self.done else _UNKNOWN_OUTPUT_TOKENS
        return self.prices.cost(n_in, n_out)

    def _fatal(self, exc: FatalBackendError) -> FatalBackendError:
        backend, text = self.backend, str(exc).rstrip(".")
        if backend.model not in text:  # well-behaved backends already say where
            where = f" at {backend.base_url}" if backend.base_url else ""
            text = f"{backend.name} judge {backend.model!r}{where}: {text}"
        message = scrub(
            f"{text}. Stopped the run, because retrying cannot fix this error. "
            f"The {self.cached + self.done} calls finished so far are kept in the store "
            f"{self.store.path}; fix the problem and run again to continue from there."
        )
        try:
            return type(exc)(message)
        except TypeError:  # a subclass with another signature
            return FatalBackendError(message)

    def snapshot(self) -> Snapshot:
        return Snapshot(
            total=self.total,
            cached=self.cached,
            done=self.done,
            failed=self.failed,
            retries=self.retries,
            elapsed=time.perf_counter() - self.t0,
        )

    def _report(self) -> None:
        if self.on_progress is not None:
            settled = self.cached + self.done + self.failed
            if settled > self.reported:
                self.on_progress(settled - self.reported)
                self.reported = settled

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(_TICK_S)
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
            cost_usd=self.spent if self.prices is not None else None,
            wall_s=time.perf_counter() - self.t0,
            backoff_s=self.backoff_s,
            stopped=self.stopped,
        )
