"""The async engine: dedupe, serve from cache, and make the rest of the calls.

Missing calls go to their backends from a fixed pool of worker tasks, with rate
limits, retries and budget checks around each; every finished call is committed
(:class:`BatchWriter`, one transaction per event-loop pass) before its slot is
reused, so a stopped run continues where it stopped.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any

from fairjudge._call import Backend, CallSpec, Completion, Route
from fairjudge._errors import (
    BackendError,
    EndpointUnreachable,
    FatalBackendError,
    RequestRejected,
)
from fairjudge._redact import Redactor, scrub
from fairjudge._types import CallError
from fairjudge.runner._claims import ClaimQueue, Leases
from fairjudge.runner._limits import GRACEFUL_STOP, RunOptions, TokenBucket, estimate_tokens
from fairjudge.runner._prices import CallGuess
from fairjudge.runner._progress import make_progress
from fairjudge.runner._records import Row, call_row
from fairjudge.runner._result import (
    CallOutcome,
    RunResult,
    StopReason,
    refuse_open_batches,
    stop_error,
    stop_gracefully,
)
from fairjudge.runner._store import Store
from fairjudge.runner._store_errors import StoreWriteError
from fairjudge.runner._tally import Tally, unique_calls

__all__ = ["MAKING", "REJECTIONS_BEFORE_STOP", "BatchWriter", "Parser", "Run"]


class BatchWriter:
    """Collects records and commits them in one transaction per event-loop pass.

    Args:
        store: Where the records go.
        loop: The running loop; all methods must be called from its thread.
        on_error: Called once, when the first commit fails, before any waiter hears
            of it (the engine stops starting calls there).

    Attributes:
        error: The run's :class:`StoreWriteError` once a commit has failed; its
            ``unsaved`` counts every paid reply that could not be stored.
    """

    __slots__ = ("_done", "_loop", "_on_error", "_raised", "_records", "_store", "error")

    def __init__(
        self,
        store: Store,
        loop: asyncio.AbstractEventLoop,
        *,
        on_error: Callable[[], None] | None = None,
    ) -> None:
        self._store = store
        self._loop = loop
        self._on_error = on_error
        self._records: list[Row] = []
        self._done: asyncio.Future[None] | None = None
        self._raised = False
        self.error: StoreWriteError | None = None

    def write(self, record: Row) -> asyncio.Future[None]:
        """Queue a row; the future resolves once it is committed."""
        self._records.append(record)
        done = self._done
        if done is None:
            done = self._done = self._loop.create_future()
            self._loop.call_soon(self.flush)
        return done

    def flush(self) -> None:
        """Commit everything queued now. Safe to call at any time, and twice.

        Raises:
            StoreWriteError: The commit failed and no waiting worker was told (all
                were cancelled); once the run has been told, a later failure only
                adds to :attr:`error`'s counts.
        """
        records, done = self._records, self._done
        self._records, self._done = [], None
        try:
            self._store.write_rows(records)
        except StoreWriteError as exc:
            if self.error is None:
                self.error = exc
                if self._on_error is not None:
                    self._on_error()
            else:
                self.error.add(exc)
            if done is not None and not done.done():
                self._raised = True
                done.set_exception(self.error)
            elif not self._raised:
                self._raised = True
                raise self.error from exc.__cause__
            return
        except Exception as exc:
            # A cancelled waiter cancels the shared future; the rows are still written.
            if done is not None and not done.done():
                done.set_exception(exc)
                return
            raise
        if done is not None and not done.done():
            done.set_result(None)


MAKING: set[Run] = set()
"""The runs making calls now, on any event loop: what a Ctrl-C lets finish (``_executor``)."""

Parser = Callable[[CallSpec, Completion], Mapping[str, Any] | None]
"""Reads a fresh reply into JSON-ready data for the store's ``parsed`` column."""

_STOPPING = (FatalBackendError, EndpointUnreachable, RequestRejected)
REJECTIONS_BEFORE_STOP = 5
"""Rejected calls, with none accepted, after which a backend is taken to reject all."""


