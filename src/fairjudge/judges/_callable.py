"""Plain Python callables as judges, and ``python:package.module:function`` specs."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Never, TypeVar

from fairjudge._errors import BudgetExceeded, ConfigError, FatalBackendError
from fairjudge._items import question_text
from fairjudge._redact import scrub
from fairjudge._types import CallError, ParseFailure, Probabilities, Replies, Reply, Verdict
from fairjudge.judges._pairwise import PairwiseRequest, ProgressCallback
from fairjudge.prompts import parse_verdict

__all__ = ["CallableJudge", "PythonFunction", "load_python_judge", "not_run", "reply_from_value"]

JudgeCallable = Callable[[str, str, str], Any]
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
            return Reply(verdict=None, raw=repr(value), failure=ParseFailure(repr(value), str(exc)))
        return Reply(verdict=probs.argmax(), probabilities=probs, raw=repr(value))
    reason = f"judge returned {type(value).__name__} {value!r}; expected 'A', 'B' or 'tie'"
    return Reply(verdict=None, raw=repr(value), failure=ParseFailure(repr(value), reason))


class PythonFunction:
    """A Python function as a judge: its name, and its calls made one at a time, in order.

    What both kinds of Python judge share (:class:`CallableJudge` and the pointwise
    :class:`~fairjudge.judges.CallablePointwiseJudge`): an exception raised by the
    function becomes a :class:`CallError` record for that call and the run goes on,
    except :class:`FatalBackendError`, which stops it, and :class:`BudgetExceeded`
    (an LLM judge called one call at a time), which ends the batch early: the calls
    left are ``NotRun`` and the replies' ``stopped`` holds its message.
    """

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None) -> None:
        if not callable(fn):
            raise ConfigError(f"judge must be callable; got {fn!r}")
        self.fn = fn
        qualname = getattr(fn, "__qualname__", type(fn).__name__)
        self.name = name or f"python:{getattr(fn, '__module__', '?')}:{qualname}"

    def _each(
        self,
        requests: Sequence[Q],
        call: Callable[[Q], object],
        read: Callable[[object], Reply[R]],
        progress: ProgressCallback | None,
    ) -> Replies[Reply[R]]:
        """``read(call(request))`` for each request, in order, or the call's failure."""
        replies: Replies[Reply[R]] = Replies()
        for request in requests:
            try:
                value = call(request)
            except FatalBackendError:
                raise  # the judge says the whole run cannot go on
            except BudgetExceeded as exc:  # no call can be made: the rest are not run
                left = len(requests) - len(replies)
                replies.extend(not_run() for _ in range(left))
                if progress is not None:
                    progress(left)  # settled, as the session settles its unmade calls
                replies.stopped = str(exc)
                return replies
            except Exception as exc:  # a judge's bug is recorded per call, not fatal
                replies.append(Reply(failure=CallError(type(exc).__name__, scrub(str(exc)))))
            else:
                replies.append(read(value))
            if progress is not None:
                progress(1)
        return replies


class CallableJudge(PythonFunction):
    """Adapts ``judge(question, answer_a, answer_b)`` to the batch interface.

    Calls are made one at a time, in request order, so a stateful or scripted judge
    sees exactly the sequence the protocol specifies. A conversation question is
    passed as its role-labelled transcript, keeping the seed signature
    ``judge(question: str, answer_a: str, answer_b: str)``. Failures are records (see
    :class:`PythonFunction`); each value is read with :func:`reply_from_value`.
    """

    def __init__(self, fn: JudgeCallable, *, name: str | None = None) -> None:
        super().__init__(fn, name=name)

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> Replies[Reply]:
        """Call the function once per request, in order."""
        fn = self.fn
        return self._each(
            requests,
            lambda r: fn(question_text(r.question), r.answer_a, r.answer_b),
            reply_from_value,
            progress,
        )


def load_python_judge(spec: str) -> CallableJudge:
    """Import ``python:package.module:function`` (or ``module:function``) as a judge.

    Raises:
        ConfigError: The spec is malformed, the module cannot be imported, or the
            attribute is missing or not callable.
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
    except ImportError as exc:
        raise ConfigError(
            f"cannot import module {module_name!r} for judge {spec!r}: {exc}"
        ) from exc
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise ConfigError(f"module {module_name!r} has no attribute {attr!r}") from exc
    if not callable(obj):
        raise ConfigError(f"{spec!r} is not callable; it is {type(obj).__name__}")
    return CallableJudge(obj, name=f"python:{module_name}:{attr}")
