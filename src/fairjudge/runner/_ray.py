"""Judge calls on a Ray cluster: :class:`RayExecutor`, and starting or joining Ray for it.

The driver keeps the store, dedupe, limits, budgets, retries and parsing; the cluster
makes only the attempts (:mod:`fairjudge.runner._ray_pool`), so the asyncio
executor's guarantees carry over. Design notes: ``docs/internals.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import ipaddress
import logging
import os
import random
import socket
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fairjudge._call import route_of
from fairjudge._errors import ConfigError, FairJudgeError, MissingExtraError
from fairjudge.runner._executor import Batch, run_calls
from fairjudge.runner._progress import RunProgress, Snapshot, make_progress
from fairjudge.runner._result import RunResult

if TYPE_CHECKING:
    from fairjudge.runner._ray_pool import WorkerPool, WorkerReport

__all__ = ["RayExecutor", "RayKeeper", "cluster_address", "start_ray"]


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


_CLUSTER_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
CONNECT_TIMEOUT_S = 10.0
"""How long the address check waits for the cluster's port to accept a connection."""


def cluster_address(address: str | None) -> str | None:
    """The cluster to join: ``address``, else ``$RAY_ADDRESS``; ``None``: start a local one."""
    if address is not None:
        return address.strip()
    return os.environ.get("RAY_ADDRESS", "").strip() or None


def start_ray(ray: Any, address: str | None, num_cpus: int | None) -> None:
    """``ray.init`` for the executor: a local instance, or the cluster the address names.

    Args:
        ray: The imported ``ray`` module.
        address: The executor's address (``None``: ``$RAY_ADDRESS``, else local).
        num_cpus: CPUs of a local instance (ignored when joining a cluster).

    Raises:
        ConfigError: The address is malformed, or no cluster answers there.
        FairJudgeError: A local instance could not start (Ray's reason is in the
            message); whatever it had started is shut down.
    """
    target = cluster_address(address)
    settings: dict[str, Any] = {
        "log_to_driver": False,  # the workers' output stays in their log files
        "logging_level": logging.ERROR,  # not Ray's notes on threads, tokens, start-up
    }
    if target is None:
        settings.update(address="local", num_cpus=num_cpus, include_dashboard=False)
    else:
        host = _check_reachable(target, address is None)
        settings["address"] = target
        if host is not None and _is_loopback(host):  # a cluster on this machine's loopback
            settings["_node_ip_address"] = host
    try:
        with _on_loopback(ray, target is None):
            ray.init(**settings)
    except Exception as exc:
        with contextlib.suppress(Exception):  # whatever it started before it failed
            ray.shutdown()
        if target is None:
            raise FairJudgeError(
                f"could not start a local Ray instance: {type(exc).__name__}: {exc}. "
                "Check that this machine has free memory and /tmp space, or give the "
                "address of a running cluster"
            ) from exc
        raise ConfigError(
            f"{_named(target, address is None)}: Ray could not join the cluster there: "
            f"{type(exc).__name__}: {exc}",
            params=() if address is None else ("address",),
        ) from exc


@contextlib.contextmanager
def _on_loopback(ray: Any, local: bool) -> Iterator[None]:
    """While a local instance starts: every node address it picks is 127.0.0.1.

    Ray's own switch for this (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, what it does
    on macOS and Windows) is read once, when Ray is imported, so it is set on the
    imported constant too; the processes the start spawns inherit the variable. Both
    are put back afterwards: a later start may be asked to join a real cluster.
    """
    if not local:
        yield
        return
    constants = ray._private.ray_constants
    saved = os.environ.get(_CLUSTER_SWITCH), getattr(constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[_CLUSTER_SWITCH] = "0"
    if saved[1] is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if saved[0] is None:
            os.environ.pop(_CLUSTER_SWITCH, None)
        else:
            os.environ[_CLUSTER_SWITCH] = saved[0]
        if saved[1] is not None:
            constants.ENABLE_RAY_CLUSTER = saved[1]


def _named(target: str, from_environment: bool) -> str:
    """How a message names the address: the parameter, or the environment variable."""
    return f"RAY_ADDRESS={target!r} (from the environment)" if from_environment else (
        f"address={target!r}"
    )  # fmt: skip


def _check_reachable(target: str, from_environment: bool) -> str | None:
    """The address's host, once its port accepts a connection (``None`` for ``auto``).

    Raises:
        ConfigError: The address is no Ray address, or nothing answers at it.
    """
    if target == "auto":
        return None
    params = () if from_environment else ("address",)
    hostport = target.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise ConfigError(
            f"{_named(target, from_environment)} is no Ray address; give auto, HOST:PORT "
            "(the head node's GCS port, 6379 by default) or ray://HOST:PORT (Ray Client)",
            params=params,
        )
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise ConfigError(
            f"{_named(target, from_environment)}: no Ray cluster answers at {host}:{port} "
            f"({type(exc).__name__}: {exc}). Check that the cluster is up (`ray status` "
            "on its head node) and that this machine reaches that port",
            params=params,
        ) from exc
    return host


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class RayKeeper:
    """A thread that starts Ray, lives while it runs, and shuts it down: Ray's parent thread.

    Ray ties the processes ``ray.init`` spawns (raylet, GCS) to the thread that spawned
    them (Linux's parent-death signal follows the thread, not the process). Started
    from a session's event-loop thread, they were SIGKILLed when that thread ended,
    before the executor closed: an ungraceful stop after which Ray's agents lingered a
    minute trying to report it to a GCS already gone. The keeper thread outlives all
    that: it ends only after :meth:`stop` has shut Ray down gracefully. It is a daemon
    thread, so an executor never closed cannot hold the interpreter open; Ray's own
    exit hook shuts Ray down then.

    Args:
        ray: The imported ``ray`` module.
        address: As :func:`start_ray`.
        num_cpus: As :func:`start_ray`.

    Raises:
        ConfigError, FairJudgeError: As :func:`start_ray`, from the thread.
    """

    def __init__(self, ray: Any, address: str | None, num_cpus: int | None) -> None:
        self.ray = ray
        self.started = threading.Event()
        self.stopping = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(
            target=self._keep, args=(address, num_cpus), name="fairjudge-ray", daemon=True
        )
        self.thread.start()
        self.started.wait()
        if self.error is not None:
            raise self.error

    def _keep(self, address: str | None, num_cpus: int | None) -> None:
        try:
            start_ray(self.ray, address, num_cpus)
        except BaseException as exc:
            self.error = exc
            return
        finally:
            self.started.set()
        self.stopping.wait()
        self.ray.shutdown()

    def stop(self, timeout: float = 60.0) -> None:
        """Shut Ray down (from the thread that started it) and wait for that."""
        self.stopping.set()
        self.thread.join(timeout)
