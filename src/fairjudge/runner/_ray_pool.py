"""The driver's pool of Ray judge workers, their stand-in backends, and the worker itself.

Each backend is replaced by a :class:`RemoteBackend` with the same route that sends
one attempt to a worker actor (:class:`JudgeWorker`), so every attempt is granted by
the driver's one rate-limit bucket and budget, whatever node makes it.

A model the capability table does not know is learned from the server's refusals
once for the whole pool, not once per worker: the driver sends its calls one at a
time (the probe) until a worker's reply shows the server answered one, as a backend
does in one process, and every attempt after that carries what the workers learned
to each worker that has not yet reported knowing it (:meth:`WorkerPool.teaching`).
The driver's ``max_cost`` check guesses and charges its calls with the same knowledge
(:meth:`RemoteBackend.sent_params`), so a Ray run spends and stops as one process does.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import os
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairjudge._call import Backend, CallSpec, Completion, Route, route_of
from fairjudge._errors import BackendError, FatalBackendError

__all__ = ["JudgeWorker", "Outcome", "RemoteBackend", "WorkerPool", "WorkerReport", "portable"]


Learning = tuple[int, tuple[str, ...], Any] | None
"""What a worker's backend has learned from refused requests so far: its refusals, its
lessons, and its ``knowledge`` (the changes and the parameters seen taken, to hand to
the other workers; ``None`` unless it grew since the worker last sent it, as each reply
would otherwise carry it, at some 40 microseconds of pickling, for nothing new), or
``None`` for a backend that does not learn. The driver adds up the refusals
(:class:`WorkerPool`), so the run's summary counts every refusal a worker paid, and
merges the knowledge."""

Outcome = tuple[bool, Completion | BaseException, Learning]
"""``(True, completion, learning)`` or ``(False, the error the backend raised, learning)``."""


def portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a plain error with its type and message.

    The errors of :mod:`fairjudge._errors` all do (pickling keeps their fields and
    drops their ``__cause__``, which may hold an SDK object that does not pickle).
    """
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class JudgeWorker:
    """A Ray actor that answers single attempts with the backends the driver opened."""

    def __init__(self) -> None:
        self.backends: dict[Route, Backend] = {}
        self.in_flight = 0  # the driver counts the calls each worker answered
        self.reported: dict[Route, int] = {}  # the size of the knowledge last sent back

    def where(self) -> tuple[str, int]:
        """``(node id, process id)``: where this worker runs, for reports and tests."""
        import ray

        return ray.get_runtime_context().get_node_id(), os.getpid()

    async def open(self, route: Route, blob: bytes) -> BaseException | None:
        """Build the backend for ``route`` from its pickled form; the error if it fails."""
        if route in self.backends:
            return None
        try:
            self.backends[route] = pickle.loads(blob)
        except Exception as exc:
            node, pid = self.where()
            return FatalBackendError(
                f"a Ray worker (node {node[:12]}, pid {pid}) could not set up the backend "
                f"for {route[0]}/{route[1]}: {type(exc).__name__}: {exc}. Every worker "
                "needs fairjudge with the same extras, and the key's environment variable "
                "set on its machine"
            )
        return None

    async def complete(self, route: Route, spec: CallSpec, taught: Any) -> Outcome:
        """One attempt of one call; the outcome as a value (see the module docstring).

        ``taught``: what the other workers learned of this model, taken in first (by
        the backend's ``learn_from``), so this attempt pays no refusal they paid.
        """
        self.in_flight += 1
        backend = self.backends[route]
        if taught is not None:
            backend.learn_from(taught)  # type: ignore[attr-defined]
        try:
            completion = await backend.complete(spec)
        except Exception as exc:
            return False, portable(exc), self._learning(route, backend)
        finally:  # a cancelled attempt (the driver stopped) ends here too
            self.in_flight -= 1
        return True, completion, self._learning(route, backend)

    def _learning(self, route: Route, backend: Backend) -> Learning:
        """The backend's refusals and lessons so far, and its knowledge if it grew.

        A reply of an attempt cancelled before it returned is never built, so the
        knowledge it would have carried goes with the next reply instead.
        """
        refused = getattr(backend, "refused", None)
        if not isinstance(refused, int):
            return None  # it does not learn
        lessons = getattr(backend, "lessons", None) or ()
        knowledge = getattr(backend, "knowledge", None)
        if knowledge is None or knowledge.size <= self.reported.get(route, 0):
            knowledge = None  # nothing new (a known model's: nothing at all)
        else:
            self.reported[route] = knowledge.size
        return refused, tuple(line for line in lessons if isinstance(line, str)), knowledge

    def busy(self) -> int:
        """Attempts running here now: 0 soon after the driver cancels a run."""
        return self.in_flight

    def loads(self) -> int:
        """Model loads in this process: in-process backends that hold a loaded model."""
        return sum(getattr(b, "load_s", None) is not None for b in self.backends.values())

    async def close(self) -> None:
        """Close every backend (connection pools, loaded models)."""
        backends, self.backends = list(self.backends.values()), {}
        for backend in backends:
            await backend.aclose()