def _untaught(backend: Backend) -> bool:
    """Whether the backend learns its model from refusals (the capability table lacks it)."""
    if getattr(backend, "unknown", False) is True:  # a Ray stand-in says so itself
        return True
    caps = getattr(backend, "capabilities", None)
    return caps is not None and getattr(caps, "known", True) is False


def _taken(backend: Backend) -> frozenset[str]:
    """The parameters an answer on an earlier run showed the backend's server takes."""
    return frozenset(getattr(getattr(backend, "knowledge", None), "accepted", ()))


class Run(Tally):
    """The state of one :func:`~fairjudge.runner.run_calls` invocation."""

    # (A Ctrl-C sets ``halted`` too: the calls in flight finish, and nothing more is sent.)

    def __init__(
        self,
        backends: dict[Route, Backend],
        *,
        store: Store,
        options: RunOptions,
        on_progress: Callable[[int], None] | None,
        parse: Parser | None,
        rng: random.Random,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.backends = backends
        self.store = store
        self.options = options
        self.queues: dict[Route, ClaimQueue] = {}
        self.shared_slots: asyncio.Semaphore | None = None  # --concurrency across backends
        self.retry, self.rng, self.parse = options.retry, rng, parse
        # The time the rate limits and retries wait in: the event loop's by default;
        # tests pass a fake clock and a sleep that moves it instead of waiting.
        self.clock, self.sleep = clock, sleep or asyncio.sleep
        self.progress, self.on_progress = make_progress(options.progress), on_progress
        self.outcomes: dict[str, CallOutcome] = {}
        Tally.__init__(self, options, backends, learners=backends.values())
        self.stopped: StopReason | None = None
        self.halted = False
        self.untaught = frozenset(r for r, b in backends.items() if _untaught(b))
        for route, backend in backends.items():  # what refusals taught, applied: _guess
            if callable(sent := getattr(backend, "sent_params", None)):
                self.sent_params[route] = sent
        self.redactor = Redactor.current()  # secrets read once: every reply is scrubbed
        self.rejected: dict[Route, int] = {}
        # Parameters an answer showed taken: an earlier run's too, as the backend keeps
        # them (its knowledge), so a later run over a taught model sends no lone probe.
        self.accepted: dict[Route, frozenset[str]] = {r: _taken(b) for r, b in backends.items()}
        self.culprit: Backend | None = None  # the backend whose error stopped the run

    # -- the run ---------------------------------------------------------------------

    async def execute(self, specs: Iterable[CallSpec]) -> RunResult:
        keys, todo = unique_calls(specs, self.backends)
        self.total = len(todo)
        cached = self.store.get_many(todo)
        for key, completion in cached.items():
            self.outcomes[key] = CallOutcome(
                key, todo.pop(key), "ok", completion=completion, cached=True, cost_usd=0.0
            )
        self.cached = len(cached)
        if todo:
            refuse_open_batches(self.store, todo)
        if self.progress is not None:
            self.progress.start(self.snapshot())
        self._report()
        try:
            if todo:
                async with Leases(self.store, self.queues.values()):
                    await self._make_calls(todo)
        except (FatalBackendError, EndpointUnreachable, RequestRejected) as exc:
            assert self.culprit is not None  # set by the call that raised
            finished = self.cached + self.done
            paid = self.paid_note()  # money spent is said even when the run stops
            raise stop_error(
                exc, self.culprit, finished, self.store.path, self.retry, paid
            ) from exc
        finally:
            self._report()
            if self.progress is not None:
                self.progress.finish(self.snapshot())
        for key, spec in todo.items():
            if key not in self.outcomes:
                self.outcomes[key] = CallOutcome(key, spec, "not_run")
        return RunResult(tuple(keys), self.outcomes, self.summary())

    def _worker_counts(self, todo: dict[str, CallSpec]) -> dict[Route, int]:
        """Workers per backend: each gets its own, so a slow one never idles the others.

        A backend's share is capped by its own limit (an in-process model answers one
        call at a time) and by ``--concurrency``; when the shares add up to more than
        ``--concurrency``, a shared semaphore keeps the total in flight within it.
        """
        by_route: dict[Route, list[tuple[str, CallSpec]]] = {}
        for key, spec in todo.items():
            by_route.setdefault(spec.route, []).append((key, spec))
        concurrency = self.options.concurrency
        counts = {}
        for route, items in by_route.items():
            cap = self.backends[route].max_concurrency or concurrency
            counts[route] = min(cap, concurrency, len(items))
            self.queues[route] = ClaimQueue(self.store, items, self._served)
        if sum(counts.values()) > concurrency:
            self.shared_slots = asyncio.Semaphore(concurrency)
        return counts

    async def _make_calls(self, todo: dict[str, CallSpec]) -> None:
        loop = asyncio.get_running_loop()
        self.loop = loop
        self.now = self.clock if self.clock is not None else loop.time
        self.writer = BatchWriter(self.store, loop, on_error=self._store_failed)
        now = self.now()
        rpm, tpm = self.options.rpm, self.options.tpm
        self.rpm_bucket = TokenBucket.per_minute(rpm, now) if rpm else None
        self.tpm_bucket = TokenBucket.per_minute(tpm, now) if tpm else None
        tasks = [
            loop.create_task(self._worker(route))
            for route, n in self._worker_counts(todo).items()
            for _ in range(n)
        ]
        ticker = None
        if self.progress is not None or self.on_progress is not None:
            ticker = loop.create_task(self._tick())
        MAKING.add(self)  # where an interrupt finds the calls in flight (``_executor``)
        try:
            errors: list[BaseException] = []
            pending = set(tasks)
            ends: float | None = None  # the graceful stop's grace, once it was asked for
            while pending:
                # Armed (a run keeps nothing: the command line may stop it), it looks.
                look = GRACEFUL_STOP.poll_s if GRACEFUL_STOP.armed else None
                _, pending = await asyncio.wait(
                    pending, timeout=look, return_when=asyncio.FIRST_EXCEPTION
                )
                if pending and GRACEFUL_STOP.requested:  # the command line's (a Ctrl-C)
                    ends = stop_gracefully(self, pending, todo, ends)
                errors = [
                    e for t in tasks if t.done() and not t.cancelled() if (e := t.exception())
                ]
                # A store that cannot be written stops starting calls, but the calls in
                # flight finish: their replies are paid for, so each one is stored if it
                # fits or counted in the error if not. Any other error stops them too.
                if not all(isinstance(e, StoreWriteError) for e in errors):
                    break
                self.halted = self.halted or bool(errors)
            fatal = [e for e in errors if isinstance(e, _STOPPING)]
            if fatal or errors:
                first = (fatal or errors)[0]
                if isinstance(first, StoreWriteError) and self.writer.error is not None:
                    first = self.writer.error  # the one that counts every reply not stored
                raise first
        finally:
            MAKING.discard(self)
            for task in (*tasks, ticker):
                if task is not None and not task.done():
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if ticker is not None:
                await asyncio.gather(ticker, return_exceptions=True)
            self.writer.flush()

    async def _worker(self, route: Route) -> None:
        take, call, queue = self._take, self._call, self.queues[route]
        while True:
            while (item := take(queue)) is not None:
                guess = None
                if self.budget is not None:
                    guess = await self._admit(*item, self.budget)
                    if guess is None:
                        return
                await call(*item, guess)
            # Nothing claimable now; calls another process holds may come back to us.
            if self.stopped is not None or self.halted or not await queue.wait():
                return

    def _store_failed(self) -> None:
        """A row could not be stored: start no call and send no retry from now on."""
        self.halted = True

    def _served(self, key: str, spec: CallSpec, completion: Completion) -> None:
        """A call another process made while this run waited: served like a cached one."""
        self.outcomes[key] = CallOutcome(
            key, spec, "ok", completion=completion, cached=True, cost_usd=0.0
        )
        self.cached += 1

    def _take(self, queue: Iterator[tuple[str, CallSpec]]) -> tuple[str, CallSpec] | None:
        """The next call to start, or ``None`` when there is none or a budget is spent."""
        if GRACEFUL_STOP.requested and self.stopped is None:
            self.halted, self.stopped = True, "interrupted"
        if self.stopped is not None or self.halted:
            return None
        item = next(queue, None)
        if item is None:
            return None
        max_calls = self.options.max_calls
        if max_calls is not None and self.started >= max_calls:
            self.stopped = "max_calls"
            return None
        self.started += 1
        return item

    async def _call(self, key: str, spec: CallSpec, guess: CallGuess | None) -> None:
        try:
            if spec.route in self.untaught and not await self._in_line(key, spec):
                self._settle(guess)  # the run stopped while it waited: never sent
                return
            if self.shared_slots is None:
                await self._attempts(key, spec, guess)
                return
            async with self.shared_slots:
                await self._attempts(key, spec, guess)
        finally:
            if self.probes:
                self._probe_over(key, spec)

    async def _in_line(self, key: str, spec: CallSpec) -> bool:
        """Wait for an unknown model's call's turn; ``False`` when the run stopped meanwhile.

        Until a call asking every parameter this one asks is answered, the backend
        sends them one at a time (its probe line, see
        :class:`~fairjudge.backends.OpenAIBackend`); the rest wait here, not in its
        line: out of :attr:`sent` (not in flight), and never sent once the run is
        halted (a Ctrl-C's grace lets no call start when the probe ends). With
        ``max_cost`` the turn was taken in :meth:`_admit` already.
        """
        route = spec.route
        while not self.accepted.get(route, frozenset()).issuperset(spec.params):
            if self.probes.setdefault(route, key) == key:
                return True  # this call is the probe
            if self._settled is None:
                self._settled = asyncio.Event()
            await self._settled.wait()  # set when a probe is over (_probe_over)
            if self.halted:
                return False
        return True

    async def _attempts(self, key: str, spec: CallSpec, guess: CallGuess | None) -> None:
        loop, backend, retry = self.loop, self.backends[spec.route], self.retry
        now, sleep = self.now, self.sleep
        est = estimate_tokens(spec) if self.tpm_bucket is not None else (0, 0)
        attempts, started = 0, now()
        while True:
            if self.rpm_bucket is not None:
                wait = self.rpm_bucket.reserve(1, now())
                if wait > 0:
                    await sleep(wait)
            if self.tpm_bucket is not None:
                wait = self.tpm_bucket.reserve(est[0] + est[1], now())
                if wait > 0:
                    await sleep(wait)
            if self.halted:  # stopped (a Ctrl-C, a full disk) while it waited: not sent
                self._settle(guess)
                return
            attempts += 1
            self.requests += 1
            self.sent[key] = sent_at = loop.time()
            try:
                completion = await backend.complete(spec)
            except BackendError as exc:
                del self.sent[key]  # over: backing off, it is not in flight (nor waited for)
                # More than 1: the transport resent it before failing; 0: it failed
                # unsent (an unknown model's call in line behind a fatal probe).
                if exc.requests != 1:
                    attempts += exc.requests - 1
                    self.requests += exc.requests - 1
                if exc.requests == 0 and self._stops_the_run(exc, spec):
                    self._unsent_at_stop(backend, guess)
                    raise
                note = ""
                if retry.should_retry(exc, attempts):
                    delay = retry.delay(exc, attempts, self.rng)
                    if now() - started + delay < retry.max_call_s:
                        self.retries += 1
                        self.backoff_s += delay
                        await sleep(delay)
                        if not self.halted:
                            continue
                        # The run stopped meanwhile (a full disk, a fatal error): no retry,
                        # whose reply would be paid for with nowhere to go, and no row.
                        self._settle(guess)
                        return
                    note = f" (gave up after {now() - started:.0f} s: the per-call limit)"
                if self._stops_the_run(exc, spec):
                    self.halted = True  # start nothing more while the error row is written
                    self.culprit = backend
                    await self._failed(key, spec, exc, attempts, guess)
                    raise
                await self._failed(key, spec, exc, attempts, guess, note)
                return
            except Exception as exc:  # a bug in a backend is this call's error, not the run's
                await self._failed(key, spec, exc, attempts, guess)
                return
            finally:
                self.sent.pop(key, None)
            break
        self._answered_after(sent_at, loop.time())  # the attempt that answered, no back-off
        if completion.requests > 1:  # the transport resent it: count every request sent
            extra = completion.requests - 1
            attempts += extra
            self.requests += extra
            if self.rpm_bucket is not None:
                self.rpm_bucket.adjust(extra, now())
        self.answered.add(route := spec.route)
        self.accepted[route] = self.accepted.get(route, frozenset()).union(spec.params)
        await self._succeeded(key, spec, completion, attempts, guess, est)

    def _unsent_at_stop(self, backend: Backend, guess: CallGuess | None) -> None:
        """A call that failed unsent with an error that stops the run: it leaves no row.

        An unknown model's calls wait in line behind its probe; a probe's fatal error
        (a bad key, an unknown model, a refused ``reasoning_effort``) fails the calls
        in line without sending them, and those woken before the run's cancel lands
        come here. Nothing was asked of the judge, so there is no judgment to keep or
        to count as failed: the store (cache and audit log of the calls made) gets no
        row, the run counts no failure, and the call ends ``not_run``, as do the calls
        the stop kept from starting. A rerun sends it, since only ``ok`` rows are
        served. Not a silent drop: the stop's error, recorded on the probe's own row,
        says why the run stopped and that it continues on a rerun.
        """
        self.halted = True
        self.culprit = self.culprit or backend
        self._settle(guess)

    def _stops_the_run(self, exc: BackendError, spec: CallSpec) -> bool:
        """Whether a call's final error concerns every call, not just this one."""
        if isinstance(exc, EndpointUnreachable | RequestRejected) and spec.route in self.answered:
            return False  # the backend has answered this run: the fault is this call's
        if isinstance(exc, RequestRejected):
            # One rejected request is that request's problem; rejecting every one of the
            # first few, having accepted none, is a problem with every request.
            self.rejected[spec.route] = self.rejected.get(spec.route, 0) + 1
            return self.rejected[spec.route] >= REJECTIONS_BEFORE_STOP
        return isinstance(exc, EndpointUnreachable) or not exc.retryable

    async def _succeeded(
        self, key: str, spec: CallSpec, completion: Completion, attempts: int,
        guess: CallGuess | None, est: tuple[int, int],
    ) -> None:  # fmt: skip
        # The one place every backend's fresh reply passes before it is parsed, stored or
        # returned: a server that reflects the key, in any field, never gets it stored.
        completion = self.redactor.completion(completion)
        bill = self._charge(spec, completion, guess)  # the ledger: usage checked, never < 0
        n_in, n_out, cost = bill.input_tokens, bill.output_tokens, bill.cost_usd
        if self.tpm_bucket is not None:
            self.tpm_bucket.adjust(n_in + n_out - est[0] - est[1], self.now())
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
            spec, key, "ok", completion=completion, parsed=parsed, cost_usd=cost, attempts=attempts
        )
        await self.writer.write(record)

    async def _failed(
        self, key: str, spec: CallSpec, exc: Exception, attempts: int,
        guess: CallGuess | None, note: str = "",
    ) -> None:  # fmt: skip
        text = scrub(str(exc)) or type(exc).__name__
        error = CallError(type(exc).__name__, text + note)
        # A reply cut at its token cap is billed: charged, its usage kept on the row.
        billed, cost = self._charge_failed(spec, exc, guess, self.redactor.completion)
        self.outcomes[key] = CallOutcome(
            key, spec, "error", error=error, attempts=attempts, cost_usd=cost
        )
        self.failed += 1
        record = call_row(
            spec, key, "error", completion=billed, cost_usd=cost, attempts=attempts,
            error_kind=error.kind, error_message=error.message,
        )  # fmt: skip
        await self.writer.write(record)
