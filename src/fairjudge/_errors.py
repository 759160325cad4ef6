"""The exception tree, and parameter names in the words of whoever reads them.

Everything fairjudge raises on purpose derives from :class:`FairJudgeError`; input
errors also derive from :class:`ValueError`. An error caused by a parameter names it by
its Python name and carries it (``params``), so the command line can print ``--rounds``
where a notebook reads ``rounds=``; no message ever contains an API key. Text that is
not an error (a figure's "not estimated" reason, a page's warning) is worded where it
is made: :func:`worded` returns it as written, unless the running command declared its
own words with :func:`wording` (the command line's flags, from ``cli/_flags.py``).
The tree is drawn in ``docs/internals.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = [
    "AuthenticationError",
    "BackendError",
    "BackendTimeout",
    "BatchPending",
    "BudgetExceeded",
    "ConfigError",
    "CutAtCap",
    "EndpointUnreachable",
    "FairJudgeError",
    "FatalBackendError",
    "InputError",
    "MissingExtraError",
    "RateLimitError",
    "RequestRejected",
    "ServerError",
    "Wording",
    "worded",
    "wording",
]


class FairJudgeError(Exception):
    """Base class of every error fairjudge raises on purpose.

    Attributes:
        params: The parameters the message names, by their Python names (``"n_resamples"``,
            ``"allow_empty"``); empty when it names none.
    """

    params: tuple[str, ...] = ()


class ConfigError(FairJudgeError, ValueError):
    """An option, judge spec or configuration value is invalid.

    Args:
        message: What is wrong, naming each parameter by its Python name.
        params: The parameters the message names (one name or several).
    """

    def __init__(self, message: str, *, params: str | tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.params = (params,) if isinstance(params, str) else tuple(params)


class MissingExtraError(ConfigError, ImportError):
    """An optional dependency is not installed.

    The message always contains the install command that fixes it.
    """

    def __init__(self, feature: str, extra: str, module: str) -> None:
        self.extra = extra
        self.module = module
        super().__init__(
            f"{feature} needs the Python package {module!r}, which is not installed. "
            f"Install it with: pip install 'fairjudge[{extra}]'"
        )


class InputError(FairJudgeError, ValueError):
    """An input file or record is invalid.

    Attributes:
        path: The file, when the input came from one.
        line: The 1-based line (JSONL) or row (CSV, Parquet) number, when known.
        params: The parameters the message names (``allow_empty`` in a remedy).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        params: str | tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.line = line
        self.params = (params,) if isinstance(params, str) else tuple(params)
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{message}")


class BudgetExceeded(FairJudgeError):
    """The call or cost budget ran out before a single judge call; finished work is kept.

    A batch or an evaluation never raises this: it returns its result with
    ``stopped`` set (the calls not made are ``NotRun``). Only a call that returns a
    bare reading, a judge used as the seed's ``judge(q, a, b) -> label`` or a pointwise
    judge called on one answer, raises it, having no result to mark; a batch that
    calls such a judge ends there, with ``stopped`` set to this message.
    """


class BatchPending(FairJudgeError):
    """Calls were submitted to a provider's batch API and their batches have not ended.

    Raised by a batch executor that does not wait (``wait=False``) once it has
    submitted what it could and collected what had ended. The batch ids and each
    call's ``custom_id`` are in the store, so running the same work again polls the
    same batches and collects them; nothing is submitted twice.

    Attributes:
        batches: ``{batch id: provider status}`` of the batches not yet ended.
        calls: Calls waiting in them (and in other processes' hands).
    """

    def __init__(self, message: str, *, batches: dict[str, str], calls: int) -> None:
        super().__init__(message)
        self.batches = batches
        self.calls = calls


class BackendError(FairJudgeError):
    """A judge backend failed to produce a reply.

    Args:
        *args: The message, as for any exception.
        params: The parameters the message's advice names (one name or several).

    Attributes:
        retryable: Whether the same request may succeed if sent again.
        requests: Requests the backend sent on the wire before failing (more than 1
            when its transport resent the request itself, or made it again without
            the logprobs the server refused), so they are all counted.
    """

    retryable: bool = True
    requests: int = 1

    def __init__(self, *args: object, params: str | tuple[str, ...] = ()) -> None:
        super().__init__(*args)
        self.params = (params,) if isinstance(params, str) else tuple(params)


class RateLimitError(BackendError):
    """The provider answered 429.

    Attributes:
        retry_after: Seconds the provider asked us to wait, when it said.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BackendTimeout(BackendError):
    """The backend did not answer within the timeout."""


class ServerError(BackendError):
    """A 5xx reply, a malformed body, or a reply with no choices."""


class EndpointUnreachable(ServerError):
    """Nothing answered at the address: connection refused, unknown host, no route.

    Retryable (a server may be restarting), but a run whose calls all end this way,
    with nothing ever answered, is stopped at once instead of retrying every call:
    a refused connection on every attempt is not a transient fault.
    """


class RequestRejected(BackendError):
    """The backend refused this one request (400, 413, 422, a prompt too long).

    Retrying the same request cannot help, but other requests may succeed: the call
    becomes a :class:`fairjudge.CallError` record and the run goes on. A backend that
    rejects every one of the first calls it gets, having accepted none, stops the run
    (the rejection then concerns every call, like a bad parameter).
    """

    retryable = False


class CutAtCap(RequestRejected):
    """A reply its token cap cut off before any text: billed by the provider, no answer.

    A reasoning model (OpenAI ``finish_reason: "length"`` with no content) or a Claude
    with extended thinking (``stop_reason: "max_tokens"`` before a text block) can
    spend the whole cap before it says anything. The provider bills those tokens, so
    the runner charges the call :attr:`billed`'s usage (tokens, cost, ``max_cost``)
    while it counts the call as failed. Sent again with the same cap, it is cut again.

    Attributes:
        billed: The reply (a :class:`~fairjudge._call.Completion`, its usage read and
            checked as for any reply; no text), or ``None`` when unknown.
    """

    def __init__(
        self, message: str, billed: Any = None, *, params: str | tuple[str, ...] = ()
    ) -> None:
        super().__init__(message, params=params)
        self.billed = billed


class FatalBackendError(BackendError):
    """An error no request can get past (bad key, unknown model, bad parameter): stop the run."""

    retryable = False


class AuthenticationError(FatalBackendError):
    """The provider rejected the credentials (401/403)."""


Wording = Callable[[str, tuple[str, ...]], str]
"""Rewrites a text that names the given parameters into its reader's words."""

_WORDING: ContextVar[Wording | None] = ContextVar("fairjudge_wording", default=None)


def worded(text: str, *params: str) -> str:
    """``text``, which names ``params`` by their Python names, in the current words."""
    words = _WORDING.get()
    return text if words is None else words(text, params)


@contextmanager
def wording(words: Wording) -> Iterator[None]:
    """Word every :func:`worded` text with ``words`` until the block ends."""
    token = _WORDING.set(words)
    try:
        yield
    finally:
        _WORDING.reset(token)
