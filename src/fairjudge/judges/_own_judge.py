"""Your own judge: what a Python function (or object) declares, and the backend that runs it.

A declared identity (only then is it cached), which failures are transient, and how
to call it; the function then becomes a :class:`~fairjudge._call.Backend`, so the
runner gives it concurrency, rpm, retries, budgets and the store, as any judge.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import (
    BackendError,
    BackendTimeout,
    BudgetExceeded,
    ConfigError,
    FatalBackendError,
)
from fairjudge._types import Probabilities, Reply, Verdict

__all__ = [
    "MIN_ABANDONED",
    "NOT_CACHED",
    "FunctionBackend",
    "NotRun",
    "OwnJudge",
    "TransientJudgeError",
    "as_text",
    "check_form",
    "from_text",
    "interrupt_note",
    "judge_function",
    "judge_name",
    "own_judge",
    "set_interrupt_note",
]


F = TypeVar("F")

NOT_CACHED = (
    "no store: this judge declares no name and version, so nothing was kept and a rerun "
    "makes every call again; declare them with @fairjudge.judge_function(name=..., "
    "version=...) to cache its calls (README: 'Your own judge')"
)
"""What every message about an undeclared judge's calls says instead of a store path."""


class TransientJudgeError(BackendError):
    """Raise it from your judge for a failure worth retrying (a gateway's 429 or 503).

    The call is retried with the run's backoff (``max_attempts``), as an HTTP judge's
    429 or 5xx is; a call that still fails is recorded as that call's error. Any other
    exception is recorded at once, without a retry, unless its type is listed in
    ``transient=`` of :func:`judge_function`.

    Example:
        >>> raise TransientJudgeError("gateway busy")  # doctest: +SKIP
    """

    retryable = True


@dataclass(frozen=True, slots=True)
class OwnJudge:
    """A user's judge, as fairjudge calls it.

    Attributes:
        target: What is called: the function, or the object's ``ajudge``/``judge`` method.
        is_async: Whether calling ``target`` returns an awaitable (an ``async def``).
        name: The declared stable name, or ``None`` (then the judge is never cached).
        version: The declared version (part of every cache key), or ``None``.
        transient: Exception types that are retried like :class:`TransientJudgeError`.
        label: How the judge is named where no identity is declared.
    """

    target: Callable[..., Any]
    is_async: bool
    name: str | None
    version: str | None
    transient: tuple[type[BaseException], ...]
    label: str

    @property
    def declared(self) -> bool:
        """Whether the judge declares a name and a version, so its calls may be cached."""
        return self.name is not None and self.version is not None


def judge_function(
    fn: F | None = None,
    *,
    name: str | None = None,
    version: str | int | None = None,
    transient: tuple[type[BaseException], ...] = (),
) -> Any:
    """Declare your judge's stable identity and its retryable failures.

    Use it as ``@judge_function(name="acme-gateway", version="3")`` on a function, an
    ``async def`` function or a class with a ``judge``/``ajudge`` method. It only sets
    attributes (``fairjudge_name``, ``fairjudge_version``, ``fairjudge_transient``),
    so the decorated object is unchanged otherwise; setting them yourself works too.

    Args:
        fn: The judge, when the decorator is used without parentheses.
        name: A name that stays the same across runs and machines; with ``version``,
            the judge's calls are cached in the store under it.
        version: Bump it whenever the judge's replies may change (a new model behind
            the gateway, a new prompt): calls of an old version are never served.
        transient: Exception types worth retrying (``(TimeoutError, ConnectionError)``).

    Returns:
        The judge, with the attributes set (or the decorator, without ``fn``).

    Raises:
        ConfigError: Only one of ``name`` and ``version``, an empty one, or a
            ``transient`` entry that is no exception type.

    Example:
        >>> @judge_function(name="acme-gateway", version="3", transient=(TimeoutError,))
        ... def acme(question, answer_a, answer_b):
        ...     return "A"
        >>> acme.fairjudge_name, acme.fairjudge_version
        ('acme-gateway', '3')
    """
    name, version_text = _checked_identity(name, version, "judge_function")
    kinds = tuple(transient)
    if not all(isinstance(t, type) and issubclass(t, BaseException) for t in kinds):
        raise ConfigError(
            f"judge_function: transient must be exception types; got {transient!r}",
            params="transient",
        )

    def declare(obj: F) -> F:
        for attribute, value in (
            ("fairjudge_name", name), ("fairjudge_version", version_text),
            ("fairjudge_transient", kinds),
        ):  # fmt: skip
            try:
                setattr(obj, attribute, value)
            except (AttributeError, TypeError) as exc:  # a builtin or a bound method
                raise ConfigError(
                    f"judge_function cannot mark {obj!r}: {exc}; wrap it in a def"
                ) from exc
        return obj

    return declare if fn is None else declare(fn)


