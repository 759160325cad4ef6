"""Judge calls on a Ray cluster: :class:`RayExecutor`, the second implementation of the seam.

The driver keeps everything the asyncio executor does: the store (the cache, the
claims, a row written as each call finishes), the dedupe, the rate limits, the
budgets, the retries, the parsing and the progress. The cluster makes the attempts
(:mod:`fairjudge.runner._ray_pool`), so the asyncio executor's guarantees (store
keys, exact budgets, resume, Ctrl-C) carry over unchanged.

One Ray call per attempt, not chunks of calls, so retries, limits and budget checks
stay where they are and each reply is stored as it arrives (the figures behind the
choice are in ``docs/ray.md``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import random
from typing import TYPE_CHECKING

from fairjudge._call import route_of
from fairjudge._errors import ConfigError, MissingExtraError
from fairjudge.runner._executor import Batch, run_calls
from fairjudge.runner._progress import RunProgress, Snapshot, make_progress
from fairjudge.runner._result import RunResult

if TYPE_CHECKING:
    from fairjudge.runner._ray_pool import WorkerPool, WorkerReport
    from fairjudge.runner._ray_start import RayKeeper

__all__ = ["RayExecutor"]


class RayExecutor:
    """Runs a batch's attempts on Ray workers; the driver keeps the store and the limits.

    Args:
        address: The cluster: ``"auto"``, ``"host:port"`` or ``"ray://host:10001"``.
            ``None``: the cluster ``$RAY_ADDRESS`` names, as for any Ray program; without
            it, a fresh local Ray instance that stops with the executor (a cluster that
            ``/tmp/ray`` names is never joined). A process already connected to Ray
            uses that connection, whatever the address.
        workers: Actors in the shared pool of HTTP workers; default one per node. An
            in-process judge (``local/...``) always gets one actor per node.
        num_cpus: CPUs of a local instance; default all. Ignored when joining a cluster.
        rng: Source of retry jitter; seed it for reproducible tests.

    Raises:
        MissingExtraError: Ray is not installed.
        ConfigError: ``workers`` or ``num_cpus`` is not positive; at the first batch,
            an address where no cluster answers.

    Example:
        >>> with JudgeSession(backend, executor=RayExecutor("auto")) as s:  # doctest: +SKIP
        ...     replies = s.run(jobs, parse)
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int | None = None,
        num_cpus: int | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if importlib.util.find_spec("ray") is None:
            raise MissingExtraError("the Ray executor", "ray", "ray")
        for name, value in (("workers", workers), ("num_cpus", num_cpus)):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ConfigError(f"{name} must be a positive integer; got {value!r}", params=name)
        self.address = address
        self.workers = workers
        self.num_cpus = num_cpus
        self.rng = rng
        self._pool: WorkerPool | None = None
        self._keeper: RayKeeper | None = None  # this executor started Ray: it shuts it down

    def __repr__(self) -> str:
        return f"RayExecutor(address={self.address!r}, workers={self.workers!r})"

    async def execute(self, batch: Batch) -> RunResult:
        """Run the batch: the driver's engine, with each attempt made by a Ray worker.

        Raises:
            FatalBackendError: As :func:`~fairjudge.runner.run_calls`; also when a
                worker cannot build a backend, or every worker of a backend is lost.
        """
        pool = self._connect()
        repeated = pool.repeated
        # Workers only for the backends this batch calls (a panel's other judges may
        # have all their calls in the store, or none in this batch).
        routes = {spec.route for spec in batch.specs}
        remote = await pool.prepare([b for b in batch.backends if route_of(b) in routes])
        options = batch.options
        display = make_progress(options.progress)
        if display is not None:
            options = dataclasses.replace(options, progress=_WorkerProgress(display, pool))
        try:
            result = await run_calls(
                remote,
                batch.specs,
                store=batch.store,
                options=options,
                parse=batch.parse,
                on_progress=batch.on_progress,
                rng=self.rng,
            )
        except BaseException:
            pool.cancel_replacements()
            raise
        await pool.settle()  # a worker lost late in the batch: its replacement is up
        if pool.by_model:  # the loads of the in-process judges' workers, for the report
            await pool.count_loads()
        if pool.repeated == repeated:
            return result
        summary = dataclasses.replace(result.summary, repeated=pool.repeated - repeated)
        return RunResult(result.keys, result.outcomes, summary)

    def workers_report(self) -> tuple[WorkerReport, ...]:
        """Every worker started so far: its node, process, calls answered, and whether alive."""
        return self._pool.reports() if self._pool is not None else ()

    def _connect(self) -> WorkerPool:
        """The worker pool, connecting to (or starting) Ray on first use."""
        if self._pool is not None:
            return self._pool
        os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")  # read when ray is imported
        import ray

        from fairjudge.runner._ray_pool import WorkerPool
        from fairjudge.runner._ray_start import RayKeeper

        if not ray.is_initialized():
            self._keeper = RayKeeper(ray, self.address, self.num_cpus)
        try:
            self._pool = WorkerPool(ray, self.workers)
        except BaseException:
            self.close()  # a Ray this executor started stops with the failure
            raise
        return self._pool

    def close(self) -> None:
        """End the workers (their models unload); shut Ray down if this executor started it.

        A later batch starts a new pool (and Ray, if needed) again.
        """
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.stop()

    async def aclose(self) -> None:
        """:meth:`close`, off the event loop."""
        import asyncio

        await asyncio.to_thread(self.close)

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _WorkerProgress:
    """A progress display that also shows the workers alive and the calls each made."""

    def __init__(self, display: RunProgress, pool: WorkerPool) -> None:
        self.display = display
        self.pool = pool

    def _with_workers(self, snapshot: Snapshot) -> Snapshot:
        return dataclasses.replace(snapshot, detail=self.pool.progress_text())

    def start(self, snapshot: Snapshot) -> None:
        """Draw the start, with the workers."""
        self.display.start(self._with_workers(snapshot))

    def update(self, snapshot: Snapshot) -> None:
        """Redraw, with the workers."""
        self.display.update(self._with_workers(snapshot))

    def finish(self, snapshot: Snapshot) -> None:
        """Draw the end, with the workers."""
        self.display.finish(self._with_workers(snapshot))