_MAX_ACTOR_CONCURRENCY = 10_000  # the driver bounds the attempts in flight, not the actor


@dataclass(slots=True)
class _Line:
    """An unknown model's calls waiting on the driver behind its probe, on one event loop."""

    loop: asyncio.AbstractEventLoop
    lock: asyncio.Lock
    fatal: FatalBackendError | None = None  # a probe's error that every call would meet


@dataclass(eq=False, slots=True)
class _Worker:
    """One actor as the driver sees it."""

    handle: Any
    node: str
    pid: int
    serves: str  # "http" for the shared pool, else the model of its in-process backend
    calls: int = 0
    loads: int = 0
    in_flight: int = 0
    alive: bool = True
    opened: set[Route] = dataclasses.field(default_factory=set)  # the backends it holds
    refused: dict[Route, int] = dataclasses.field(default_factory=dict)  # as it last reported
    known: dict[Route, int] = dataclasses.field(default_factory=dict)  # its knowledge's size


@dataclass(frozen=True, slots=True)
class WorkerReport:
    """One worker of a :class:`~fairjudge.runner.RayExecutor`, as the driver counted it.

    Attributes:
        node: The Ray node id it runs on.
        pid: Its process id on that node.
        serves: ``"http"`` for the shared pool of HTTP workers, else the model id of
            the in-process judge it holds.
        calls: Attempts it answered (replies and errors) over the executor's life.
        alive: False once it died; its calls in flight were sent to another worker.
        loads: Models it loaded (an in-process judge's worker: 1 once it has answered,
            as the weights stay loaded; 0 for HTTP workers), as of the last batch.
    """

    node: str
    pid: int
    serves: str
    calls: int
    alive: bool
    loads: int = 0


