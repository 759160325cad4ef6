"""Your own Python judges (functions, ``async def``, objects), and ``python:module:NAME`` specs."""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any, Never, Self, TypeVar

from fairjudge._call import CallSpec, Closing, Completion
from fairjudge._errors import BackendError, BackendTimeout, ConfigError, FatalBackendError, worded
from fairjudge._items import question_text
from fairjudge._types import CallError, ParseFailure, Probabilities, Replies, Reply, Verdict
from fairjudge.judges._own_judge import (
    MIN_ABANDONED,
    NOT_CACHED,
    FunctionBackend,
    check_form,
    from_text,
    own_judge,
    set_interrupt_note,
)
from fairjudge.judges._pairwise import PairwiseRequest, ProgressCallback
from fairjudge.prompts import parse_verdict

if TYPE_CHECKING:
    from fairjudge.judges._session import JudgeSession
    from fairjudge.runner import RetryPolicy, RunOptions, RunSummary, Store

__all__ = [
    "HUNG_ATTEMPTS",
    "CallableJudge",
    "PythonFunction",
    "load_python_judge",
    "not_run",
    "python_function",
    "reply_from_value",
]

Q = TypeVar("Q")
R = TypeVar("R")


def not_run() -> Reply[Never]:
    """The reply of a call a budget stop left unmade (as the session gives it), of any kind."""
    return Reply(failure=CallError("NotRun", "the call was not made"))


def reply_from_value(value: object) -> Reply:
    r"""Turn whatever a Python judge returned into a :class:`Reply`.

    Accepted: a :class:`Verdict`; a string, read as an explained reply, which also
    covers a bare label (so ``"A"``, ``" tie "``, ``"[[B]]"``, ``"Verdict: A"`` and
    ``"Answer A is wordy.\nVerdict: B"`` all work: the last non-empty line is the
    verdict, and it must be the reply's only verdict slot); :class:`Probabilities`;
    a mapping ``{"A": p, "B": p, "tie": p}``; or a ready :class:`Reply`. Like a
    model's reply, the string is read on its own, never against the answers.
    Anything unreadable becomes a :class:`ParseFailure` that keeps the raw value.
    """
    if isinstance(value, Reply):
        return value
    if isinstance(value, Verdict):
        return Reply(verdict=value, raw=value.value)
    if isinstance(value, str):
        parsed = parse_verdict(value, "explained")
        if isinstance(parsed, ParseFailure):
            return Reply(verdict=None, raw=value, failure=parsed)
        return Reply(verdict=parsed, raw=value)
    if isinstance(value, Probabilities | Mapping):
        try:
            probs = value if isinstance(value, Probabilities) else Probabilities.from_mapping(value)
        except (ValueError, TypeError) as exc:
            reason = _not_probabilities(value) or str(exc)
            return Reply(verdict=None, raw=repr(value), failure=ParseFailure(repr(value), reason))
        return Reply(verdict=probs.argmax(), probabilities=probs, raw=repr(value))
    reason = f"judge returned {type(value).__name__} {value!r}; expected 'A', 'B' or 'tie'"
    return Reply(verdict=None, raw=repr(value), failure=ParseFailure(repr(value), reason))


def _not_probabilities(value: object) -> str | None:
    """Why a returned mapping is no probabilities (a value is no number); else None.

    ``{"verdict": "A"}`` is read as probabilities and fails on ``float('A')``; say what
    a dict means and what to return instead.
    """
    if not isinstance(value, Mapping):
        return None
    for key, item in value.items():
        try:
            float(item)
        except (ValueError, TypeError):
            shown = repr(dict(value))
            shown = shown if len(shown) <= 120 else shown[:117] + "..."
            return (
                f"judge returned {type(value).__name__} {shown}: a dict is read as "
                "probabilities {'A': p, 'B': p, 'tie': p} with numeric values; got "
                f"{item!r} for {key!r}; return the label itself ('A', 'B' or 'tie') or such "
                "a dict"
            )
    return None


