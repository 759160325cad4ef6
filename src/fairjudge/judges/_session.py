"""The judge session: one owner of backends, store, event loop, executor, options and budget.

Every kind of judgment renders calls, runs them through the store and the backends,
and reads each reply; :class:`JudgeSession` does the middle part once for all, on one
private event loop, with one budget for its whole life. A batch the store answers
entirely is served without starting the loop or any backend. Batches run on an
executor the caller built, or one named (``"asyncio"``, ``"ray"``, ``"ray:ADDRESS"``:
:func:`open_executor`) that the session starts at its first uncached batch and shuts
down with itself. :class:`SessionJudge` is what every model judge on a session
shares: joining or opening one, its name, store and last batch, and closing what it
owns.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from fairjudge._call import Backend, CallSpec, Closing, Completion, Conversation, Route, route_of
from fairjudge._errors import ConfigError, FatalBackendError, MissingExtraError, worded
from fairjudge._types import CallError, ParseFailure, Replies, Reply

if TYPE_CHECKING:
    from fairjudge.runner import (
        Batch,
        CallOutcome,
        EventLoopThread,
        Executor,
        RunOptions,
        RunResult,
        RunSummary,
        Store,
    )

__all__ = [
    "EXECUTOR_NAMES",
    "Job",
    "JudgeSession",
    "OwnedExecutor",
    "ProgressCallback",
    "ReplyParser",
    "SessionJudge",
    "open_executor",
    "uses_default_executor",
]

C = TypeVar("C")
R = TypeVar("R")

ProgressCallback = Callable[[int], None]
"""Called with the number of calls just finished, for progress bars."""

ReplyParser = Callable[[Completion, C], Reply[R]]
"""Reads one completion, given its call's context, into a :class:`~fairjudge.Reply`.