def _checked_identity(name: object, version: object, where: str) -> tuple[str | None, str | None]:
    """``(name, version)`` as text, both or neither; a half or empty identity is refused."""
    if name is None and version is None:
        return None, None
    if isinstance(version, int) and not isinstance(version, bool):
        version = str(version)
    if not (
        isinstance(name, str) and name.strip() and isinstance(version, str) and version.strip()
    ):
        raise ConfigError(
            f"{where}: a judge is cached under a name and a version, both non-empty text; "
            f"got name={name!r}, version={version!r}",
            params=("name", "version"),
        )
    return name.strip(), version.strip()


def own_judge(obj: Any, label: str | None = None) -> OwnJudge:
    """Read a user's judge: what to call, whether it is async, and what it declares.

    The declaration is looked up on the object first, then on the method called,
    so a decorated class and a decorated method both work.

    Raises:
        ConfigError: ``obj`` is neither callable nor has a ``judge``/``ajudge``
            method, or its declaration is half or empty.
    """
    target = _called(obj)
    if not callable(target):
        raise ConfigError(
            f"judge must be callable or have a judge/ajudge method; got {obj!r}", params="judge"
        )

    def declared(attribute: str) -> Any:
        value = getattr(obj, attribute, None)
        return value if value is not None else getattr(target, attribute, None)

    name, version = _checked_identity(
        declared("fairjudge_name"), declared("fairjudge_version"), f"judge {obj!r}"
    )
    return OwnJudge(
        target=target,
        is_async=_is_async(target),
        name=name,
        version=version,
        transient=tuple(declared("fairjudge_transient") or ()),
        label=label or _spec_of(target),
    )


def _called(obj: Any) -> Any:
    """What calling a user's judge calls: the function, or its ``ajudge``/``judge`` method."""
    if not inspect.isroutine(obj):
        for method in ("ajudge", "judge"):
            bound = getattr(obj, method, None)
            if callable(bound):
                return bound
    return obj


def _spec_of(target: Any) -> str:
    """The ``python:module:qualname`` spec that names a user's judge."""
    qualname = getattr(target, "__qualname__", type(target).__name__)
    return f"python:{getattr(target, '__module__', '?')}:{qualname}"


def judge_name(judge: object) -> str:
    """A judge's name in results, reports, ``--out`` headers and panels: the one rule.

    The notebook functions and the command line both name judges here, so one judge
    reads the same in both. A judge object keeps its ``name`` (a spec's judge is named
    by its spec: ``openai/gpt-4o-mini``, ``local/...@sha``). Your own function or
    object is named by the spec that loads it on the command line,
    ``python:module:qualname``, so ``compare(items, longer)`` and ``--judge
    python:module:longer`` agree. Anything else is named by its type.

    Example:
        >>> def longer(question, answer_a, answer_b):
        ...     return "A"
        >>> judge_name(longer)
        'python:fairjudge.judges._own_judge:longer'
    """
    name = getattr(judge, "name", None)
    if name:
        return str(name)
    target = _called(judge)
    return _spec_of(target) if callable(target) else type(judge).__name__


_FORMS = {
    "pairwise": (("question", "answer_a", "answer_b"), "compares two answers", "compare"),
    "pointwise": (("question", "answer"), "scores single answers", "score"),
}
"""Each kind of judge: its arguments, what it does, and the run (fairjudge.X) that reads it."""


def check_form(target: Any, kind: str, name: str) -> None:
    """Refuse a judge whose arguments are not ``kind``'s, before its first call.

    A function of ``(question, answer)`` given where pairs are judged (or the other way
    round) would fail on every call, each one made: the run is refused instead. A
    target whose signature cannot be read (a builtin) is left to its calls.

    Raises:
        ConfigError: ``target`` cannot be called with ``kind``'s arguments; the message
            says which kind its arguments are and which run reads it.
    """
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return
    args, does, _ = _FORMS[kind]
    fits = {k: _binds(signature, form[0]) for k, form in _FORMS.items()}
    if fits[kind]:
        return
    takes = ", ".join(p.name for p in signature.parameters.values())
    other = next(k for k in _FORMS if k != kind)
    what = (
        f": a {other} judge, which {_FORMS[other][1]} (fairjudge {_FORMS[other][2]} reads it)"
        if fits[other]
        else ""
    )
    raise ConfigError(
        f"judge {name!r} takes ({takes}){what}; this run {does} and calls "
        f"judge({', '.join(args)}): give a judge of that form"
    )


