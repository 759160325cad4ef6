"""A pairwise judge backed by a language model: template, runner, store and parser together.

:class:`LLMJudge` renders each :class:`~fairjudge.judges.PairwiseRequest` with a
template into a :class:`~fairjudge.judges.CallSpec`, sends the batch through
:func:`fairjudge.runner.run_calls` (cache, concurrency, rate limits, retries,
budgets), and reads each reply with :func:`fairjudge.prompts.parse_verdict`, plus
:func:`fairjudge.prompts.probabilities_from_logprobs` when the backend gave
logprobs. The parsed verdict is stored next to the raw reply in the store's row.

All of a judge's calls run on one private event loop in a background thread
(:class:`fairjudge.runner.EventLoopThread`), so the backend's connections stay on
the loop that opened them, and the sync methods work even where an event loop is
already running (a notebook). Close the judge (or use it as a context manager) to
release the backend and the store.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping, Sequence
from os import PathLike
from types import TracebackType
from typing import TYPE_CHECKING, Any

from fairjudge._errors import BackendError, BudgetExceeded, ConfigError
from fairjudge._types import CallError, ParseFailure, Probabilities, Reply, Verdict
from fairjudge.judges._base import Backend, CallSpec, Completion
from fairjudge.judges._pairwise import PairwiseRequest, ProgressCallback
from fairjudge.prompts import PairwiseTemplate, get_template, parse_verdict
from fairjudge.prompts import probabilities_from_logprobs as _probabilities

if TYPE_CHECKING:
    # The runner imports this package's _base, so it is imported lazily at run time
    # to keep `import fairjudge.runner` and `import fairjudge.judges` order-independent.
    from fairjudge.runner import (
        CallOutcome,
        EventLoopThread,
        Prices,
        ProgressMode,
        RetryPolicy,
        RunProgress,
        RunSummary,
        Store,
    )

__all__ = ["LLMJudge"]


def _interpret(
    completion: Completion, echoed: tuple[str, str]
) -> tuple[Verdict | ParseFailure, Probabilities | None]:
    verdict = parse_verdict(completion.text, echoed=echoed)
    probs = None
    if completion.top_logprobs and not isinstance(verdict, ParseFailure):
        probs = _probabilities(completion.top_logprobs)
    return verdict, probs


def _as_json(verdict: Verdict | ParseFailure, probs: Probabilities | None) -> dict[str, Any]:
    if isinstance(verdict, ParseFailure):
        return {"verdict": None, "failure": "parse_failure", "reason": verdict.reason}
    return {
        "verdict": verdict.value,
        "probabilities": probs.to_dict() if probs is not None else None,
    }


class LLMJudge:
    """A :class:`~fairjudge.judges.BatchJudge` that asks a model, through the runner.

    Args:
        backend: The model to ask (:class:`~fairjudge.judges.Backend`).
        template: A built-in template name, a ``*.toml`` path, or a template.
        store: The store, or its path; default ``.fairjudge/store.sqlite``.
            ``":memory:"`` caches for this judge's life only.
        concurrency: Calls in flight at most.
        rpm: Requests per minute at most.
        tpm: Tokens per minute at most.
        max_calls: New (uncached) calls this judge may make over its life.
        max_cost: Dollars this judge may spend over its life (needs ``prices``).
        prices: Prices per million input and output tokens.
        retry: Retry policy for 429s, timeouts and server errors.
        params: Sampling parameters that override the backend's defaults
            (``temperature``, ``max_tokens``, ...); part of the cache key.
        quiet: Show no progress.
        progress: ``auto`` (a bar on a terminal, plain lines otherwise), ``rich``,
            ``plain``, ``quiet`` or a display object.

    Example:
        >>> with LLMJudge(OpenAIBackend("gpt-4o-mini")) as judge:  # doctest: +SKIP
        ...     replies = judge.judge_batch([PairwiseRequest("2+2?", "4", "5")])
    """

    def __init__(
        self,
        backend: Backend,
        *,
        template: str | PairwiseTemplate = "default",
        store: Store | str | PathLike[str] | None = None,
        concurrency: int = 16,
        rpm: float | None = None,
        tpm: float | None = None,
        max_calls: int | None = None,
        max_cost: float | None = None,
        prices: Prices | None = None,
        retry: RetryPolicy | None = None,
        params: Mapping[str, Any] | None = None,
        quiet: bool = False,
        progress: ProgressMode | RunProgress = "auto",
    ) -> None:
        from fairjudge.runner import DEFAULT_STORE_PATH, EventLoopThread, Store

        self.backend = backend
        self.template = (
            template if isinstance(template, PairwiseTemplate) else get_template(template)
        )
        if max_cost is not None and prices is None:
            raise ConfigError("max_cost needs prices per million input and output tokens")
        self.params: dict[str, Any] = {
            **backend.default_params(verdict_only=self.template.verdict_only),
            **(params or {}),
        }
        self.concurrency, self.rpm, self.tpm = concurrency, rpm, tpm
        self.max_calls, self.max_cost, self.prices, self.retry = max_calls, max_cost, prices, retry
        self.progress: ProgressMode | RunProgress = "quiet" if quiet else progress
        self.last_run: RunSummary | None = None
        """The summary of the most recent batch (also set when a budget stopped it)."""
        self._calls_made = 0
        self._spent = 0.0
        self._owns_store = not isinstance(store, Store)
        self.store: Store = (
            store if isinstance(store, Store) else Store(store or DEFAULT_STORE_PATH)
        )
        self._loop = EventLoopThread(name=f"fairjudge-{backend.name}")
        self._finalizer = weakref.finalize(
            self, _release, self._loop, backend, self.store if self._owns_store else None
        )

    @property
    def name(self) -> str:
        """``backend/model``, as in ``--judge``."""
        return f"{self.backend.name}/{self.backend.model}"

    def __repr__(self) -> str:
        return (
            f"LLMJudge({self.name!r}, template={self.template.name!r}, store={self.store.path!r})"
        )

    # -- the batch interface -----------------------------------------------------------

    def spec_for(self, request: PairwiseRequest) -> CallSpec:
        """The call this judge makes for one request (its ``key`` is the store key)."""
        backend, template = self.backend, self.template
        return CallSpec(
            backend=backend.name,
            model=backend.model,
            base_url=backend.base_url,
            template=template.name,
            template_version=template.version,
            messages=template.render(
                request.question, request.answer_a, request.answer_b, request.reference
            ),
            params=self.params,
            sample=request.sample,
            kind="pairwise",
        )

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> list[Reply]:
        """Judge every request; one :class:`~fairjudge.Reply` per request, in order.

        Blocks until the batch is done. Runs on the judge's own event-loop thread, so
        it may be called from inside a running event loop (the loop is blocked
        meanwhile; prefer :meth:`ajudge_batch` there).

        Args:
            requests: The planned calls.
            progress: Called (from the judge's thread) with the number of requests
                just settled, a few times a second.

        Raises:
            FatalBackendError: The backend rejected a call in a way retrying cannot
                fix; finished calls are kept in the store.
            BudgetExceeded: ``max_calls`` or ``max_cost`` ran out; finished calls are
                kept, and :attr:`last_run` says how far the batch got.
        """
        return self._loop.run(self._judge(requests, progress))

    async def ajudge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> list[Reply]:
        """Async :meth:`judge_batch`: awaits the batch on the judge's event-loop thread."""
        return await asyncio.wrap_future(self._loop.submit(self._judge(requests, progress)))

    def __call__(self, question: str, answer_a: str, answer_b: str) -> str:
        """The seed protocol: ``"A"``, ``"B"`` or ``"tie"`` for one call.

        Raises:
            ValueError: The reply held no readable verdict; the message quotes it.
            BackendError: The call failed after its retries.
        """
        request = PairwiseRequest(question, answer_a, answer_b)
        reply = self._loop.run(self._judge([request], None, quiet=True))[0]
        if reply.verdict is not None:
            return reply.verdict.value
        failure = reply.failure
        if isinstance(failure, CallError):
            raise BackendError(
                f"{self.name} call failed after retries: {failure.kind}: {failure.message}"
            )
        raise ValueError(f"{self.name} gave no readable verdict ({failure}); reply: {reply.raw!r}")

    async def _judge(
        self,
        requests: Sequence[PairwiseRequest],
        progress: ProgressCallback | None,
        *,
        quiet: bool = False,
    ) -> list[Reply]:
        from fairjudge.runner import run_calls

        specs = [self.spec_for(r) for r in requests]
        echoed = {id(s): (r.answer_a, r.answer_b) for s, r in zip(specs, requests, strict=True)}

        def parse(spec: CallSpec, completion: Completion) -> dict[str, Any]:
            return _as_json(*_interpret(completion, echoed[id(spec)]))

        reported = 0

        def on_progress(n: int) -> None:
            nonlocal reported
            reported += n
            if progress is not None:
                progress(n)

        result = await run_calls(
            self.backend,
            specs,
            store=self.store,
            concurrency=self.concurrency,
            rpm=self.rpm,
            tpm=self.tpm,
            max_calls=None if self.max_calls is None else max(0, self.max_calls - self._calls_made),
            max_cost=None if self.max_cost is None else max(0.0, self.max_cost - self._spent),
            prices=self.prices,
            retry=self.retry,
            progress="quiet" if quiet else self.progress,
            on_progress=on_progress if progress is not None else None,
            parse=parse,
        )
        summary = result.summary
        self.last_run = summary
        self._calls_made += summary.made
        self._spent += summary.cost_usd or 0.0
        if summary.stopped is not None:
            raise BudgetExceeded(self._budget_message(summary))
        replies: dict[str, Reply] = {}
        out = []
        for key, request in zip(result.keys, requests, strict=True):
            reply = replies.get(key)
            if reply is None:
                reply = replies[key] = _reply(result[key], (request.answer_a, request.answer_b))
            out.append(reply)
        if progress is not None and reported < len(requests):
            progress(len(requests) - reported)  # duplicates settle with their twin
        return out

    def _budget_message(self, summary: RunSummary) -> str:
        if summary.stopped == "max_calls":
            budget = f"--max-calls {self.max_calls}"
        else:
            budget = f"--max-cost {self.max_cost}"
        return (
            f"the {budget} budget is spent: {summary.made} calls made in this run, "
            f"{summary.cached} served from the store, {summary.not_run} not run. "
            f"Everything finished is kept in the store {self.store.path}; run again "
            "with a larger budget to continue (stored calls cost nothing)."
        )

    # -- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        """Release the backend, the event-loop thread and (if the judge opened it) the store.

        Also happens when the judge is garbage-collected or the interpreter exits.
        """
        self._finalizer()

    def __enter__(self) -> LLMJudge:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _release(loop: EventLoopThread, backend: Backend, store: Store | None) -> None:
    try:
        loop.run(backend.aclose())
    finally:
        loop.close()
        if store is not None:
            store.close()


def _reply(outcome: CallOutcome, echoed: tuple[str, str]) -> Reply:
    if outcome.completion is None:
        error = outcome.error or CallError("NotRun", "the call was not made")
        return Reply(verdict=None, failure=error, key=outcome.key)
    completion = outcome.completion
    verdict, probs = _interpret(completion, echoed)
    if isinstance(verdict, ParseFailure):
        return Reply(
            verdict=None,
            raw=completion.text,
            failure=verdict,
            cached=outcome.cached,
            key=outcome.key,
        )
    return Reply(
        verdict=verdict,
        probabilities=probs,
        raw=completion.text,
        cached=outcome.cached,
        key=outcome.key,
    )
