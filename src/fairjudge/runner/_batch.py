"""Judge calls through the providers' batch APIs: :class:`BatchExecutor`, and its engine.

A batch is another way of running a session's calls: the store's cache, claims,
parsing, cost ledger (at the batch price) and rows are the engine's own, so a batch
run's results equal an online run's. Batch ids are stored as soon as the provider
accepts them, so a killed run resumes by collecting, never by submitting again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import math
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import fairjudge._errors as _errors
from fairjudge._call import Backend, CallSpec, Completion, Route, route_of
from fairjudge._errors import (
    BackendError,
    BatchPending,
    ConfigError,
    RateLimitError,
)
from fairjudge._redact import scrub
from fairjudge._types import CallError
from fairjudge.backends import UploadingBatchAPI
from fairjudge.runner._batch_teach import TeachingRun
from fairjudge.runner._claims import Leases
from fairjudge.runner._executor import Batch
from fairjudge.runner._limits import RunOptions
from fairjudge.runner._progress import Snapshot
from fairjudge.runner._records import utc_now
from fairjudge.runner._result import CallOutcome, RunResult
from fairjudge.runner._store_schema import (
    UPLOADED,
    OpenBatch,
    collected,
    failed_in_batches,
    open_batches,
    record_batch,
    renamed,
    seen,
)
from fairjudge.runner._tally import unique_calls

if TYPE_CHECKING:
    from fairjudge.backends import BatchAPI, BatchState

__all__ = ["DEFAULT_POLL_S", "BatchExecutor", "BatchRun"]


_SHOWN_BATCHES = 3  # batches named in a progress line; the rest are counted


class BatchRun(TeachingRun):
    """One :meth:`BatchExecutor.execute <fairjudge.runner.BatchExecutor.execute>` call."""

    def __init__(
        self,
        batch: Batch,
        *,
        wait: bool,
        poll_s: float,
        clients: Callable[[Backend], BatchAPI] | None,
        abandon: Sequence[str] = (),
    ) -> None:
        super().__init__(
            {route_of(b): b for b in batch.backends},
            store=batch.store,
            options=batch.options,
            on_progress=batch.on_progress,
            parse=batch.parse,
            rng=random.Random(),
        )
        if clients is None:
            from fairjudge.backends import batch_client

            clients = batch_client
        self.wait, self.poll_s, self.make_client, self.abandon = wait, poll_s, clients, abandon
        self.clients: dict[Route, BatchAPI] = {}
        self.states: dict[str, BatchState] = {}
        self.todo: dict[str, CallSpec] = {}
        self.claimed: set[str] = set()
        self.own: dict[str, float] = {}
        self.waiting = 0  # calls in batches not yet collected
        self.submitted = 0

    # -- progress ------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The engine's counts, with each batch's state and counts as the detail."""
        snap = dataclasses.replace(super().snapshot(), in_flight=self.waiting)
        if not self.states:
            return snap
        shown = [
            f"batch {bid} {s.status}" + (f" ({s.counts_text()})" if s.counts else "")
            for bid, s in list(self.states.items())[-_SHOWN_BATCHES:]
        ]
        if len(self.states) > _SHOWN_BATCHES:
            shown.insert(0, f"{len(self.states)} batches")
        return dataclasses.replace(snap, detail="; ".join(shown))

    # -- the run -------------------------------------------------------------------

    async def execute(self, specs: Sequence[CallSpec]) -> RunResult:  # type: ignore[override]
        """Serve what the store holds, batch the rest, and return one outcome per call."""
        keys, todo = unique_calls(specs, self.backends)
        self.todo, self.total = todo, len(todo)
        self._abandon(self.abandon)  # before the store is read for these calls
        for key, completion in self.store.get_many(todo).items():
            self._served(key, todo[key], completion)
        self._refused_before([k for k in todo if k not in self.outcomes])
        remaining = {k: s for k, s in todo.items() if k not in self.outcomes}
        loop = asyncio.get_running_loop()
        self.loop, self.now = loop, loop.time
        from fairjudge.runner._run import BatchWriter

        self.writer = BatchWriter(self.store, loop, on_error=self._store_failed)
        self.rpm_bucket = self.tpm_bucket = None
        if self.progress is not None:
            self.progress.start(self.snapshot())
        self._report()
        ticker = None
        if self.progress is not None or self.on_progress is not None:
            ticker = loop.create_task(self._tick())
        try:
            if remaining:
                async with Leases(self.store, ()):
                    await self._rounds(remaining)
            if self.writer.error is not None:
                raise self.writer.error
        finally:
            await self._wind_down(ticker)
        for key, spec in todo.items():
            if key not in self.outcomes:
                self.outcomes[key] = CallOutcome(key, spec, "not_run")
        return RunResult(tuple(keys), self.outcomes, self.summary())

    async def _wind_down(self, ticker: asyncio.Task[None] | None) -> None:
        if ticker is not None:
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)
        self.writer.flush()
        with contextlib.suppress(Exception):  # unreleased claims expire anyway
            self.store.release(self.claimed)
        for client in self.clients.values():
            with contextlib.suppress(Exception):
                await client.aclose()
        self._report()
        if self.progress is not None:
            self.progress.finish(self.snapshot())

    async def _rounds(self, remaining: dict[str, CallSpec]) -> None:
        while remaining and not self.halted:
            claimed = self.store.claim(list(remaining))
            self.claimed.update(claimed)
            mine = set(claimed)
            for key, completion in self.store.get_many(
                k for k in remaining if k not in mine
            ).items():
                self._served(key, remaining[key], completion)
            earlier = [b for b in self._ledger(open_batches, claimed) if b.route in self.backends]
            earlier = await self._follow(earlier, once=True)  # collected or lost first
            held = {key for b in earlier for key in b.members.values()} | set(self.outcomes)
            taught = await self._taught([k for k in claimed if k not in held])
            fresh = self._within_budget(taught, earlier)
            made = await self._submit([(k, remaining[k]) for k in fresh])
            still_open = await self._follow(earlier + made, polled={b.id for b in earlier})
            for key in [k for k in remaining if k in self.outcomes]:
                del remaining[key]
            left = len(remaining) - self.held_back  # in batches, or another process's
            if not self.wait and left and (still_open or self.stopped is None):
                raise self._pending(still_open, left)  # a budget stop too: same command
            if self.stopped is not None or not remaining:
                return
            await asyncio.sleep(self.poll_s)  # the rest is another process's: look again

    def _refused_before(self, keys: list[str]) -> None:
        """Serve the calls an ended batch answered with an error no new request can fix.

        The provider refused the request (a prompt too long, a bad parameter): sent
        again it fails again, and each rerun without ``wait`` would stop on its batch
        (an audit never reaching its next stage). So its stored error is its outcome,
        at no cost, as a stored reply is; errors a new request may get past (a 429 or
        5xx inside the batch, an expired or cancelled batch, OpenAI's enqueued-token
        limit) are submitted again. A run without the batch executor makes it again.
        """
        for key, (kind, message) in self._ledger(failed_in_batches, keys).items():
            known = getattr(_errors, kind or "", None)
            if isinstance(known, type) and issubclass(known, BackendError) and not known.retryable:
                error = CallError(kind or "", scrub(message or "") or kind or "")
                self.outcomes[key] = CallOutcome(
                    key, self.todo[key], "error", error=error, cached=True
                )
                self.cached += 1

    # -- the provider --------------------------------------------------------------

    def _client(self, route: Route) -> BatchAPI:
        client = self.clients.get(route)
        if client is None:
            client = self.clients[route] = self.make_client(self.backends[route])
        return client

    async def _submit(self, items: list[tuple[str, CallSpec]]) -> list[OpenBatch]:
        """One batch per backend (split at its request limit), each recorded at once."""
        by_route: dict[Route, list[tuple[str, CallSpec]]] = {}
        for key, spec in items:
            by_route.setdefault(spec.route, []).append((key, spec))
        made = []
        for route, group in by_route.items():
            client = self._client(route)
            for chunk in client.chunks(group):  # within its request and byte limits
                members = [(key, key) for key, _ in chunk]  # custom_id: the store key
                record = functools.partial(
                    self._ledger, record_batch, provider=client.provider, route=route,
                    members=members, now=utc_now(),
                )  # fmt: skip
                if isinstance(client, UploadingBatchAPI):  # OpenAI: the file is recorded first
                    file_id = await self._retrying(functools.partial(client.upload, chunk))
                    record(batch_id=UPLOADED + file_id, input_file=file_id, status="uploaded")
                    state = await self._create(client, UPLOADED + file_id, look_first=False)
                else:
                    state = await self._submit_once(client, chunk)
                    record(batch_id=state.id, input_file=state.input_file)
                self.submitted += 1
                self.states[state.id], self.own[state.id] = state, self._worst(dict(members))
                made.append(
                    OpenBatch(state.id, client.provider, route, state.status, dict(members))
                )
        return made

    async def _submit_once(
        self, client: BatchAPI, chunk: Sequence[tuple[str, CallSpec]]
    ) -> BatchState:
        """Create a batch in one request, sent again only after a 429 (nothing was made).

        After a timeout or a 5xx the batch may exist, and a provider with no lookup
        by upload cannot tell: sending it again could pay for it twice, so the run
        stops instead, and what it recorded stays in the store.
        """
        attempts = 0
        while True:
            attempts += 1
            try:
                return await client.submit(chunk)
            except RateLimitError as exc:
                if not self.retry.should_retry(exc, attempts):
                    raise
                self.retries += 1
                await asyncio.sleep(self.retry.delay(exc, attempts, self.rng))

    async def _create(
        self, client: UploadingBatchAPI, pending: str, *, look_first: bool
    ) -> BatchState:
        """The batch over a recorded upload: found by its file, else created; the row renamed.

        Before each creation after the first (a timeout may have hidden a success),
        and first of all for a row a killed run left, the provider's list is
        searched for a batch over the file, so no upload gets two batches.
        """
        file_id = pending.removeprefix(UPLOADED)
        attempts, state = 0, None
        while state is None:
            if look_first or attempts:
                state = await self._retrying(functools.partial(client.find, file_id))
                if state is not None:
                    break
            attempts += 1
            try:
                state = await client.create(file_id)
            except BackendError as exc:
                if not self.retry.should_retry(exc, attempts):
                    raise
                self.retries += 1
                await asyncio.sleep(self.retry.delay(exc, attempts, self.rng))
        self._ledger(renamed, pending, state.id, state.status, utc_now())
        return state

    async def _follow(
        self, batches: list[OpenBatch], *, once: bool = False, polled: set[str] | None = None
    ) -> list[OpenBatch]:
        """Poll until every batch has ended (``wait``) or once; collect each that ended.

        ``polled``: batches polled a moment ago, not polled again before the first pause.
        A batch the provider does not know is marked lost (:meth:`_gone`).
        """
        running = {b.id: b for b in batches}
        self.waiting = sum(len(b.members) for b in batches)
        skip = polled or set()
        while running and not self.halted:
            for bid, batch in list(running.items()):
                if bid in skip:
                    continue
                client = self._client(batch.route)
                if bid.startswith(UPLOADED) and isinstance(client, UploadingBatchAPI):
                    made = await self._create(client, bid, look_first=True)  # a killed run's
                    del running[bid]
                    bid, batch = made.id, dataclasses.replace(batch, id=made.id)
                    running[bid], self.states[bid] = batch, made  # the provider knows it
                state = await self._retrying(functools.partial(client.poll, bid))
                if state.gone:
                    state = await self._gone(batch, client, state)
                    if state.gone:  # its calls are in no batch now: submitted again
                        self.waiting -= len(batch.members)
                        del running[bid]
                        continue
                self.states[bid] = state
                self._ledger(seen, state.id, state.status, utc_now())
                if state.ended:
                    await self._collect(batch, state, client)
                    self.waiting -= len(batch.members)
                    del running[bid]
            skip = set()
            if not running or once or not self.wait:
                break
            await asyncio.sleep(self.poll_s)
        return list(running.values())

    async def _collect(self, batch: OpenBatch, state: BatchState, client: BatchAPI) -> None:
        """Store every result of an ended batch that this run holds, as the engine would.

        What it cost is booked as this run's (no longer committed) or an earlier run's.
        """
        spent = self.spent
        ours = {
            cid: key
            for cid, key in batch.members.items()
            if key in self.todo and key in self.claimed and key not in self.outcomes
        }
        results, gone = await self._results(batch, state, client, list(ours))
        stored = self.store.get_many(ours.values())
        settling = []
        # Each call the provider ran is one request, counted as the run collects it
        # (a run that resumes a batch counts what it collects, as an online run would).
        self.requests += sum(1 for c, key in ours.items() if key not in stored and c in results)
        for cid, key in ours.items():
            spec, outcome = self.todo[key], results.get(cid)
            if key in stored:  # another process stored it meanwhile
                self._served(key, spec, stored[key])
            elif isinstance(outcome, Completion):
                settling.append(self._succeeded(key, spec, outcome, 1, None, (0, 0)))
            elif outcome is not None:  # none: its result is gone, and it is submitted again
                settling.append(self._failed(key, spec, outcome, 1, None))
        await asyncio.gather(*settling)  # one transaction for the batch's rows
        self._charged(batch.id, spent)
        self.writer.flush()
        if gone is not None:  # what was read is stored; the batch is lost (or the run stops)
            self._lose(batch, gone, results=len(results))
        elif len(self.store.usage_rows(batch.members.values())) == len(batch.members):
            self._ledger(collected, batch.id, state.status, utc_now())

    # -- store and messages --------------------------------------------------------

    def _pending(self, running: list[OpenBatch], left: int) -> BatchPending:
        """The error that ends a run not told to wait, naming what is still running."""
        batches = {b.id: self.states[b.id].status for b in running if b.id in self.states}
        listed = ", ".join(f"{bid} ({status})" for bid, status in batches.items())
        where = f"{len(batches)} provider batch(es) still running: {listed}" if batches else ""
        in_batches = sum(len(b.members) for b in running)
        if left > in_batches:
            where += ("; " if where else "") + f"{left - in_batches} held by another process"
        budget, collect, stop = "", "collect the results", self.stopped
        if stop is not None:  # the budget is reached, and the same command collects
            budget = (
                f" The {stop}={getattr(self.options, stop)} budget is reached: "
                f"{self.held_back} calls were not submitted ({_COUNTED[stop]})."
            )
            collect += " and submit up to the budget again"
        if self.options.max_cost is not None or self.options.max_calls is not None:
            budget += self._committed(running)
        budget += "".join(f" Note: {note}." for note in self.lost_notes)
        error = BatchPending(
            f"{left} of {self.total} calls are not answered yet ({where}).{budget} The batch "
            f"ids are in the store {self.store.path}: run the same work again to {collect} "
            "(nothing is submitted twice), or pass wait=True to poll until they end",
            batches=batches,
            calls=left,
        )
        error.params = ("wait",) if stop is None else ("wait", stop)
        return error