It returns a reply with a reading (of the parser's kind: a verdict, scores, ...) or
a :class:`~fairjudge.ParseFailure`; the session fills in ``raw``, ``cached`` and ``key``.
"""


@dataclass(frozen=True, slots=True)
class Job(Generic[C]):
    """One call to make, with what its parser needs to read the reply.

    Attributes:
        spec: The rendered call.
        context: Handed to the parser with this call's completion (for example the
            rubric whose dimensions a score reply must cover).
    """

    spec: CallSpec
    context: C


class JudgeSession(Closing):
    """Owns the backends, the store, the event loop, the run options and the budget.

    Args:
        backends: The backends calls may be routed to; more can be added with
            :meth:`add`.
        store: The store, or its path; default ``.fairjudge/store.sqlite``.
            ``":memory:"`` caches for the session's life only.
        options: Concurrency, limits, budgets, retries and progress.
        executor: Where batches run: an :class:`~fairjudge.runner.Executor` (yours to
            close), or ``"asyncio"`` (the default), ``"ray"`` or ``"ray:ADDRESS"``,
            which the session builds at its first uncached batch and shuts down
            when it closes (see :func:`open_executor`).

    Example:
        >>> with JudgeSession(OpenAIBackend("gpt-4o-mini")) as session:  # doctest: +SKIP
        ...     replies = session.run(jobs, parse)
    """

    def __init__(
        self,
        backends: Backend | Sequence[Backend] = (),
        *,
        store: Store | str | PathLike[str] | None = None,
        options: RunOptions | None = None,
        executor: Executor | str | None = None,
    ) -> None:
        from fairjudge.runner import DEFAULT_STORE_PATH, EventLoopThread, RunOptions, Store

        self.options = options if options is not None else RunOptions()
        self.executor: Executor
        self.executor, owned = open_executor(executor)  # before the store opens: may refuse
        self.backends: dict[Route, Backend] = {}
        self.last_run: RunSummary | None = None
        """The summary of the most recent batch (also set when a budget stopped it)."""
        self.runs: list[RunSummary] = []
        """Every batch's summary, in order: a command of many batches reports them all
        (:meth:`RunSummary.total_of <fairjudge.runner.RunSummary.total_of>`)."""
        self.calls_made = 0
        self.spent = 0.0
        self._kept: set[str] = set()
        """Keys of the calls this session's batches got a reply for (each in the store):
        a stop counts them all, not only the stopped batch's (an audit's experiments)."""
        # One batch at a time: each batch's budget is what the batches before it left,
        # and its claims are the session's; two at once would both see the whole budget.
        self._one_batch = threading.Lock()
        self._owns_store = not isinstance(store, Store)
        self.store: Store = (
            store if isinstance(store, Store) else Store(store or DEFAULT_STORE_PATH)
        )
        self._loop = EventLoopThread(name="fairjudge-session")  # its thread starts on first use
        self._finalizer = weakref.finalize(
            self, _release, self._loop, self.backends, self.store if self._owns_store else None,
            owned,
        )  # fmt: skip
        for backend in [backends] if isinstance(backends, Backend) else backends:
            self.add(backend)

    def add(self, backend: Backend) -> Backend:
        """Route calls for ``backend``'s ``(name, model, base_url)`` to it.

        Two judges asking the same model at the same address share one backend (one
        connection pool, one loaded model): the one added first serves the route, and
        a later one is closed at once. Each judge keeps its own sampling parameters,
        which travel in its calls' specs.

        Returns:
            The backend now serving that route.
        """
        serving = self.backends.setdefault(route_of(backend), backend)
        if serving is not backend:
            _close(self._loop, [backend])
        return serving

    def __repr__(self) -> str:
        names = ", ".join("/".join(r[:2]) for r in self.backends) or "no backends"
        return f"JudgeSession({names}, store={self.store.path!r})"

    # -- running batches ---------------------------------------------------------------

    def run(
        self,
        jobs: Sequence[Job[C]],
        parse: ReplyParser[C, R],
        *,
        progress: ProgressCallback | None = None,
        quiet: bool = False,
        keep_stopped: bool = False,
    ) -> Replies[Reply[R]]:
        """Run the jobs; one reply per job, in order. Blocks until the batch is done.

        Batches on one session run one at a time (from any thread, sync or async), so
        a budget is never spent twice and no call is claimed by two batches at once.

        Args:
            jobs: The calls and their parsers' contexts. Jobs with equal keys are one
                call (made once, parsed once, with the first such job's context).
            parse: Reads each completion; called once per unique fresh or cached call.
            progress: Called (from the session's thread, or this one when the store
                answers the whole batch) with the number of jobs just settled, a few
                times a second.
            quiet: Show no progress display for this batch.
            keep_stopped: For a store that keeps nothing (an undeclared Python judge's,
                in memory): a stop (``FatalBackendError``) after at least one call
                finished returns the batch's replies instead of raising, the calls
                not finished ``NotRun`` (or their error), and ``stopped`` the stop's
                message. The finished calls then live on in the result alone.

        Returns:
            One reply per job. When ``max_calls`` or ``max_cost`` ran out, the calls
            not made are ``NotRun`` failures, the replies' ``stopped`` names the
            budget, and :attr:`last_run` says how far the batch got; finished calls
            are kept in the store.

        Raises:
            FatalBackendError: A backend rejected a call in a way retrying cannot fix,
                or nothing answered at its address; finished calls are kept (without
                ``keep_stopped``, or with no call finished).
        """
        from fairjudge.runner import serve_from_store

        with self._one_batch:
            work = _Pass(jobs, parse, progress)
            batch = self._batch(work, quiet, keep_stopped)
            result = serve_from_store(
                batch.backends, batch.specs, store=self.store, options=batch.options,
                on_progress=batch.on_progress,
            )  # fmt: skip
            if result is None:  # else all in the store: no thread, backend or connection
                try:
                    result = self._loop.run(self.executor.execute(batch))
                except FatalBackendError as exc:
                    self._count_kept(exc, batch.specs)
                    done = work.stopped_at
                    if done is None or not any(o.status == "ok" for o in done.outcomes.values()):
                        raise
                    replies = self._replies(work, done)
                    return Replies(replies, stopped=worded(str(exc), *exc.params))
                except KeyboardInterrupt as exc:  # what the executor leaves running, said
                    if note := getattr(self.executor, "interrupt_note", ""):
                        exc.add_note(note)
                    raise
            return self._replies(work, result)

    async def arun(
        self,
        jobs: Sequence[Job[C]],
        parse: ReplyParser[C, R],
        progress: ProgressCallback | None = None,
    ) -> Replies[Reply[R]]:
        """Async :meth:`run`: awaits the batch on the session's event-loop thread."""
        import asyncio

        await asyncio.to_thread(self._one_batch.acquire)  # one batch at a time (see run)
        try:
            work = _Pass(jobs, parse, progress)
            batch = self._batch(work, quiet=False)
            future = self._loop.submit(self.executor.execute(batch))
            try:
                result = await asyncio.wrap_future(future)
            except FatalBackendError as exc:
                self._count_kept(exc, batch.specs)
                raise
            return self._replies(work, result)
        finally:
            self._one_batch.release()

    def _batch(self, work: _Pass[C, R], quiet: bool, keep_stopped: bool = False) -> Batch:
        from fairjudge.runner import PROGRESS_LABEL, Batch, make_progress

        options = self.options.remaining(self.calls_made, self.spent)
        if quiet:
            options = dataclasses.replace(options, progress="quiet")
        elif PROGRESS_LABEL.get() and isinstance(options.progress, str):
            # Built here, in the caller's context, where the label was set (the batch
            # runs on the session's own thread, which does not see it).
            display = make_progress(options.progress, label=PROGRESS_LABEL.get())
            options = dataclasses.replace(options, progress=display or "quiet")
        return Batch(
            list(self.backends.values()),
            [job.spec for job in work.jobs],
            self.store,
            options,
            parse=work.read_fresh,
            on_progress=work.on_progress if work.progress is not None else None,
            on_stop=work.stopped if keep_stopped else None,
        )

    def _count_kept(self, exc: FatalBackendError, specs: Sequence[CallSpec]) -> None:
        """Make ``exc``'s count of calls kept the session's, not only the stopped batch's.

        The run that stopped knows only its own batch: an audit stopped in its framing
        batch said 0 calls were kept while the position experiment's were in the store.
        """
        if not self._kept:
            return
        kept = len(self._kept | set(self.store.get_many({spec.key for spec in specs})))
        from fairjudge.runner import restate_kept  # the stop's path only

        restate_kept(exc, kept)

    def _replies(self, work: _Pass[C, R], result: RunResult) -> Replies[Reply[R]]:
        """One reply per job from the run's outcomes; each unique call is read once.

        Runs in the caller's thread, whose context words the budget's message.
        """
        summary = self.last_run = result.summary
        self.runs.append(summary)
        self.calls_made += summary.made
        self._kept.update(key for key, done in result.outcomes.items() if done.status == "ok")
        self.spent += summary.cost_usd or 0.0
        replies: dict[str, Reply[R]] = {}
        out = []
        for key in result.keys:
            reply = replies.get(key)
            if reply is None:
                outcome = result[key]
                reading = work.readings.get(key)
                if reading is None and outcome.completion is not None:  # served from the store
                    reading = _read(work.parse, outcome.completion, work.contexts[key])
                reply = replies[key] = _finish(outcome, reading)
            out.append(reply)
        if work.progress is not None and work.reported < len(work.jobs):
            work.progress(len(work.jobs) - work.reported)  # duplicates settle with their twin
        stopped = self._budget_message(summary) if summary.stopped is not None else None
        return Replies(out, stopped=stopped)

    def _budget_message(self, summary: RunSummary) -> str:
        budget = summary.stopped or "max_calls"
        if budget == "interrupted":  # the command line's graceful stop (runner.GracefulStop)
            return (
                "interrupted: no call was started after the Ctrl-C or SIGTERM, and the calls "
                f"in flight had the grace period. The {len(self._kept)} calls finished so far "
                f"are kept in the store {self.store.path}; {summary.not_run} not run; run the "
                "same command again to make only the rest."
            )
        # The session's, as calls_made is: a --stop-when run is many batches.
        cached = sum(run.cached for run in self.runs)
        if budget == "max_cost" and self.calls_made == 0 and summary.not_run:
            # Nothing was spent: each call is held at its whole token cap until replies
            # show what calls cost, and not even one fit. "Spent" would be false.
            lower, named = _cap_advice(self.backends.values())  # the judges' own knobs
            return worded(
                f"the max_cost={self.options.max_cost} budget cannot pay for one call at "
                "its worst case (a call is held at its whole token cap until replies show "
                f"what calls cost), so no call was made and nothing was spent; "
                f"{cached} served from the store, {summary.not_run} not run. "
                f"Raise the budget, or {lower} so that one call's cap fits.",
                "max_cost",
                *named,
            )
        return worded(
            f"the {budget}={getattr(self.options, budget)} budget is spent: {self.calls_made} "
            f"calls made in this session, {cached} served from the store, "
            f"{summary.not_run} not run. Everything finished is kept in the store "
            f"{self.store.path}; run again to continue: the budget counts the calls of one "
            "run, so the same budget pays for as many again (stored calls cost nothing)."
            # the batch note says max_cost was held before submission: true of that budget only
            + (
                f" {note}"
                if budget == "max_cost" and (note := getattr(self.executor, "budget_note", ""))
                else ""
            ),
            budget,
            "max_cost",
        )

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Release the backends, the event-loop thread and what the session opened.

        What it opened: the store (unless one was given) and an executor built from a
        name (``executor="ray"`` shuts down the Ray it started).

        Also happens when the session is garbage-collected or the interpreter exits.
        """
        self._finalizer()


class _Pass(Generic[C, R]):
    """One batch on its way through a session: its jobs, and the replies read so far.

    A fresh reply is read as it arrives (:meth:`read_fresh`, on the session's
    thread, so its reading is stored beside it); a stored one when the batch is done.
    """

    def __init__(
        self, jobs: Sequence[Job[C]], parse: ReplyParser[C, R], progress: ProgressCallback | None
    ) -> None:
        self.jobs, self.parse, self.progress = jobs, parse, progress
        self.contexts: dict[str, C] = {}
        for job in jobs:
            self.contexts.setdefault(job.spec.key, job.context)
        self.readings: dict[str, Reply[R]] = {}
        self.reported = 0
        self.stopped_at: RunResult | None = None
        """What the run had finished when it stopped (``keep_stopped``), once it has."""

    def read_fresh(self, spec: CallSpec, completion: Completion) -> dict[str, Any]:
        key = spec.key
        reply = self.readings[key] = _read(self.parse, completion, self.contexts[key])
        return reply.to_record()

    def stopped(self, done: RunResult) -> None:
        self.stopped_at = done

    def on_progress(self, n: int) -> None:
        self.reported += n
        if self.progress is not None:
            self.progress(n)


def _read(parse: ReplyParser[C, R], completion: Completion, context: C) -> Reply[R]:
    """Parse one completion; a parser that raises yields a parse failure, not a crash."""
    try:
        return parse(completion, context)
    except Exception as exc:  # the paid reply is kept; the bug is reported with it
        reason = f"the parser raised {type(exc).__name__}: {exc}"
        return Reply(failure=ParseFailure(completion.text, reason))


def _finish(outcome: CallOutcome, reading: Reply[R] | None) -> Reply[R]:
    if outcome.completion is None or reading is None:
        error = outcome.error or CallError("NotRun", "the call was not made")
        return Reply(failure=error, key=outcome.key)
    return dataclasses.replace(
        reading, raw=outcome.completion.text, cached=outcome.cached, key=outcome.key
    )


def _cap_advice(backends: Iterable[Backend]) -> tuple[str, tuple[str, ...]]:
    """How to make one call's token cap smaller, in the parameters its judges take.

    ``max_tokens`` always; ``reasoning_effort`` for an OpenAI reasoning model, and
    ``thinking_budget`` for a Claude that thinks (its ``max_tokens`` cannot go below
    the budget, and it takes no effort). Returns the phrase and the parameters it
    names, for the command line to show as its flags.
    """
    params = ["max_tokens"]
    for backend in backends:
        if getattr(getattr(backend, "capabilities", None), "family", "") == "openai-reasoning":
            params.append("reasoning_effort")
        elif backend.name == "anthropic" and getattr(backend, "fixed_temperature", None):
            params.append("thinking_budget")  # thinking: it samples at 1 only
    named = tuple(dict.fromkeys(params))
    return "lower " + " or ".join(named), named


def _close(loop: EventLoopThread, backends: list[Backend]) -> None:
    """Close backends; one failing to close must not keep the others open.

    When nothing ever ran on the session's loop (every batch came from the store),
    no backend has a connection on it: they close on a throwaway loop here, rather
    than by starting the loop's thread just to close them. A backend that says it
    opened nothing (``opened`` is False: the HTTP backends before their first call)
    has nothing to close, and when none has, not even asyncio is imported.
    """
    backends = [b for b in backends if getattr(b, "opened", True)]
    if not backends:
        return
    import asyncio

    async def close_all() -> None:
        await asyncio.gather(*(b.aclose() for b in backends), return_exceptions=True)

    if not loop.started:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop in this thread either
            asyncio.run(close_all())
            return
    loop.run(close_all(), calls=False)  # no call: a bad grace setting never stops a close


def _release(
    loop: EventLoopThread, backends: dict[Route, Backend], store: Store | None,
    executor: OwnedExecutor | None,
) -> None:  # fmt: skip
    try:
        _close(loop, list(backends.values()))
    finally:
        loop.close()
        if store is not None:
            store.close()
        if executor is not None:
            executor.close()


class SessionJudge(Closing):
    """A model judge that runs its calls on a session (its own, or a shared one)."""

    session: JudgeSession
    backend: Backend
    params: dict[str, Any]

    def _join(
        self,
        backend: Backend,
        *,
        session: JudgeSession | None,
        store: Store | str | PathLike[str] | None,
        options: RunOptions | None,
        label_only: bool,
        params: Mapping[str, Any] | None,
        executor: Executor | str | None = None,
    ) -> None:
        """Join ``session`` or open one; set :attr:`params` and route ``backend``.

        Raises:
            ConfigError: ``store``, ``options`` or ``executor`` given with ``session``
                (the session has its own).
        """
        if session is not None:
            own = (("store", store), ("options", options), ("executor", executor))
            given = next((name for name, value in own if value is not None), None)
            if given is not None:
                raise ConfigError(
                    f"{given}= does not apply with session=: the session has its own store, "
                    "options and executor; set them on the session"
                )
        self._owns_session = session is None
        self.session = (
            session
            if session is not None
            else JudgeSession(store=store, options=options, executor=executor)
        )
        # This judge's own sampling defaults, even when another judge's backend for the
        # same model serves the calls (the parameters travel in each spec).
        self.params = {**backend.default_params(label_only=label_only), **(params or {})}
        self.backend = self.session.add(backend)

    def _spec(
        self, template: str, version: str, messages: Conversation, sample: int, kind: str
    ) -> CallSpec:
        """One call of this judge: its backend's route, its sampling parameters, a prompt."""
        b = self.backend
        return CallSpec(
            backend=b.name, model=b.model, base_url=b.base_url, template=template,
            template_version=version, messages=messages, params=self.params, sample=sample,
            kind=kind,
        )  # fmt: skip

    @property
    def name(self) -> str:
        """``backend/model``, as in ``--judge``."""
        return f"{self.backend.name}/{self.backend.model}"

    @property
    def store(self) -> Store:
        """The session's store."""
        return self.session.store

    @property
    def last_run(self) -> RunSummary | None:
        """The session's most recent batch summary."""
        return self.session.last_run

    def close(self) -> None:
        """Close the judge's own session (a shared session is its owner's to close)."""
        if self._owns_session:
            self.session.close()


EXECUTOR_NAMES = ("asyncio", "ray", "ray:ADDRESS")
"""The executor names a session accepts, as shown in error messages."""


def uses_default_executor(executor: object) -> bool:
    """Whether ``executor`` asks for nothing but the default (``None`` or ``"asyncio"``).

    A judge that calls no model (a Python callable, a replay) runs no batch, so any
    other executor does not apply to it.
    """
    return executor is None or executor == "asyncio"


def ray_address(name: str) -> str | None:
    """The Ray address a name asks for: ``None`` for a local instance.

    Raises:
        ConfigError: The name is no executor name (the message lists them).
    """
    if name == "ray":
        return None
    if name.startswith("ray://"):
        return name
    if name.startswith("ray:") and name[4:].strip():
        return name[4:].strip()
    raise ConfigError(
        f"executor={name!r} is no executor; use one of: {', '.join(EXECUTOR_NAMES)}, "
        "or an Executor object",
        params="executor",
    )


class OwnedExecutor:
    """A :class:`~fairjudge.runner.RayExecutor` the session builds on demand and shuts down.

    Built at the first :meth:`execute` (the first batch the store cannot answer), so
    a session whose every batch is cached starts no Ray at all.

    Args:
        address: The cluster's address; ``None``: ``$RAY_ADDRESS``, else a local instance.
    """

    def __init__(self, address: str | None) -> None:
        self.address = address
        self.built: Executor | None = None

    def build(self) -> Executor:
        """The Ray executor, built on the first call."""
        if self.built is None:
            from fairjudge.runner import RayExecutor

            self.built = RayExecutor(self.address)
        return self.built

    async def execute(self, batch: Batch) -> RunResult:
        """Run the batch on Ray (starting or joining it the first time)."""
        return await self.build().execute(batch)

    def close(self) -> None:
        """Shut down what :meth:`build` started (nothing when it never ran)."""
        built, self.built = self.built, None
        close = getattr(built, "close", None)
        if close is not None:
            close()

    def __repr__(self) -> str:
        where = "local" if self.address is None else self.address
        state = "started" if self.built is not None else "not started"
        return f"OwnedExecutor(ray, {where}, {state})"


def open_executor(executor: Executor | str | None) -> tuple[Executor, OwnedExecutor | None]:
    """The executor a session runs on, and the part of it the session must shut down.

    Args:
        executor: An executor object (the caller's), a name (see the module
            docstring), or ``None`` for asyncio.

    Returns:
        ``(executor, owned)``: ``owned`` is the executor when the session built it
        from a name and must close it, else ``None``.

    Raises:
        ConfigError: An unknown name, or an object that is no executor.
        MissingExtraError: A Ray executor was named but Ray is not installed.
    """
    from fairjudge.runner import AsyncioExecutor, Executor

    if uses_default_executor(executor):
        return AsyncioExecutor(), None
    if isinstance(executor, str):
        address = ray_address(executor.strip())
        if importlib.util.find_spec("ray") is None:  # checked now; imported at the first batch
            raise MissingExtraError("the Ray executor", "ray", "ray")
        owned = OwnedExecutor(address)
        return owned, owned
    if not isinstance(executor, Executor):
        raise ConfigError(
            f"executor must be an Executor (with an async execute(batch) method) or one of "
            f"{', '.join(EXECUTOR_NAMES)}; got {executor!r}",
            params="executor",
        )
    return executor, None