def _binds(signature: inspect.Signature, args: tuple[str, ...]) -> bool:
    try:
        signature.bind(*args)
    except TypeError:
        return False
    return True


def _is_async(target: Any) -> bool:
    """Whether calling ``target`` gives a coroutine.

    That is an ``async def``, or an object whose ``__call__`` is one. A sync function
    that returns an awaitable is awaited anyway (:mod:`~fairjudge.judges._own_judge`).
    """
    if inspect.iscoroutinefunction(target):
        return True
    call = getattr(target, "__call__", None)  # noqa: B004 (an async __call__, not callability)
    return call is not None and inspect.iscoroutinefunction(call)


_NOTE: list[str] = []


def set_interrupt_note(note: str | None) -> None:
    """Say what a Ctrl-C now would leave behind (``None``: the store's usual promise).

    A Python judge sets it as each batch starts and, when interrupted, to what the
    store holds; the command line prints it instead of its generic line.
    """
    _NOTE[:] = [] if note is None else [note]


def interrupt_note() -> str | None:
    """What the last judge that ran says about an interruption, if it says anything."""
    return _NOTE[0] if _NOTE else None


class NotRun(Exception):  # named for the failure kind the reply records
    """The call was not made: the function's own budget had run out (``BudgetExceeded``)."""

    def __init__(self) -> None:
        super().__init__("the call was not made")


MIN_ABANDONED = 32
"""The fewest abandoned threads a sync judge may leave running before its run stops.

A stuck thread costs its stack (reserved, barely touched) and what the function holds
open (a socket, say): 32 of them stay far below the 1024 open files and the thread
limits a process usually has. The bound is there for a function that hangs on every
call (a hung gateway), not for a few inputs that hang: at a sync judge's default
concurrency of 1, one round of calls is 8 threads (8 attempts), 3 at ``--max-attempts
3``, so a second input that hangs stopped the run (review41 F1). With 32, sixteen calls
that hang end as call errors (a timeout is tried twice at the default ``max_attempts``:
``fairjudge.judges._callable.HUNG_ATTEMPTS``; eleven at 3 attempts), and a function
that hangs on everything stops 33 timeouts in.
"""