class PythonFunction(Closing):
    """A user's Python judge, run on the engine that runs HTTP judges.

    What both kinds of Python judge share (:class:`CallableJudge` and the pointwise
    :class:`~fairjudge.judges.CallablePointwiseJudge`): each batch runs on a
    :class:`~fairjudge.judges.JudgeSession` of the judge's own, through a
    :class:`~fairjudge.judges._own_judge.FunctionBackend`, so the function gets the
    runner's concurrency, rpm, retries, progress and ``max_calls``. ``fn`` may be a
    function, an ``async def`` function, or an object with a ``judge``/``ajudge``
    method (see :mod:`fairjudge.judges._own_judge`).

    Caching: a judge that declares a name and a version
    (:func:`~fairjudge.judges._own_judge.judge_function`) is cached in the store
    (``store``, default ``.fairjudge/store.sqlite``) under that identity, with the
    claims, resume and audit log of an HTTP judge's calls. An undeclared one runs on
    an in-memory store and every call is made, duplicates included; a ``store`` for
    it is refused, since nothing could be kept there. So a stop once calls have
    answered (``max_calls``, a ``FatalBackendError``: its threads at their bound, say)
    returns the batch's replies, the rest ``NotRun``, with ``stopped`` saying why: what
    answered lives on in the result alone. A Ctrl-C ends the run, and its work with it.

    Concurrency: the run's (``options.concurrency``). Without ``options``, an async
    judge runs 16 calls at once and a sync one is called one call at a time, in
    request order, on one thread, with no progress display: a bare function handed
    to :func:`fairjudge.evaluate_pairs` keeps the seed protocol's call-by-call
    contract, and need not be thread-safe. Pass options to run it concurrently.

    Failures are records: an exception raised by the function becomes a
    :class:`CallError` for that call (after retries, when it is transient), except
    :class:`FatalBackendError`, which stops the run, and :class:`BudgetExceeded`
    (an LLM judge called inside the function ran out), which ends the batch early:
    the calls left are ``NotRun`` and the replies' ``stopped`` holds its message.

    Timeout: with ``timeout``, a call that takes longer fails as an HTTP judge's
    does, a :class:`~fairjudge.BackendTimeout` ("python backend: no reply from ...
    within 1 s") and then that call's error, never a tie. An ``async def`` judge's
    call is cancelled, and retried as an HTTP timeout is. A sync judge's thread cannot
    be stopped, so it is left to finish on its own (a daemon thread: it never holds up
    the interpreter's exit) and whatever it returns is dropped; such a call is tried
    at most :data:`HUNG_ATTEMPTS` times at the default ``max_attempts`` (why: there).
    The last timeout's message says how many attempts were made and names
    ``max_attempts`` and ``timeout``.

    Args:
        fn: The judge.
        name: How reports name it (default ``python:module:qualname``).
        options: Run options (concurrency, rpm, max_calls, retries, progress); a
            Python judge reports no tokens, so ``tpm``, ``max_cost`` and prices do
            not apply.
        store: The store or its path, for a declared judge.
        timeout: Seconds one call may take (> 0); ``None``, the default: no limit.

    Raises:
        ConfigError: An option the judge cannot honour (named), a store for an
            undeclared judge, or a ``timeout`` that is not a number of seconds > 0.
    """

    call_kind = "pairwise"
    """What the calls are for, as the store's ``kind`` column says."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        options: RunOptions | None = None,
        store: Store | str | PathLike[str] | None = None,
        timeout: float | None = None,
    ) -> None:
        self.fn = fn
        self.own = own_judge(fn, name)
        self.target = self.own.target
        self.name = name or self.own.label
        check_form(self.target, self.call_kind, self.name)  # before any call
        self.options = options
        if options is not None:
            _check_options(self.name, options)
        if store is not None and not self.own.declared:
            raise ConfigError(
                f"store does not apply to the judge {self.name!r}: it declares no name and "
                "version, so its calls cannot be cached (a cache keyed by a function's name "
                "would serve stale replies once its body changes); declare them with "
                "@fairjudge.judge_function(name=..., version=...), or drop store",
                params="store",
            )
        self._store = store
        self._timeout = _checked_timeout(timeout)
        self._session: JudgeSession | None = None
        self._backend: FunctionBackend | None = None
        self._made = 0  # numbers an undeclared judge's calls, so none is deduplicated

    @property
    def timeout(self) -> float | None:
        """Seconds one call may take (``None``: no limit); set it to change it, checked."""
        return self._timeout

    @timeout.setter
    def timeout(self, seconds: float | None) -> None:
        self._timeout = _checked_timeout(seconds)
        if self._backend is not None:
            self._backend.timeout = self._timeout

    @property
    def declared(self) -> bool:
        """Whether the judge declares a name and version, so its calls are cached."""
        return self.own.declared

    @property
    def last_run(self) -> RunSummary | None:
        """The summary of the judge's most recent batch (calls, retries, errors)."""
        return self._session.last_run if self._session is not None else None

    def with_run(
        self, options: RunOptions | None, store: Store | str | PathLike[str] | None
    ) -> Self:
        """A copy of this judge with run options and a store (a panel's), checked as here.

        The copy has a session of its own; this judge's is left as it is.
        """
        judge = copy.copy(self)
        if options is not None:
            _check_options(self.name, options)
        if store is not None and not self.declared:
            raise ConfigError(f"store does not apply to the undeclared judge {self.name!r}")
        judge.options, judge._store = options, store
        judge._session = judge._backend = None
        judge._made = 0
        return judge

    @property
    def calls_made(self) -> int:
        """Calls the judge has made (not served from a store) over its life."""
        return self._session.calls_made if self._session is not None else 0

    @property
    def store_path(self) -> str | None:
        """Where a declared judge's calls are kept; ``None`` for an undeclared one."""
        return str(self._open()[0].store.path) if self.declared else None

    def cap_calls(self, left: int) -> None:
        """Let the next batches make at most ``left`` more calls (a panel's shared budget)."""
        session, _ = self._open()
        options = dataclasses.replace(self._run_options(), max_calls=session.calls_made + left)
        session.options = options

    def _run_options(self) -> RunOptions:
        from fairjudge.runner import RunOptions

        options = self.options
        if options is None:
            options = RunOptions(concurrency=16 if self.own.is_async else 1, progress="quiet")
        retry = _timeout_retry(options.retry, sync=not self.own.is_async)
        return dataclasses.replace(options, retry=retry)

    def _open(self) -> tuple[JudgeSession, FunctionBackend]:
        if self._session is None or self._backend is None:
            from fairjudge.judges._session import JudgeSession

            options = self._run_options()
            own = self.own
            model = own.name if own.declared and own.name is not None else own.label
            # One round of calls that all hang, and never fewer than MIN_ABANDONED: a few
            # inputs that hang are call errors; only a function hung on all stops the run.
            most = max(MIN_ABANDONED, options.concurrency * options.retry.max_attempts)
            backend = FunctionBackend(own, model=model, timeout=self._timeout, max_abandoned=most)
            store = self._store if own.declared else ":memory:"
            self._session = JudgeSession(backend, store=store, options=options)
            self._backend = backend
        return self._session, self._backend

    def _spec(self, request: Any) -> CallSpec:
        """The call for one request: its fields as messages, keyed by the judge's identity."""
        own = self.own
        messages = tuple(
            ("user", f"{f.name}: {question_text(value) if f.name == 'question' else value}")
            for f in dataclasses.fields(request)
            if f.name != "sample" and (value := getattr(request, f.name)) is not None
        )
        params: dict[str, Any] = {}
        if not own.declared:
            self._made += 1
            params["call"] = self._made
        return CallSpec(
            backend=FunctionBackend.name, model=own.name or own.label, messages=messages,
            template=f"python-{self.call_kind}", template_version=own.version or "undeclared",
            params=params, sample=getattr(request, "sample", 0), kind=self.call_kind,
        )  # fmt: skip

    def _each(
        self,
        requests: Sequence[Q],
        call: Callable[[Q], object],
        read: Callable[[object], Reply[R]],
        progress: ProgressCallback | None,
    ) -> Replies[Reply[R]]:
        """``read(call(request))`` for each request, on the engine; one reply per request."""
        from fairjudge.judges._session import Job

        session, backend = self._open()
        jobs = []
        for request in requests:
            spec = self._spec(request)
            backend.expect(spec, functools.partial(call, request))
            jobs.append(Job(spec, spec.key))

        def parse(completion: Completion, key: str) -> Reply[R]:
            value = backend.value_of(key, _TEXT)
            return read(from_text(completion.text) if value is _TEXT else value)

        # What a Ctrl-C during this batch leaves behind; said by the command line, and
        # forgotten once the batch ends any other way (a later run is not this one).
        set_interrupt_note(None if self.declared else f"interrupted; {NOT_CACHED}")
        interrupted, answered = False, backend.finished
        try:
            # No store keeps an undeclared judge's calls, so a stop returns what finished.
            replies = session.run(jobs, parse, progress=progress, keep_stopped=not self.declared)
        except KeyboardInterrupt:
            interrupted = True
            self._interrupted(session, jobs, backend.finished - answered)
            raise
        except FatalBackendError as exc:
            if self.declared:
                raise
            raise type(exc)(_unkept(str(exc))) from exc
        finally:
            backend.forget()
            if not interrupted:
                set_interrupt_note(None)
        if backend.stopped is not None:  # the function's own budget ran out
            replies.stopped = replies.stopped or backend.stopped
            backend.stopped = None
        elif replies.stopped is not None and not self.declared:
            replies.stopped = self._stop_note(session, replies.stopped)
        if not self.declared:  # no store row to point at: an undeclared call has no key
            keyless = (dataclasses.replace(r, key=None) for r in replies)
            return Replies(keyless, stopped=replies.stopped)
        return replies

    def _stop_note(self, session: JudgeSession, stopped: str) -> str:
        """An undeclared judge's stop: what finished is in the result alone, the rest lost.

        A budget's stop, or one the run cannot go past (a hung function's threads at
        their bound, a judge's ``FatalBackendError`` or ``SystemExit``) once a call has
        finished: with no store to keep them, the finished calls are returned, and the
        message says so rather than pointing at a store.
        """
        summary = session.last_run
        assert summary is not None  # set by the batch that stopped
        made, failed, not_run = summary.made, summary.failed, summary.not_run
        # The batch's counts: an adaptive run's earlier batches are in the result too.
        kept = (
            "no store keeps this judge's calls (it declares no name and version), so what "
            "answered is in this result alone, marked partial, and in any file saved from "
            f"it: in the batch that stopped, {made - failed} answered, {failed} failed, "
            f"{not_run} not run; a rerun makes every call again; declare them with "
            "@fairjudge.judge_function(name=..., version=...) to keep its calls in a store "
            "(README: 'Your own judge')"
        )
        if summary.stopped in (None, "interrupted"):  # no budget's: the run's message, cut
            from fairjudge.runner import KEPT_SENTENCE

            head = KEPT_SENTENCE.split(stopped)[0].rstrip(" .")
            return f"{head}. {kept[0].upper()}{kept[1:]}."
        return worded(
            f"the max_calls={session.options.max_calls} budget is spent: "
            f"{session.calls_made} calls made, {not_run} not run; {kept}.",
            "max_calls",
        )

    def _interrupted(self, session: JudgeSession, jobs: Sequence[Any], answered: int) -> None:
        """Say what the store keeps of an interrupted run, or what it loses (undeclared).

        Every finished call of every batch is kept; the count is the batch in progress'
        alone, which is all this judge sees (an adaptive run's earlier batches are not
        in ``jobs``), so the line never reads as if the earlier ones were lost. An
        undeclared judge has no store: its ``answered`` calls are lost, and said so.
        """
        if not self.declared:
            lost = f"the {answered} calls of the batch in progress that had answered are lost"
            set_interrupt_note(f"interrupted; {NOT_CACHED}; {lost}")
            return
        keys = {job.spec.key for job in jobs}
        try:
            kept = len(session.store.get_many(keys))
        except Exception:  # the store is past reading: say no number rather than a wrong one
            return
        set_interrupt_note(  # every batch's, not only this one's (an adaptive run has many)
            f"interrupted; every finished call is kept in the store {session.store.path} "
            f"under the judge {self.own.name!r} version {self.own.version!r} ({kept} of "
            f"the {len(keys)} calls of the batch in progress); run the same command again "
            "to make only the rest"
        )

    def close(self) -> None:
        """Close the judge's session (its store, threads and event loop), if one opened."""
        session, self._session, self._backend = self._session, None, None
        if session is not None:
            session.close()


