"""Pairwise judges as :func:`fairjudge.evaluate_pairs` sees them, and the model judge.

The whole batch goes to the judge: a Python callable answers one call at a time, an
LLM judge through its session. Both return one :class:`fairjudge.Reply` per request,
in order, and never raise for a single bad reply: a failure is a record.
:class:`LLMJudge` renders requests with its template and reads each reply in the
template's verdict format (:func:`read_verdict`), never looking at the answers judged;
its session owns the store, loop, backend, options and budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from fairjudge._call import Backend, CallSpec, Completion, Conversation
from fairjudge._errors import BackendError, BudgetExceeded
from fairjudge._types import CallError, ParseFailure, Replies, Reply
from fairjudge.judges._session import Job, JudgeSession, ProgressCallback, SessionJudge
from fairjudge.prompts import PairwiseTemplate, VerdictFormat, get_template, parse_verdict
from fairjudge.prompts import probabilities_from_logprobs as _probabilities

if TYPE_CHECKING:
    from fairjudge.runner import Executor, RunOptions, Store

__all__ = ["BatchJudge", "LLMJudge", "PairwiseRequest", "ProgressCallback", "read_verdict"]


@dataclass(frozen=True, slots=True)
class PairwiseRequest:
    """One planned pairwise call, already in the order the judge will see it.

    Attributes:
        question: The question (a string or a conversation).
        answer_a: The answer shown first (position A).
        answer_b: The answer shown second (position B).
        reference: A reference answer, for reference-guided templates.
        sample: Sample index among calls with the same content and order.
    """

    question: str | Conversation
    answer_a: str
    answer_b: str
    reference: str | None = None
    sample: int = 0


@runtime_checkable
class BatchJudge(Protocol):
    """A judge that answers a batch of planned calls."""

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> list[Reply]:
        """Return one reply per request, in order; failures are records, not exceptions.

        A spent budget is not raised either: return the replies as
        :class:`~fairjudge.judges.Replies` with ``stopped`` set (``NotRun`` failures
        for the calls not made). May raise :class:`fairjudge.FatalBackendError` to
        stop a whole run.
        """
        ...


def read_verdict(completion: Completion, verdict_format: VerdictFormat) -> Reply:
    """Read one pairwise reply: the verdict, and its probabilities when logprobs came.

    Args:
        completion: The backend's reply.
        verdict_format: The call's context: its template's verdict format.
    """
    verdict = parse_verdict(completion.text, verdict_format)
    if isinstance(verdict, ParseFailure):
        return Reply(verdict=None, failure=verdict)
    # Only a verdict-only reply's first token is the verdict, so only its logprobs are
    # the verdict's probabilities.
    logprobs = completion.top_logprobs if verdict_format == "label" else None
    probs = _probabilities(logprobs) if logprobs else None
    return Reply(verdict=verdict, probabilities=probs)


class LLMJudge(SessionJudge):
    """A :class:`~fairjudge.judges.BatchJudge` that asks a model, through a session.

    Args:
        backend: The model to ask (:class:`~fairjudge._call.Backend`).
        template: A built-in template name, a ``*.toml`` path, or a template.
        session: The session to run on (shared with other judges); when omitted,
            the judge opens its own from ``store`` and ``options`` and closes it
            with itself.
        store: The store or its path, for a session of the judge's own.
        options: Run options, for a session of the judge's own.
        executor: Where a session of the judge's own runs its batches (an
            :class:`~fairjudge.runner.Executor`, ``"asyncio"`` or ``"ray"``; see
            :class:`~fairjudge.judges.JudgeSession`).
        params: Sampling parameters that override the backend's defaults
            (``temperature``, ``max_tokens``, ...); part of the cache key.

    Example:
        >>> with LLMJudge(OpenAIBackend("gpt-4o-mini")) as judge:  # doctest: +SKIP
        ...     replies = judge.judge_batch([PairwiseRequest("2+2?", "4", "5")])
    """

    def __init__(
        self,
        backend: Backend,
        *,
        template: str | PairwiseTemplate = "default",
        session: JudgeSession | None = None,
        store: Store | str | PathLike[str] | None = None,
        options: RunOptions | None = None,
        params: Mapping[str, Any] | None = None,
        executor: Executor | str | None = None,
    ) -> None:
        self.template = (
            template if isinstance(template, PairwiseTemplate) else get_template(template)
        )
        self._join(
            backend,
            session=session,
            store=store,
            options=options,
            label_only=self.template.verdict_only,
            params=params,
            executor=executor,
        )

    @property
    def temperature(self) -> float | None:
        """The sampling temperature of this judge's calls, when it sets one.

        A model that samples at 1 only (an OpenAI reasoning model, extended thinking)
        is sent none, and reports its fixed 1 here (every reply is a sample).
        """
        value = self.params.get("temperature", getattr(self.backend, "fixed_temperature", None))
        return float(value) if value is not None else None

    def __repr__(self) -> str:
        return (
            f"LLMJudge({self.name!r}, template={self.template.name!r}, store={self.store.path!r})"
        )

    def spec_for(self, request: PairwiseRequest) -> CallSpec:
        """The call this judge makes for one request (its ``key`` is the store key)."""
        t = self.template
        messages = t.render(request.question, request.answer_a, request.answer_b, request.reference)
        return self._spec(t.name, t.version, messages, request.sample, "pairwise")

    def jobs(self, requests: Sequence[PairwiseRequest]) -> list[Job[VerdictFormat]]:
        """The session jobs for a batch: each spec with its template's verdict format."""
        return [Job(self.spec_for(r), self.template.verdict_format) for r in requests]

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> Replies[Reply]:
        """Judge every request; one :class:`~fairjudge.Reply` per request, in order.

        Returns:
            The replies. When ``max_calls`` or ``max_cost`` ran out, their ``stopped``
            says so, the calls not made are ``NotRun`` failures, and :attr:`last_run`
            says how far the batch got; finished calls are kept in the store.

        Raises:
            FatalBackendError: The backend rejected a call in a way retrying cannot
                fix; finished calls are kept in the store.
        """
        return self.session.run(self.jobs(requests), read_verdict, progress=progress)

    async def ajudge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> Replies[Reply]:
        """Async :meth:`judge_batch`: awaits the batch on the session's thread."""
        return await self.session.arun(self.jobs(requests), read_verdict, progress)

    def __call__(self, question: str, answer_a: str, answer_b: str) -> str:
        """The seed protocol: ``"A"``, ``"B"`` or ``"tie"`` for one call.

        Raises:
            ValueError: The reply held no readable verdict; the message quotes it.
            BackendError: The call failed after its retries.
            BudgetExceeded: ``max_calls`` or ``max_cost`` ran out before the call: a
                label has no ``stopped`` to carry that, so it is raised (and a batch
                that calls this judge stops there, with ``stopped`` set).
        """
        jobs = self.jobs([PairwiseRequest(question, answer_a, answer_b)])
        replies = self.session.run(jobs, read_verdict, quiet=True)
        reply = replies[0]
        if replies.stopped is not None and reply.failure is not None:
            raise BudgetExceeded(replies.stopped)
        if reply.verdict is not None:
            return reply.verdict.value
        failure = reply.failure
        if isinstance(failure, CallError):
            raise BackendError(
                f"{self.name} call failed after retries: {failure.kind}: {failure.message}"
            )
        raise ValueError(f"{self.name} gave no readable verdict ({failure}); reply: {reply.raw!r}")