class WorkerPool:
    """The actors of one executor, created on first need and kept for its life.

    Args:
        ray: The imported ``ray`` module (imported by the executor, never here).
        workers: Actors in the shared pool; ``None``: one per node.
    """

    def __init__(self, ray: Any, workers: int | None) -> None:

        self.ray = ray
        self.workers = workers
        self.actor_class = ray.remote(JudgeWorker)
        self.shared: list[_Worker] = []
        self.by_model: dict[Route, list[_Worker]] = {}
        self.retired: list[_Worker] = []  # lost, and replaced since
        self.blobs: dict[Route, bytes] = {}  # each backend as its workers rebuild it
        self.replacing: set[asyncio.Task[None]] = set()
        self.repeated = 0
        """Attempts sent again because their worker died, over the pool's life."""
        self.refused: dict[Route, int] = {}
        """Requests the workers' backends had refused, by route, over the pool's life."""
        self.lessons: dict[Route, list[str]] = {}
        """What those refusals taught, by route, each lesson once, in the order reported."""
        self.knowledge: dict[Route, Any] = {}
        """Every worker's knowledge of an unknown model, merged, by route (see :data:`Learning`)."""
        self.lines: dict[Route, _Line] = {}

    def learned(self, worker: _Worker, route: Route, learning: Learning) -> None:
        """Take in what a worker's backend reports it has learned (see :data:`Learning`).

        Its counts only grow, and replies may arrive out of order, so only a count
        above the one it last reported adds (the difference) to the route's; only
        knowledge larger than it last reported is merged (a smaller one is older).
        """
        if learning is None:
            return
        refused, lessons, knowledge = learning
        before = worker.refused.get(route, 0)
        if refused > before:  # a backend learns a lesson only as it counts a refusal
            worker.refused[route] = refused
            self.refused[route] = self.refused.get(route, 0) + refused - before
            known = self.lessons.setdefault(route, [])
            known += [line for line in lessons if line not in known]
        if knowledge is not None and knowledge.size > worker.known.get(route, 0):
            worker.known[route] = knowledge.size
            mine = self.knowledge.get(route)
            self.knowledge[route] = knowledge if mine is None else mine.merged(knowledge)

    def teaching(self, worker: _Worker, route: Route) -> Any:
        """What to send with ``worker``'s next attempt: the merged knowledge, or ``None``.

        Sent with every attempt until the worker reports knowing as much (a lesson
        in an attempt that was cancelled before it ran is sent again), never in a
        call of its own, so teaching never holds an attempt back.
        """
        knowledge = self.knowledge.get(route)
        if knowledge is None or knowledge.size <= worker.known.get(route, 0):
            return None
        return knowledge

    def accepts(self, route: Route, params: Any) -> bool:
        """Whether a worker's answer has shown the server takes every one of ``params``."""
        knowledge = self.knowledge.get(route)
        return knowledge is not None and knowledge.accepted.issuperset(params)

    def line(self, route: Route) -> _Line:
        """The driver's line of ``route``'s calls behind its probe, on the running loop."""
        loop = asyncio.get_running_loop()
        line = self.lines.get(route)
        if line is None or line.loop is not loop:  # a lock serves one event loop
            line = self.lines[route] = _Line(loop, asyncio.Lock())
        return line

    def nodes(self) -> list[str]:
        """The ids of the cluster's live nodes, in a stable order."""
        return sorted(n["NodeID"] for n in self.ray.nodes() if n.get("Alive"))

    async def _start(self, nodes: Sequence[str], serves: str) -> list[_Worker]:
        """One actor on each of ``nodes`` (a node may repeat), pinned there.

        Pinned, not merely preferred: Ray treats a preference as a hint and may put
        every actor on one node. An actor that could not start (its node died
        meanwhile) is left out; none at all is an error.
        """
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        handles = [
            self.actor_class.options(
                num_cpus=0,  # I/O-bound, or sized by the backend's own threads
                max_concurrency=_MAX_ACTOR_CONCURRENCY,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False),
            ).remote()
            for node in nodes
        ]
        places = await asyncio.gather(*(h.where.remote() for h in handles), return_exceptions=True)
        started = [
            _Worker(h, place[0], place[1], serves)
            for h, place in zip(handles, places, strict=True)
            if not isinstance(place, BaseException)
        ]
        if not started:
            raise FatalBackendError(
                f"no Ray worker could start on the cluster's {len(set(nodes))} nodes: {places[0]}"
            )
        return started

    async def prepare(self, backends: Sequence[Backend]) -> list[RemoteBackend]:
        """Stand-ins for ``backends``, each opened on the workers that will serve it.

        Raises:
            FatalBackendError: A worker could not build a backend (its key's variable
                is unset on its machine, an extra is missing there).
        """
        from ray import cloudpickle
        from ray.exceptions import RayActorError

        dumps: Callable[[object], bytes] = cloudpickle.dumps
        await self._revive()
        remote = []
        for backend in backends:
            route = route_of(backend)
            if backend.max_concurrency == 1:
                if route not in self.by_model:
                    self.by_model[route] = await self._start(self.nodes(), backend.model)
                workers = self.by_model[route]
            else:
                if not self.shared:
                    nodes = self.nodes()
                    count = self.workers or len(nodes)
                    placed = [nodes[i % len(nodes)] for i in range(count)]
                    self.shared = await self._start(placed, "http")
                workers = self.shared
            todo = [w for w in workers if w.alive and route not in w.opened]
            if todo:
                # The backend's __reduce__ leaves its key out: each worker reads its own.
                blob = self.blobs[route] = dumps(backend)
                opened = await asyncio.gather(
                    *(w.handle.open.remote(route, blob) for w in todo), return_exceptions=True
                )
                for worker, error in zip(todo, opened, strict=True):
                    if error is None:
                        worker.opened.add(route)
                    elif isinstance(error, RayActorError):  # it died since it started
                        self.lose(worker)
                    else:  # the backend cannot be built there: every call would fail
                        raise error
            remote.append(RemoteBackend(backend, self, workers))
        return remote

    async def _revive(self) -> None:
        """Replace the workers lost in earlier batches, so each batch starts at full strength.

        Only between batches: during one, the survivors take a lost worker's share.
        """
        nodes: list[str] | None = None
        if any(not w.alive for w in self.shared):
            nodes = self.nodes()
            lost = [w for w in self.shared if not w.alive]
            # Where the lost one was, if that node is still up.
            placed = [
                w.node if w.node in nodes else nodes[i % len(nodes)] for i, w in enumerate(lost)
            ]
            self.retired += lost
            self.shared = [w for w in self.shared if w.alive] + await self._start(placed, "http")
        for route, workers in self.by_model.items():
            if all(w.alive for w in workers):
                continue
            nodes = nodes if nodes is not None else self.nodes()
            alive = [w for w in workers if w.alive]
            missing = [node for node in nodes if node not in {w.node for w in alive}]
            self.retired += [w for w in workers if not w.alive]
            started = await self._start(missing, workers[0].serves) if missing else []
            self.by_model[route] = alive + started

    def pick(self, workers: Sequence[_Worker], backend: Backend) -> _Worker:
        """The live worker with the fewest attempts in flight."""
        best = None
        for worker in workers:
            if worker.alive and (best is None or worker.in_flight < best.in_flight):
                best = worker
        if best is None:
            raise FatalBackendError(
                f"every Ray worker serving {backend.name}/{backend.model} was lost "
                f"({len(workers)} started, {self.repeated} attempts sent again); "
                "check the cluster's nodes"
            )
        return best

    def lose(self, worker: _Worker) -> bool:
        """Take a dead worker out of service (and make sure Ray does not restart it).

        Returns:
            Whether it was in service until now (False: already lost).
        """
        if not worker.alive:
            return False
        worker.alive = False
        with contextlib.suppress(Exception):  # already gone, which is the point
            self.ray.kill(worker.handle, no_restart=True)
        return True

    def replace_soon(self, lost: _Worker, workers: list[_Worker]) -> None:
        """Start :meth:`replace` in the background; the survivors serve meanwhile."""
        task = asyncio.ensure_future(self.replace(lost, workers))
        self.replacing.add(task)
        task.add_done_callback(self.replacing.discard)

    async def replace(self, lost: _Worker, workers: list[_Worker]) -> None:
        """A new worker in ``lost``'s place in ``workers``, with the backends it held.

        On ``lost``'s node if it is still up, else on another live node; a model's
        workers stay one per node, so one whose node is gone is replaced only on a
        node without one. When none can start (no node left, the backend cannot be
        built), ``lost`` stays listed and the next batch tries again
        (:meth:`_revive`): the survivors carry this one.
        """
        nodes = await asyncio.to_thread(self.nodes)
        taken = {w.node for w in workers if w.alive}
        if lost.serves != "http":
            nodes = [n for n in nodes if n not in taken]
        if not nodes:
            return
        place = lost.node if lost.node in nodes else nodes[0]
        try:
            (worker,) = await self._start([place], lost.serves)
            for route in sorted(lost.opened):
                if await worker.handle.open.remote(route, self.blobs[route]) is not None:
                    self.lose(worker)  # it cannot build what the lost one held
                    return
                worker.opened.add(route)
        except Exception:  # the node went too, or Ray refused: the next batch tries
            return
        if lost in workers:  # not already replaced by the next batch's revival
            workers.remove(lost)
            self.retired.append(lost)
            workers.append(worker)
        else:
            self.lose(worker)

    async def settle(self) -> None:
        """Wait for the replacements under way, so a batch ends at full strength."""
        while self.replacing:
            await asyncio.gather(*self.replacing, return_exceptions=True)

    def cancel_replacements(self) -> None:
        """Stop the replacements under way (the batch stopped); the next batch revives."""
        for task in self.replacing:
            task.cancel()

    def reports(self) -> tuple[WorkerReport, ...]:
        """Every worker started so far: the shared pool, the models' workers, the lost."""
        everyone = [*self.shared, *(w for ws in self.by_model.values() for w in ws), *self.retired]
        return tuple(
            WorkerReport(w.node, w.pid, w.serves, w.calls, w.alive, w.loads) for w in everyone
        )

    async def count_loads(self) -> None:
        """Ask each live in-process judge's worker how many models it has loaded."""
        live = [w for ws in self.by_model.values() for w in ws if w.alive]
        loads = await asyncio.gather(
            *(w.handle.loads.remote() for w in live), return_exceptions=True
        )
        for worker, n in zip(live, loads, strict=True):
            if isinstance(n, int):
                worker.loads = n

    def progress_text(self) -> str:
        """``"workers 2/2 alive, calls 120 · 118"``: the line a progress display adds."""
        everyone = [*self.shared, *(w for ws in self.by_model.values() for w in ws)]
        if not everyone:
            return ""
        alive = sum(w.alive for w in everyone)
        calls = [w.calls for w in everyone]
        if len(calls) <= 8:
            per = " · ".join(map(str, calls))
        else:
            per = f"{min(calls)}-{max(calls)} (mean {sum(calls) / len(calls):.0f})"
        text = f"workers {alive}/{len(everyone)} alive, calls per worker {per}"
        return f"{text}, {self.repeated} sent again" if self.repeated else text

    def close(self, timeout: float = 10.0) -> None:
        """Close every worker's backends (waiting ``timeout`` s at most), then end the actors."""
        everyone = [*self.shared, *(w for ws in self.by_model.values() for w in ws)]
        live = [w for w in everyone if w.alive]
        if live:
            self.ray.wait([w.handle.close.remote() for w in live], num_returns=len(live),
                          timeout=timeout)  # fmt: skip
        for worker in live:
            self.lose(worker)
        self.shared, self.by_model = [], {}