_TEXT = object()
"""No value kept for a call: read its stored text."""


def _checked_timeout(timeout: float | None) -> float | None:
    """``timeout``, checked as an HTTP judge's is (:class:`~fairjudge.judges.BackendOptions`)."""
    if timeout is None:
        return None
    number = isinstance(timeout, int | float) and not isinstance(timeout, bool)
    if not number or not 0 < timeout < 86400:  # NaN fails too
        raise ConfigError(
            f"timeout must be a number of seconds > 0; got {timeout!r}", params="timeout"
        )
    return timeout


HUNG_ATTEMPTS = 2
"""Attempts a sync judge's call that times out gets, at the default ``max_attempts`` (8).

An HTTP judge's timeout may be a lost packet or a busy server, worth 8 attempts with
back-off. A sync Python function past its timeout cannot be stopped: its thread runs on,
and one that hangs on an input usually hangs again on the same input, so each retry
left one more thread and cost another timeout plus its back-off: with ``--timeout 1``
one hanging question cost ~52 s from the command line and ~84 s from the library, 16
threads (QA41b #4). One retry is kept, for a function whose own client lost a packet
or waited on a lock a moment. Other failures keep ``max_attempts``; a ``max_attempts``
other than the default (``--max-attempts``) applies to timeouts too, so a user who
wants more (or no) retries of a hanging function says so. An ``async def`` judge's
call is cancelled, leaving nothing running, and its timeout is retried as an HTTP one.
"""


