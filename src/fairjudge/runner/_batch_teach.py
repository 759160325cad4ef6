"""What a batch run does before it submits: teach unknown models, hold the budget.

A backend learns what an unknown model refuses from refused requests, one per
parameter; a batch cannot learn, and every line sent untaught could be refused. So
the batch run makes such a model's first calls online, as the engine makes any call,
until one is answered; the batch then sends the request that answer taught. The
budget is then held against every call's estimate, those of batches earlier runs
submitted and nobody collected yet included; a batch the provider no longer knows is
marked lost, and its calls are submitted again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import shlex
import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from fairjudge._call import CallSpec, Route
from fairjudge._errors import BackendError, ConfigError, FatalBackendError
from fairjudge.runner._prices import BATCH_PRICE_FACTOR, UNKNOWN_OUTPUT_TOKENS
from fairjudge.runner._records import utc_now
from fairjudge.runner._run import Run
from fairjudge.runner._store_errors import sql_text
from fairjudge.runner._store_schema import OpenBatch, lost

if TYPE_CHECKING:
    from fairjudge._call import Completion
    from fairjudge.backends import BatchAPI, BatchState

    Outcome = Completion | BackendError

__all__ = ["ONLINE_TRIES", "TeachingRun"]

_T = TypeVar("_T")

LOST_AFTER_S = 600.0
"""How old (from the store's ``submitted_at``) a batch must be before a not-found 404
for it marks it lost, whatever ``poll_s`` is.

A provider's 404 for a batch it created is transient only just after creation, while
the batch propagates (anthropic-sdk-python#1432: seconds), and a batch lives for
hours (24 h at most before it expires). Ten minutes is far past any such lag, so a
404 then is the key that cannot see the batch or a deleted batch; and it covers the
rerun of a run killed right after submitting, which a store handed over (the case
for losing a batch) is not. Younger, the calls would be paid for twice on a 404 for
a moment, so the run stops instead and says when the batch would be lost."""

_LOST_ASKS = 3
"""Not-found answers, ``poll_s`` apart, before a batch of another run is lost."""

ONLINE_TRIES = 3
"""Calls of a model the capability table does not know that go online, each with its
retries, before its batch is given up for the run when none is answered."""


def _batch_row(conn: sqlite3.Connection, bid: str) -> tuple[Any, ...] | None:
    """A recorded batch's ``(status, collected_at, requests)``, or ``None``."""
    sql = "SELECT status, collected_at, requests FROM batches WHERE id = ?"
    return conn.execute(sql, (bid,)).fetchone()  # type: ignore[no-any-return]


def _open_ids(conn: sqlite3.Connection) -> list[str]:
    """The ids of the recorded batches not collected yet, oldest first."""
    sql = "SELECT id FROM batches WHERE collected_at IS NULL ORDER BY submitted_at"
    return [str(bid) for (bid,) in conn.execute(sql)]


class TeachingRun(Run):
    """The engine, with an unknown model's first calls made online before its batch."""

    todo: dict[str, CallSpec]
    """Every unique call of the run, by key (set by the batch run)."""
    committed = 0.0
    """The estimate of the calls this run submitted and has not collected yet."""
    own: dict[str, float]
    """The estimate of each batch this run submitted and has not collected, by id."""
    resumed = 0.0
    """What the batches of earlier runs that this run collected cost: not its spending."""
    held_back = 0
    """Calls a budget kept from this round's batches."""
    lost_notes: tuple[str, ...] = ()
    """What became of each batch the provider no longer knows (a note of the summary)."""
    abandoned = False
    """The batches the user gave up on (``abandon``) are lost now, or there were none."""
    states: dict[str, BatchState]
    """Each batch this run submitted or polled, as last seen (set by the batch run)."""
    poll_s: float
    """Seconds between polls (set by the batch run)."""

    def _ledger(self, work: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        """``work(conn, *args, **kwargs)`` on the store's batch tables, in one transaction."""
        store = self.store
        with store._lock:
            return store._transaction(lambda: work(store._conn, *args, **kwargs))

    def _worst(self, keys: Iterable[str]) -> float:
        """The calls' estimate at the batch price (unpriced routes count nothing).

        A quarter token a prompt character, and the cap of reply; ``max_cost`` refuses
        unpriced routes before this.
        """
        total = 0.0
        for key in keys:
            spec = self.todo[key]  # guessed as sent: what an online call taught applied
            prices, guess = self.pricing.of(spec), self._guess(spec)
            if prices is not None:
                full = prices.cost(guess.input, guess.cap or UNKNOWN_OUTPUT_TOKENS)
                total += full * BATCH_PRICE_FACTOR
        return total

    def _within_budget(self, fresh: list[str], earlier: list[OpenBatch]) -> list[str]:
        """The calls ``max_calls`` and ``max_cost`` let this round submit, in order.

        The cost of a batch is committed in full once submitted, so each call is held
        at its estimate (:meth:`_worst`) before submission; so are the calls of this
        run in batches ``earlier`` runs submitted and nobody has collected yet, which
        count as made too. A rerun while they run submits nothing past the budget, and
        one that collected them may submit up to it again.
        """
        held = self._held(earlier)
        take, stop = (0, self.stopped) if self.stopped else (len(fresh), None)
        max_calls = self.options.max_calls
        if max_calls is not None and max_calls - self.started - len(held) < take:
            take, stop = max(max_calls - self.started - len(held), 0), "max_calls"
        max_cost = self.options.max_cost
        if max_cost is not None:
            left = max_cost - (self.spent - self.resumed) - self.committed - self._worst(held)
            total = 0.0
            for n, key in enumerate(fresh[:take]):
                cost = self._worst([key])
                if total + cost > left:
                    take, stop = n, "max_cost"
                    break
                total += cost
            self.committed += total
        if stop is not None:
            self.stopped = stop
            with contextlib.suppress(Exception):
                self.store.release(fresh[take:])
        self.started += take
        self.held_back = len(fresh) - take
        return fresh[:take]

    def _held(self, batches: Iterable[OpenBatch]) -> list[str]:
        """This run's calls in ``batches`` (a batch may hold other runs' calls too)."""
        return [k for b in batches for k in b.members.values() if k in self.todo]

    def _committed(self, running: list[OpenBatch]) -> str:
        """What ``running`` holds of this run's calls: committed money not collected yet."""
        held = self._held(running)
        worst = f", worst case ${self._worst(held):.4f}" if self.pricing.priced else ""
        return (
            f" Committed and not collected yet: {len(held)} calls in {len(running)} "
            f"batch(es){worst}."
        )

    def _charged(self, batch_id: str, spent: float) -> None:
        """Book what collecting a batch cost (``self.spent`` was ``spent`` before).

        This run's batch is no longer committed money: its cost is spent. Another
        run's is not this run's spending (:attr:`resumed`), whichever poll collected it.
        """
        mine = self.own.pop(batch_id, None)
        if mine is None:
            self.resumed += self.spent - spent
        else:
            self.committed = max(self.committed - mine, 0.0)

    async def _retrying(self, what: Callable[[], Awaitable[_T]]) -> _T:
        """``what()``, sent again after a retryable error (429, 5xx, timeouts) with backoff."""
        attempts = 0
        while True:
            attempts += 1
            try:
                return await what()
            except BackendError as exc:
                if not self.retry.should_retry(exc, attempts):
                    raise
                self.retries += 1
                delay = self.retry.delay(exc, attempts, self.rng)
                self.backoff_s += delay
                await asyncio.sleep(delay)

    async def _gone(self, batch: OpenBatch, client: BatchAPI, state: BatchState) -> BatchState:
        """Ask again about a batch the provider does not know; if it still does not, lose it.

        A lost batch's calls are submitted again, and paid for again.

        A batch this run saw is not lost (a provider may answer 404 for a moment just
        after creation, anthropic-sdk-python#1432): the run stops, as on any error of
        the endpoints. Another run's is asked :data:`_LOST_ASKS` times, ``poll_s``
        apart, and lost only if it is old enough (:meth:`_lose`: ``LOST_AFTER_S``).

        Raises:
            FatalBackendError: This run submitted or polled the batch, or it is too
                young to be lost (the provider does not know it *yet*).
        """
        if batch.id in self.states:
            raise FatalBackendError(state.gone)
        for _ in range(_LOST_ASKS - 1):
            await asyncio.sleep(self.poll_s)
            state = await self._retrying(functools.partial(client.poll, batch.id))
            if not state.gone:
                return state
        self._lose(batch, state.gone)
        return state

    async def _results(
        self, batch: OpenBatch, state: BatchState, client: BatchAPI, members: list[str]
    ) -> tuple[dict[str, Outcome], str | None]:
        """The outcomes of ``members`` (``custom_id``) of an ended batch, and ``None``.

        When the provider no longer keeps its results (a results file deleted or past
        its expiry, an archived batch: the client's ``ResultsGone``, a
        :class:`FatalBackendError` with the replies still read as its ``found``),
        asked :data:`_LOST_ASKS` times ``poll_s`` apart (a 404 for a moment came for an
        ended batch's results too, anthropic-sdk-python#1432): the replies still read,
        and why the rest are gone; the caller stores those and loses the batch.

        Raises:
            FatalBackendError: The batch is this run's own: its results are missing just
                after it ended, so the run stops and keeps its record (a rerun asks again).
        """
        if not members:
            return {}, None
        for ask in range(_LOST_ASKS):
            if ask:
                await asyncio.sleep(self.poll_s)
            try:
                return await self._retrying(lambda: client.results(state, members)), None
            except FatalBackendError as exc:
                if not isinstance(getattr(exc, "found", None), dict):  # not ResultsGone
                    raise
                gone = exc
        if batch.id in self.own:
            raise FatalBackendError(
                f"the provider does not have the results of batch {batch.id}, which this run "
                f"submitted ({str(gone).rstrip('.')}); its record stays in the store "
                f"{self.store.path}: run the same command again to ask again (a batch whose "
                "results are still missing then is marked lost and its calls submitted again)"
            )
        found: dict[str, Outcome] = dict(getattr(gone, "found", {}))
        return found, str(gone)

    def _lose(self, batch: OpenBatch, why: str, *, results: int | None = None) -> None:
        """Mark ``batch`` lost in the store: its calls are in no batch, and are submitted again.

        Only a batch at least :data:`LOST_AFTER_S` old; its ``batch_calls`` stay
        (:func:`~fairjudge.runner._store_schema.lost`). ``results``: the provider knows
        the batch, but no longer keeps its results; that many replies were still read.

        Raises:
            FatalBackendError: The batch is younger, or the store has no readable time
                of its submission (then it is never lost by a run: paying twice is the
                user's call): the provider does not know it *yet*.
        """
        try:
            at = datetime.fromisoformat(batch.submitted_at)
            at = at if at.tzinfo else at.replace(tzinfo=UTC)
        except ValueError:
            at = None
        what = f"{'the results of ' if results is not None else ''}batch {batch.id}"
        if at is None or (now := datetime.now(UTC)) - at < timedelta(seconds=LOST_AFTER_S):
            path = self.store.path
            give_up = (
                f"sqlite3 {shlex.quote(str(path))} \"UPDATE batches SET status = 'lost', "
                f'collected_at = datetime() WHERE id = {sql_text(batch.id)}"'
            )
            causes = (
                "its results file was deleted or expired, or its results were archived"
                if results is not None
                else "the key in use cannot see it, or it was deleted"
            )
            when = (
                f"it was submitted {(now - at).total_seconds():.0f} s ago ({batch.submitted_at}"
                f" in the store {path}), and is treated as lost only once it is "
                f"{LOST_AFTER_S / 60:.0f} minutes old: run the same command again after "
                f"{(at + timedelta(seconds=LOST_AFTER_S)).isoformat(timespec='seconds')}. If "
                f"the provider still does not know it then ({causes}), it is marked lost in "
                "the store and its calls are submitted again, and paid for again. To give it "
                "up now (you deleted it, or know it will "
                f"not come back), mark it lost and run the same command again: {give_up}"
                if at is not None
                else f"the store {path} records no readable time of its submission "
                f"({batch.submitted_at!r}), so no run treats it as lost; to have its calls "
                f"submitted again, and paid for again: {give_up}"
            )
            raise FatalBackendError(
                f"the provider does not know {what} ({len(batch.members)} calls, recorded "
                f"in the store) yet ({why.rstrip('.')}). A provider can answer 404 for a while "
                "just after it creates or ends a batch (anthropic-sdk-python#1432), so the run "
                f"stops rather than pay for its calls twice: {when}"
            )
        self._ledger(lost, batch.id, utc_now())
        if results is None:
            self.lost_notes += (
                f"{what} ({len(batch.members)} calls), recorded in the store, is not known to "
                f"the provider ({why.rstrip('.')}): the key in use cannot see it (it was "
                "submitted with another organisation's or project's key), or it was deleted. "
                "It is marked lost in the store, and its calls are submitted again and paid "
                "for again (whoever submitted it was billed for what it ran)",
            )
            return
        self.lost_notes += (
            f"{what} ({len(batch.members)} calls), recorded in the store, are no longer kept "
            f"by the provider ({why.rstrip('.')}): OpenAI deletes a results file when asked "
            "or at the expiry its batch set, Anthropic archives a batch's results 29 days "
            f"after its creation. {results} replies were still read and are stored; the "
            "batch is marked lost in the store, and its other calls are submitted again and "
            "paid for again (the batch was billed for what it ran)",
        )

    def _abandon(self, ids: Sequence[str]) -> None:
        """Mark lost the batches the user gave up on (``abandon``), before anything is polled.

        Their calls are then in no open batch, so this run submits them again (paid for
        again), whatever the provider says of the batch; its record stays, as lost.

        Raises:
            ConfigError: A batch the store does not record, or one already collected
                (its replies are in the store), naming ``abandon``.
        """
        for bid in ids:
            found = self._ledger(_batch_row, bid)
            if found is None or (found[1] is not None and found[0] != "lost"):
                open_ids = self._ledger(_open_ids)
                why = (
                    f"it was collected ({found[0]}, {found[1]}): its replies are in the store"
                    if found is not None
                    else "the store does not record it"
                )
                raise ConfigError(
                    f"abandon: cannot give up batch {bid!r}: {why} {self.store.path}. The "
                    f"batches not collected yet there: {', '.join(open_ids) or 'none'}",
                    params="abandon",
                )
            if found[0] == "lost":
                self.lost_notes += (
                    f"batch {bid} was lost already ({found[1]}): abandon= had nothing to give up",
                )
                continue
            self._ledger(lost, bid, utc_now())
            self.lost_notes += (
                f"batch {bid} ({found[2]} calls), recorded in the store, is given up as asked "
                "(abandon=): it is marked lost in the store, and its calls are submitted again "
                "and paid for again. The provider bills whatever of it runs: cancel it there if "
                "it still runs",
            )
        self.abandoned = True

    def _notes(self) -> tuple[tuple[str, str], ...]:
        return (*super()._notes(), *(("lost batch", note) for note in self.lost_notes))

    async def _taught(self, keys: list[str]) -> list[str]:
        """``keys`` less the calls made online to teach the models the table does not know.

        They go before the batch's estimate (``BatchRun._within_budget``), which then
        guesses the rest at the cap they will be sent with (a lesson renames a label's
        ``max_tokens`` 8 to ``max_completion_tokens`` with room to reason); each is an
        online call, checked against ``max_calls`` and ``max_cost`` as one.
        """
        for route in dict.fromkeys(self.todo[k].route for k in keys):
            if route in self.untaught and route not in self.answered:
                await self._taught_online(route, [(k, self.todo[k]) for k in keys
                                                  if self.todo[k].route == route])  # fmt: skip
        return [k for k in keys if k not in self.outcomes]

    async def _taught_online(self, route: Route, group: list[tuple[str, CallSpec]]) -> None:
        """Make ``group``'s first calls online, one at a time, until the server answers one.

        A model the capability table does not know learns what it refuses from online
        calls (one refused request per parameter); a batch cannot learn, and every
        line sent untaught could be refused. So calls go online as the engine makes
        them (retries, rows, prices, errors) until one is answered, and the batch
        sends what it taught. A call that still fails (a 5xx after its retries, a
        timeout) taught nothing: the next one goes in its place, :data:`ONLINE_TRIES`
        at most.

        Raises:
            FatalBackendError: None of them was answered: nothing is submitted for
                this model (the run's claims on the rest end with it, for a rerun).
        """
        tried: list[str] = []
        while group and route not in self.answered and len(tried) < ONLINE_TRIES:
            key, spec = group.pop(0)
            if self.options.max_calls is not None and self.started >= self.options.max_calls:
                self.stopped = "max_calls"
            guess = None
            if self.stopped is None and self.budget is not None:
                guess = await self._admit(key, spec, self.budget)
            if self.stopped is not None or self.halted:  # a budget: no call, and no batch
                return
            tried.append(key)
            self.started += 1
            await self._call(key, spec, guess)
        if route in self.answered or not group:
            return
        outcome = self.outcomes.get(tried[-1])
        error = outcome.error if outcome is not None else None
        last = f" (the last: {error.message.rstrip('.')})" if error is not None else ""
        backend = self.backends[route]
        raise FatalBackendError(
            f"{backend.name}/{backend.model}: the capability table does not know this "
            "model, so its batch is submitted only after an online call has shown what "
            f"it refuses (a batch cannot learn from refusals); none of the {len(tried)} "
            f"online calls tried was answered{last}. Nothing was submitted for its other "
            f"{len(group)} calls: run the same command again once the server answers"
        )
