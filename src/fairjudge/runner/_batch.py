"""Judge calls through the providers' batch APIs: :class:`BatchExecutor`, on the executor seam.

A batch is another way of running a session's calls: the store's cache, claims,
parsing, cost ledger (at the batch price) and rows are the engine's own, so a batch
run's results equal an online run's. Batch ids are stored as soon as the provider
accepts them, so a killed run resumes by collecting, never by submitting again.
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