@functools.cache
def _timeout_policy() -> Callable[..., RetryPolicy]:
    """The retry policy of a Python judge, built on first use (``fairjudge.runner`` is lazy)."""
    from fairjudge.runner import RetryPolicy

    @dataclasses.dataclass(frozen=True, slots=True)
    class TimeoutRetry(RetryPolicy):
        """``RetryPolicy``, with a timeout tried ``timeout_attempts`` times, its end said.

        The runner asks :meth:`should_retry` once per failed attempt, and records the
        error it says no to: so a timeout that ends its call gets, here, the attempts
        made and ``advice`` (which knobs set them) appended to its message.
        """

        timeout_attempts: int = HUNG_ATTEMPTS
        advice: str = ""

        def should_retry(self, error: BackendError, attempt: int) -> bool:
            if not isinstance(error, BackendTimeout):
                return RetryPolicy.should_retry(self, error, attempt)
            if attempt < self.timeout_attempts:
                return True
            tried = "once" if attempt == 1 else f"{attempt} times"
            error.args = (f"{str(error).rstrip('.')}; tried {tried}{self.advice}",)
            return False

    return TimeoutRetry


def _timeout_retry(retry: RetryPolicy, *, sync: bool) -> RetryPolicy:
    """``retry`` for a Python judge: a sync one's timeouts tried :data:`HUNG_ATTEMPTS` times.

    Only at the default ``max_attempts``; any other applies to timeouts as given. The
    advice is worded here, in the caller's words (``--max-attempts`` on the command line).
    """
    from fairjudge.runner import RetryPolicy

    fields = {f.name: getattr(retry, f.name) for f in dataclasses.fields(RetryPolicy)}
    most = retry.max_attempts
    capped = sync and most == RetryPolicy().max_attempts and most > HUNG_ATTEMPTS
    limit = HUNG_ATTEMPTS if capped else most
    why = (
        f" (a sync function's call that times out is tried at most {limit} times, not "
        f"max_attempts={most}: its thread cannot be stopped, and a function that hangs on "
        "an input usually hangs again)"
        if capped
        else f" (max_attempts={most})"
    )
    advice = worded(
        f"{why}; give it a longer timeout, or another max_attempts", "max_attempts", "timeout"
    )
    return _timeout_policy()(**fields, timeout_attempts=limit, advice=advice)


