"""Judge calls through the providers' batch APIs: :class:`BatchExecutor`, on the executor seam.

OpenAI's Batch API and Anthropic's Message Batches answer many requests within a
24-hour window at half the online price. Judging is such a workload, so a batch is
just another way of running a session's calls (``executor=BatchExecutor()``), and
what it keeps of the engine is everything but the sending:

- the dedupe, the store's cache (a stored call is never submitted), and the claims
  (a call another process is making, online or in its own batch, is not submitted
  twice: it is waited for, and served from the store when that process stores it);
- each result lands in the store as an ordinary row, keyed by
  :attr:`~fairjudge._call.CallSpec.key`, through the engine's own code: the same
  redaction, parser, cost ledger (at the batch price: ``Completion.batch``) and row,
  so a batch run's results equal an online run's;
- ``max_calls`` and ``max_cost`` are checked before submission. Money for a
  submitted batch is committed whole (a provider bills every request it runs, and
  the budget cannot stop it part way), so ``max_cost`` is held against the
  estimate of every call submitted: the calls that fit are submitted, the rest are
  not run, and the result says ``stopped``.

Resuming. A batch's id, and each call's ``custom_id`` (the call's store key: 64
hex characters, which both providers accept), are written to the store
(:mod:`~fairjudge.runner._store_batches`) right after the provider accepts the batch
and before it is polled once. A run killed while it waits leaves them there; the
next run over the same calls polls the same batch and collects it, and never
submits those calls again.

Waiting. With ``wait=True`` the executor polls every ``poll_s`` seconds until
every batch has ended. With ``wait=False`` it submits, polls once, collects what has
ended and raises :class:`~fairjudge.BatchPending` naming the batches still running:
the same work run again later collects them.

Errors. A request the provider refused is that call's error row, mapped as the
online status would be; a request that expired, was cancelled or came back with no
line is an error row that says so (the next run submits it again, as it retries
any failed call); a batch the provider refused whole (OpenAI's ``failed``) fails
each of its calls with the provider's reasons. An error of the batch endpoints
themselves (bad credentials, an unknown batch) stops the run as an online call's
fatal error does; the batches stay in the store.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from fairjudge._call import Backend, route_of
from fairjudge._errors import ConfigError
from fairjudge.runner._executor import Batch
from fairjudge.runner._result import RunResult

if TYPE_CHECKING:
    from fairjudge.backends import BatchAPI

__all__ = ["DEFAULT_POLL_S", "BatchExecutor"]

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

    Raises:
        ConfigError: ``poll_s`` is not a positive number.

    Example:
        >>> session = JudgeSession(backend, executor=BatchExecutor(wait=True))  # doctest: +SKIP
    """

    budget_note = (
        "A submitted batch is committed money: the provider bills every request it runs, "
        "so max_cost was held against the estimate of every call before submission."
    )
    """A sentence added to a budget stop's message under this executor."""

    def __init__(
        self,
        *,
        wait: bool = True,
        poll_s: float = DEFAULT_POLL_S,
        clients: Callable[[Backend], BatchAPI] | None = None,
    ) -> None:
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
            ConfigError: A backend of the batch's calls has no batch API.
            BatchPending: ``wait=False`` and some batches have not ended yet.
            FatalBackendError: The batch endpoints refused the run (bad key, unknown
                batch, no such endpoint); what was submitted stays in the store.
        """
        from fairjudge.runner._batch_run import BatchRun

        routes = {spec.route for spec in batch.specs}
        self.check([b for b in batch.backends if route_of(b) in routes])
        run = BatchRun(batch, wait=self.wait, poll_s=self.poll_s, clients=self.clients)
        try:
            return await run.execute(batch.specs)
        finally:
            self.submitted += run.submitted