class RemoteBackend:
    """A backend's stand-in on the driver: same route, attempts made by a worker.

    Args:
        backend: The backend the workers rebuilt from its pickled form.
        pool: The pool whose workers serve it.
        workers: Those workers (shared HTTP workers, or one per node).
    """

    def __init__(self, backend: Backend, pool: WorkerPool, workers: list[_Worker]) -> None:
        self.backend = backend
        self.pool = pool
        self.workers = workers
        self.route = route_of(backend)
        self.name, self.model, self.base_url = self.route
        cap = backend.max_concurrency
        # Each worker has its own connection pool, or its own one-call-at-a-time model.
        self.max_concurrency = cap * len(workers) if cap is not None else None
        caps = getattr(backend, "capabilities", None)
        self.unknown = caps is not None and not caps.known  # learned from refusals

    @property
    def refused(self) -> int:
        """Requests the workers refused for a parameter, then sent again (the run counts them).

        Over the pool's life, as a backend counts its own: the run reports the
        difference between its start and its end.
        """
        return self.pool.refused.get(self.route, 0)

    @property
    def lessons(self) -> list[str]:
        """What those refusals taught the workers, a few words each, each once."""
        return list(self.pool.lessons.get(self.route, ()))

    @property
    def knowledge(self) -> Any:
        """The workers' merged knowledge of an unknown model (``None`` before any reported).

        Kept by the pool over its life, as a backend keeps its own: a later run on
        these workers starts from the parameters it shows taken, so it sends no lone
        probe (``Run.accepted``).
        """
        return self.pool.knowledge.get(self.route)

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """The real backend's parameters (they are part of the cache key)."""
        return self.backend.default_params(label_only=label_only)

    def sent_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` as a worker sends them now, what the workers' refusals taught applied.

        The driver's cost check guesses each call's cap from these, and charges a
        reply whose usage is not believed at that cap, as one process does with
        its backend's own :meth:`~fairjudge.backends.OpenAIBackend.sent_params`: an
        unknown model's ``max_tokens`` of 8 goes out as ``max_completion_tokens``
        with room to reason once a worker has learned so. The pool's merged
        knowledge is what every worker is taught with its next attempt.
        """
        knowledge = self.pool.knowledge.get(self.route)
        return dict(params) if knowledge is None else knowledge.sent(params)

    async def complete(self, spec: CallSpec) -> Completion:
        """One attempt, made by a live worker; sent again if that worker dies meanwhile.

        A model the capability table does not know: until a worker's reply shows the
        server answered a call with these parameters, the calls go one at a time
        (:meth:`_probing`), so the pool pays each refusal once, not once per worker.

        Raises:
            BackendError: What the backend raised on the worker, with its fields.
            FatalBackendError: No live worker is left for this backend.
        """
        if self.unknown and not self.pool.accepts(self.route, spec.params):
            return await self._probing(spec)
        return await self._attempt(spec)

    async def _probing(self, spec: CallSpec) -> Completion:
        """An unknown model's call, in the driver's line until a probe is answered.

        Each call in turn goes alone (the probe) to one worker, which learns from the
        refusals and reports what it learned with its reply; then the calls behind it
        go at once, carrying that knowledge to every worker. A probe that fails or is
        cancelled hands the turn to the next call, which sends what was learned so
        far; a probe's :class:`FatalBackendError` fails the calls in line, unsent.
        """
        line = self.pool.line(self.route)
        async with line.lock:
            if line.fatal is not None:
                error = copy.copy(line.fatal)
                error.requests = 0
                raise error
            if not self.pool.accepts(self.route, spec.params):
                try:
                    return await self._attempt(spec)
                except FatalBackendError as exc:
                    line.fatal = exc
                    raise
        return await self._attempt(spec)  # a probe ahead of this call was answered

    async def _attempt(self, spec: CallSpec) -> Completion:
        """The attempt on the live worker with the fewest in flight (another if it dies)."""
        from ray.exceptions import RayActorError

        pool, again = self.pool, 0
        while True:
            worker = pool.pick(self.workers, self.backend)
            worker.in_flight += 1
            taught = pool.teaching(worker, self.route)
            ref = worker.handle.complete.remote(self.route, spec, taught)
            try:
                ok, value, learning = await ref
            except RayActorError:  # the worker died with this attempt in flight
                if pool.lose(worker):
                    pool.replace_soon(worker, self.workers)
                pool.repeated += 1
                again += 1
                continue
            except asyncio.CancelledError:  # the run stopped (Ctrl-C, a fatal error)
                with contextlib.suppress(Exception):  # finished meanwhile, or its worker gone
                    pool.ray.cancel(ref)
                raise
            finally:
                worker.in_flight -= 1
            worker.calls += 1
            pool.learned(worker, self.route, learning)
            # An attempt sent again is one more request the server may have seen,
            # counted as a transport's own resend is: in `requests`, against the limits.
            if not ok:
                if isinstance(value, BackendError):
                    value.requests += again
                raise value
            assert isinstance(value, Completion)
            if again:
                value = dataclasses.replace(value, requests=value.requests + again)
            return value

    async def aclose(self) -> None:
        """Nothing here: the workers' backends close with the pool."""