_NO_TOKENS = ("tpm", "max_cost", "prices", "route_prices")


def _check_options(name: str, options: RunOptions) -> None:
    """Refuse the run options a Python judge cannot honour: it reports no tokens or cost."""
    from fairjudge.runner import RunOptions

    default = RunOptions()
    given = [p for p in _NO_TOKENS if getattr(options, p) != getattr(default, p)]
    if given:
        verb = "does" if len(given) == 1 else "do"
        instead = worded("use max_calls and rpm", "max_calls", "rpm")
        raise ConfigError(
            f"{', '.join(given)} {verb} not apply to the judge {name!r} (a Python judge "
            f"reports no tokens and no cost; {instead}); drop it",
            params=tuple(given),
        )


def _unkept(message: str) -> str:
    """A stop message without the store promise an undeclared judge's run cannot keep."""
    from fairjudge.runner import KEPT_SENTENCE

    message = message.replace("to continue from there", "(every call is made again)")
    return re.sub(
        KEPT_SENTENCE.pattern + re.escape(":memory:"),
        NOT_CACHED[0].upper() + NOT_CACHED[1:],
        message,
    )


class CallableJudge(PythonFunction):
    """Adapts ``judge(question, answer_a, answer_b)`` to the batch interface.

    A conversation question is passed as its role-labelled transcript, keeping the
    seed signature ``judge(question: str, answer_a: str, answer_b: str)``. Each value
    is read with :func:`reply_from_value`; how calls run, are cached and fail is
    :class:`PythonFunction`'s. At concurrency 1 (the default for a sync function
    without options) calls are made one at a time, in request order, so a stateful
    or scripted judge sees exactly the sequence the protocol specifies.
    """

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> Replies[Reply]:
        """Call the judge once per request; one reply per request, in order."""
        target = self.target
        return self._each(
            requests,
            lambda r: target(question_text(r.question), r.answer_a, r.answer_b),
            reply_from_value,
            progress,
        )


