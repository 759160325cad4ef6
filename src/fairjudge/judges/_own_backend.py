"""A user's Python judge as a :class:`~fairjudge._call.Backend`, so the runner runs it.

The runner already gives a team's own judge concurrency, rpm, retries, budgets and
the store, so a function becomes a backend rather than getting a smaller engine of
its own. ``async def`` judges run on the session's loop; sync ones in a thread pool of
``concurrency`` threads.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from fairjudge._call import CallSpec, Completion
from fairjudge._errors import BudgetExceeded
from fairjudge._types import Probabilities, Reply, Verdict
from fairjudge.judges._own_judge import OwnJudge, TransientJudgeError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["FunctionBackend", "NotRun", "as_text", "from_text"]


class NotRun(Exception):  # named for the failure kind the reply records
    """The call was not made: the function's own budget had run out (``BudgetExceeded``)."""

    def __init__(self) -> None:
        super().__init__("the call was not made")


class FunctionBackend:
    """Calls one user judge for the runner (design: ``docs/internals.md``).

    Args:
        judge: The judge as read by :func:`~fairjudge.judges._own_judge.own_judge`.
        model: What the calls' specs carry as the model: the declared name, or the
            judge's label for an undeclared one.
        threads: Threads for a sync judge (the run's concurrency).
    """

    name = "python"
    base_url: str | None = None

    def __init__(self, judge: OwnJudge, *, model: str, threads: int) -> None:
        self.judge = judge
        self.model = model
        self.threads = threads
        self.opened = False
        self.stopped: str | None = None
        """The message of a ``BudgetExceeded`` the function raised: no call is made after it."""
        self.finished = 0
        """Calls that returned a value, over the backend's life."""
        self._calls: dict[str, Callable[[], object]] = {}
        self._values: dict[str, object] = {}
        self._pool: ThreadPoolExecutor | None = None

    @property
    def max_concurrency(self) -> int | None:
        """No cap of its own: the run's concurrency (its thread pool's size for a sync judge)."""
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
        """Call the judge with the arguments registered for ``spec``."""
        if self.stopped is not None:
            raise NotRun
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
        return Completion(
            as_text(value), latency_s=time.perf_counter() - started, input_tokens=0,
            output_tokens=0,
        )  # fmt: skip

    async def _call(self, call: Callable[[], object]) -> object:
        if self.judge.is_async:
            value = call()  # a coroutine, awaited below on this loop
        else:
            import asyncio

            self.opened = True
            value = await asyncio.get_running_loop().run_in_executor(self._threads(), call)
        if inspect.isawaitable(value):  # an async def, or a sync wrapper of an async client
            value = await value
        return value

    def _threads(self) -> ThreadPoolExecutor:
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="fairjudge-judge")
        return self._pool

    async def aclose(self) -> None:
        """Let the judge's threads go; a call still running finishes on its own."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


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