class FunctionBackend:
    """Calls one user judge for the runner (design: ``docs/internals.md``).

    Args:
        judge: The judge as read by :func:`~fairjudge.judges._own_judge.own_judge`.
        model: What the calls' specs carry as the model: the declared name, or the
            judge's label for an undeclared one.
        timeout: Seconds one call may take; a call past it fails as
            :class:`~fairjudge.BackendTimeout`, as an HTTP judge's does (``None``: no limit).
        max_abandoned: Calls given up on (past the timeout, or stopped) whose threads
            may still run; with more, the run stops instead of starting another
            (:meth:`complete`); ``None``: no bound. A judge passes its run's
            concurrency times its attempts per call (one round of calls that all
            hang), or :data:`MIN_ABANDONED` when that is more.
    """

    name = "python"
    base_url: str | None = None

    def __init__(
        self,
        judge: OwnJudge,
        *,
        model: str,
        timeout: float | None = None,
        max_abandoned: int | None = None,
    ) -> None:
        self.judge = judge
        self.model = model
        self.timeout = timeout
        self.max_abandoned = max_abandoned
        self.opened = False
        self.stopped: str | None = None
        """The message of a ``BudgetExceeded`` the function raised: no call is made after it."""
        self.finished = 0
        """Calls that returned a value, over the backend's life."""
        self._calls: dict[str, Callable[[], object]] = {}
        self._values: dict[str, object] = {}
        self._pool: _DaemonThreads | None = None

    @property
    def max_concurrency(self) -> int | None:
        """No cap of its own: the run's concurrency (as many threads for a sync judge)."""
        return None

    def default_params(self, *, label_only: bool) -> dict[str, Any]:
        """No sampling parameters: the function decides how it samples."""
        return {}

    def expect(self, spec: CallSpec, call: Callable[[], object]) -> None:
        """Register how the call ``spec`` is made: ``call()`` calls the judge."""
        self._calls[spec.key] = call

    def value_of(self, key: str, default: object) -> object:
        """The value the function returned for ``key`` in this batch (read once), or ``default``."""
        return self._values.pop(key, default)

    def forget(self) -> None:
        """Drop the batch's arguments and values once it is read."""
        self._calls.clear()
        self._values.clear()

    async def complete(self, spec: CallSpec) -> Completion:
        """Call the judge with the arguments registered for ``spec``.

        Raises:
            FatalBackendError: More than :attr:`max_abandoned` calls of a sync judge
                that the run gave up on are still running in their threads: the judge
                is not returning (a hung gateway), so the run stops before starting one
                more (each would leave another thread behind). The call is not made (no
                row; it ends not run), and every finished call is kept.
        """
        if self.stopped is not None:
            raise NotRun
        pool, most = self._pool, self.max_abandoned
        if pool is not None and most is not None and pool.stuck > most:
            raise self._stuck(pool.stuck)
        call = self._calls[spec.key]
        started = time.perf_counter()
        try:
            value = await self._call(call)
        except BudgetExceeded as exc:
            self.stopped = str(exc)
            raise NotRun from exc
        except TransientJudgeError:
            raise
        except self.judge.transient as exc:
            raise TransientJudgeError(f"{type(exc).__name__}: {exc}") from exc
        self.finished += 1
        if not isinstance(value, str):
            self._values[spec.key] = value  # read as returned; stored as its text
        # A function has no tokens, hidden or not: 0 reasoning tokens, not "unreported".
        return Completion(
            as_text(value), latency_s=time.perf_counter() - started, input_tokens=0,
            output_tokens=0, reasoning_tokens=0,
        )  # fmt: skip

    async def _call(self, call: Callable[[], object]) -> object:
        """``call()``'s value; within :attr:`timeout`, or :class:`BackendTimeout`.

        An async judge past its time is cancelled. A sync one cannot be stopped: its
        thread is left to finish on its own (a daemon, so it never holds up the exit),
        its value goes nowhere, and another thread takes its place in the pool.
        """
        import asyncio

        if self.timeout is None:
            return await self._value(call)
        try:
            async with asyncio.timeout(self.timeout) as limit:
                return await self._value(call)
        except TimeoutError:
            if not limit.expired():
                raise  # the judge's own TimeoutError: its failure, as any exception
            raise BackendTimeout(
                f"{self.name} backend: no reply from {self.judge.label} within {self.timeout:g} s"
            ) from None

    async def _value(self, call: Callable[[], object]) -> object:
        import asyncio

        try:
            if self.judge.is_async:
                value = call()  # a coroutine, awaited below on this loop
            else:
                self.opened = True
                value = await self._threads().run(call)
            if inspect.isawaitable(value):  # an async def, or a sync wrapper of an async client
                value = await value
        except asyncio.CancelledError:
            raise  # the run stopping this call (or its timeout), not the judge
        except Exception:
            raise
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: would kill the loop
            raise FatalBackendError(_escaped(self.judge.label, exc)) from exc
        return value

    def _stuck(self, n: int) -> FatalBackendError:
        """Why no more calls of a judge with ``n`` abandoned calls still running start."""
        past = "" if self.timeout is None else f" past the {self.timeout:g} s timeout"
        error = FatalBackendError(
            f"{self.name} backend: {n} calls to {self.judge.label} that the run gave up on"
            f"{past} are still running (a sync function's thread cannot be stopped, so "
            f"each was left to finish), more than this run lets pile up ({self.max_abandoned}: "
            f"the larger of {MIN_ABANDONED} and its concurrency times its attempts per call): the "
            "function is not returning (a hung gateway?), so no more calls are started. "
            "Make it return or raise within the timeout, or give it a longer timeout",
            params="timeout",
        )
        error.requests = 0  # not made: no row, and the call ends not run
        return error

    def _threads(self) -> _DaemonThreads:
        if self._pool is None:
            self._pool = _DaemonThreads()
        return self._pool

    async def aclose(self) -> None:
        """Let the judge's threads go; a call still running finishes on its own."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown()


class _DaemonThreads:
    """Daemon threads that call a sync judge, each one call at a time.

    A ``concurrent.futures`` pool's threads are joined at the interpreter's exit, so
    one stuck in a hung gateway call would hang the exit. These are daemons: a call
    the run gave up on (its timeout, a stop, a Ctrl-C) is *abandoned*, its thread
    left to finish alone and end, its value dropped, and a fresh thread takes its
    place. There are as many threads as calls waiting or running (the run's
    concurrency at most), so at concurrency 1 the calls run one at a time, in order,
    on one thread (a new one only after a call is abandoned).
    """

    def __init__(self) -> None:
        import queue
        import threading

        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self._busy = 0  # calls queued or running, not abandoned
        self._live = 0  # threads not abandoned: never fewer than _busy
        self.stuck = 0
        """Threads still running a call that was abandoned (FunctionBackend.max_abandoned)."""

    async def run(self, call: Callable[[], object]) -> object:
        """``call()`` on one of the threads; a cancel abandons it there."""
        import asyncio
        import threading

        loop = asyncio.get_running_loop()
        work = _Work(call, loop, loop.create_future())
        with self._lock:
            self._busy += 1
            if self._busy > self._live:
                self._live += 1
                threading.Thread(target=self._work, name="fairjudge-judge", daemon=True).start()
        self._queue.put(work)
        try:
            return await work.future
        except asyncio.CancelledError:
            with self._lock:
                if work.state in ("queued", "running"):
                    self._busy -= 1
                    self._live -= work.state == "running"  # its thread is stuck there
                    self.stuck += work.state == "running"
                    work.state = "abandoned"
            raise

    def _work(self) -> None:
        while (work := self._queue.get()) is not None:
            with self._lock:
                if work.state == "abandoned":  # given up on while queued
                    continue
                work.state = "running"
            try:
                outcome: tuple[object, BaseException | None] = (work.call(), None)
            except BaseException as exc:  # handed to the waiting call, as run_in_executor does
                outcome = (None, exc)
            with self._lock:
                if work.state == "abandoned":
                    self.stuck -= 1
                    return  # its call gave up on it, and another thread has its place
                work.state = "done"
                self._busy -= 1
            work.settle(*outcome)

    def shutdown(self) -> None:
        """Let the idle threads end; a call still running finishes on its own."""
        with self._lock:
            for _ in range(self._live):
                self._queue.put(None)
            self._live = 0


@dataclass(slots=True)
class _Work:
    """One call handed to :class:`_DaemonThreads`, and where its outcome goes."""

    call: Callable[[], object]
    loop: Any
    future: Any
    state: str = "queued"  # queued, running, done or abandoned

    def settle(self, value: object, error: BaseException | None) -> None:
        """Hand the outcome to the waiting call (on its loop), unless it is gone."""

        def set_outcome() -> None:
            if self.future.done():  # cancelled meanwhile
                return
            if error is not None:
                self.future.set_exception(error)
            else:
                self.future.set_result(value)

        with contextlib.suppress(RuntimeError):  # the loop is closed: no one waits any more
            self.loop.call_soon_threadsafe(set_outcome)


def _escaped(judge: str, exc: BaseException) -> str:
    """Why a judge that raised SystemExit or KeyboardInterrupt stopped the run."""
    what = f"{type(exc).__name__}({', '.join(map(repr, exc.args))})"
    return (
        f"the judge {judge} raised {what} in a call, so the run stops here (fairjudge does "
        "not exit with a judge's code, nor take a judge's KeyboardInterrupt for a Ctrl-C); "
        "a judge says that a call failed by raising an Exception"
    )


def as_text(value: object) -> str:
    """The text a judge's value is stored as: a string as it is, a mapping as JSON.

    :func:`from_text` reads it back to a value that reads the same (a verdict, the
    same probabilities, the same scores), so a cached reply equals a fresh one.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, Verdict):
        return value.value
    if isinstance(value, Reply):
        if value.probabilities is not None:
            return as_text(value.probabilities)
        return value.verdict.value if isinstance(value.verdict, Verdict) else (value.raw or "")
    if isinstance(value, Probabilities):
        value = value.to_dict()
    if isinstance(value, Mapping):
        try:
            return json.dumps(dict(value), sort_keys=True)
        except (TypeError, ValueError):
            return repr(value)
    return repr(value)


def from_text(text: str) -> object:
    """A stored reply's value: a JSON object as a mapping, anything else as the text."""
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict):
            return value
    return text