_COUNTED = {
    "max_calls": "each submitted call counts as made, and each in a batch not collected yet",
    "max_cost": "each submitted call is held at its estimate: a submitted batch is committed "
    "money, billed for every request it runs; so is each call in a batch not collected yet",
}
"""How a submitted call counts against each budget, in a pending run's message."""


_PACING = ("concurrency", "rpm", "tpm")
"""The run options that pace online requests: no batched request goes at their pace."""

DEFAULT_POLL_S = 30.0
"""Seconds between polls of a running batch: a batch takes minutes to hours."""


class BatchExecutor:
    """Runs a session's uncached calls as provider batches (OpenAI Batch, Anthropic).

    Args:
        wait: Poll until every batch has ended (``True``), or submit, collect what
            has ended and raise :class:`~fairjudge.BatchPending` (``False``).
        poll_s: Seconds between polls.
        clients: Builds the batch client of a backend (tests pass their own);
            default :func:`fairjudge.backends.batch_client`.
        abandon: Ids of recorded batches to give up on, whatever the provider says
            of them (deleted on its console, or too slow), at the start of the first
            run with calls to make (a run the store serves whole does not start): each
            is marked lost in the store (its record kept) and its calls are submitted
            again, and paid for again, with a note.

    Raises:
        ConfigError: ``poll_s`` is not a positive number, or ``abandon`` holds
            something other than batch ids.

    Example:
        >>> session = JudgeSession(backend, executor=BatchExecutor(wait=True))  # doctest: +SKIP
    """

    sends_batches = True
    """Its calls go to a provider's batch API, which only ``openai/`` and ``anthropic/`` have.

    The judge check (``judges._registry.check_batch_api``) reads it without importing
    this module."""
    budget_note = (
        "A submitted batch is committed money: the provider bills every request it runs, "
        "so max_cost was held against the estimate of every call before submission."
    )
    """A sentence added to a budget stop's message under this executor."""
    interrupt_note = (
        "a batch already submitted keeps running at the provider (and is billed): run the "
        "same work again to collect it (nothing is submitted twice)"
    )
    """Added to the notes of a Ctrl-C that interrupts it: a submitted batch is not stopped."""

    def __init__(
        self,
        *,
        wait: bool = True,
        poll_s: float = DEFAULT_POLL_S,
        clients: Callable[[Backend], BatchAPI] | None = None,
        abandon: Sequence[str] = (),
    ) -> None:
        if isinstance(abandon, str) or not all(isinstance(b, str) and b for b in abandon):
            raise ConfigError(
                f"abandon takes a list of batch ids; got {abandon!r}", params="abandon"
            )
        self.abandon = tuple(dict.fromkeys(abandon))
        """Batches the next run gives up on (then none: a batch is given up once)."""
        if isinstance(poll_s, bool) or not isinstance(poll_s, int | float):
            raise ConfigError(
                f"batch_poll_s must be a number; got {poll_s!r}", params="batch_poll_s"
            )
        if not 0 < poll_s < math.inf:
            raise ConfigError(f"batch_poll_s must be > 0; got {poll_s!r}", params="batch_poll_s")
        self.wait = wait
        self.poll_s = float(poll_s)
        self.clients = clients
        self.submitted = 0
        """Batches this executor submitted (not those it resumed)."""

    def __repr__(self) -> str:
        return f"BatchExecutor(wait={self.wait!r}, poll_s={self.poll_s!r})"

    def check(self, backends: Sequence[Backend]) -> None:
        """Refuse, before any call, a backend that no batch API serves.

        Raises:
            ConfigError: Naming ``batch_api`` and the backend.
        """
        from fairjudge.backends import check_batchable

        for backend in backends:
            check_batchable(backend)

    async def execute(self, batch: Batch) -> RunResult:
        """Submit the uncached calls as batches, follow them, and store every result.

        Raises:
            ConfigError: A backend of the batch's calls has no batch API, or the
                options set ``concurrency``, ``rpm`` or ``tpm``, which pace online calls.
            BatchPending: ``wait=False`` and some batches have not ended yet.
            FatalBackendError: The batch endpoints refused the run (bad key, no such
                endpoint, a 404 for a batch this run submitted); what was submitted
                stays in the store. An earlier run's batch the provider does not know
                is marked lost instead, and its calls submitted again.
        """
        routes = {spec.route for spec in batch.specs}
        self.check([b for b in batch.backends if route_of(b) in routes])
        paced = [n for n in _PACING if getattr(batch.options, n) != getattr(RunOptions(), n)]
        if paced:  # a setting that does not apply is refused, never ignored
            raise ConfigError(
                "calls sent through a provider's batch API are paced by its own queue, not "
                f"by {' or '.join(paced)}: drop {' and '.join(paced)}",
                params=tuple(paced),
            )
        run = BatchRun(
            batch, wait=self.wait, poll_s=self.poll_s, clients=self.clients, abandon=self.abandon
        )
        try:
            return await run.execute(batch.specs)
        finally:
            self.submitted += run.submitted
            if run.abandoned:  # given up once; a refused id is refused again
                self.abandon = ()