def load_python_judge(
    spec: str,
    *,
    options: RunOptions | None = None,
    store: Store | str | PathLike[str] | None = None,
    timeout: float | None = None,
) -> CallableJudge:
    """Import ``python:package.module:function`` (or ``module:function``) as a judge.

    The attribute may be a function, an ``async def`` function, or an object with a
    ``judge``/``ajudge`` method; ``options``, ``store`` and ``timeout`` are
    :class:`PythonFunction`'s.

    Raises:
        ConfigError: The spec is malformed, the module cannot be imported, or the
            attribute is missing, not callable or not a pairwise judge.
    """
    fn, name = python_function(spec)
    return CallableJudge(fn, name=name, options=options, store=store, timeout=timeout)


def python_function(spec: str) -> tuple[Any, str]:
    """What ``python:package.module:function`` names, imported, and its spec's name.

    Raises:
        ConfigError: As :func:`load_python_judge`, but whatever kind of judge it is.
    """
    target = spec.removeprefix("python:")
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(
            f"python judge spec must look like 'python:package.module:function'; got {spec!r}"
        )
    # Like `python -m`, look in the working directory too, so a judge in ./my_judges.py
    # works from the console script.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # it failed (or called sys.exit): say so, no traceback
        raise ConfigError(
            f"cannot import module {module_name!r} for judge {spec!r}: {type(exc).__name__}: {exc}"
            + _where_looked(module_name, exc)
        ) from exc
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise ConfigError(f"module {module_name!r} has no attribute {attr!r}") from exc
    if not callable(obj) and not any(callable(getattr(obj, m, None)) for m in ("judge", "ajudge")):
        raise ConfigError(
            f"{spec!r} is not callable and has no judge/ajudge method; it is {type(obj).__name__}"
        )
    return obj, f"python:{module_name}:{attr}"


def _where_looked(module_name: str, exc: BaseException) -> str:
    """For a module not found (not one it imports): where it was looked for, and the fix."""
    missing = getattr(exc, "name", None)
    if not isinstance(exc, ModuleNotFoundError) or missing is None:
        return ""
    if module_name != missing and not module_name.startswith(missing + "."):
        return ""  # the module was found; something it imports is missing
    return (
        f"; looked in the working directory {os.getcwd()}, $PYTHONPATH and the installed "
        f"packages: run from the folder that holds {missing.split('.')[0]}, or add that folder to "
        "$PYTHONPATH"
    )
