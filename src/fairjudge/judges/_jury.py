"""A jury: several pairwise judges that answer the same calls, on one session, and its vote.

:meth:`Jury.member_readings` gives every member's reply (for
:func:`fairjudge.evaluation.evaluate_jury`, which debiases each member), and
:meth:`Jury.judge_batch` the panel's reply to each call (:func:`panel_reply`), which
makes a jury a :class:`~fairjudge.judges.BatchJudge`: the members' verdicts vote by
weight (a strict majority wins, else a tie) and their probabilities are averaged when
every member that answered measured them. A failed member does not vote; a panel
without a majority of the weight fails the call, never a tie. One session carries the
whole panel.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from typing import Any, TypeVar

from fairjudge._types import (
    CallError,
    ParseFailure,
    Probabilities,
    Replies,
    Reply,
    Verdict,
    never_made,
    stopped_by,
)
from fairjudge.judges._callable import load_python_judge
from fairjudge.judges._pairwise import (
    BatchJudge,
    LLMJudge,
    PairwiseRequest,
    ProgressCallback,
    read_verdict,
)
from fairjudge.judges._panel_base import MemberSpec, Panel, PanelMember, PythonRun
from fairjudge.judges._registry import resolve_judge
from fairjudge.judges._session import JudgeSession
from fairjudge.runner import Executor, RunOptions, Store

__all__ = [  # MemberSpec: both kinds', from _panel_base
    "PANEL_FAILED",
    "Jury",
    "JuryMember",
    "MemberSpec",
    "panel_reply",
    "weighted_majority",
]

L = TypeVar("L")

PANEL_FAILED = "JuryMembersFailed"
"""The :class:`~fairjudge.CallError` kind of a panel call whose members failed in
different ways (call errors of one kind keep that kind)."""


class JuryMember(PanelMember[BatchJudge]):
    """One pairwise judge on a panel (see :class:`~fairjudge.judges._panel_base.PanelMember`)."""

    __slots__ = ()

    @property
    def template(self) -> str | None:
        """The member's template as ``name@version``, for model members."""
        if isinstance(self.judge, LLMJudge):
            return f"{self.judge.template.name}@{self.judge.template.version}"
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record of who the member is."""
        return {**PanelMember.to_dict(self), "template": self.template}


class Jury(Panel[JuryMember, PairwiseRequest, Reply]):
    """Several pairwise judges answering every call, on one session.

    See :class:`~fairjudge.judges._panel_base.Panel` for the arguments, the checks
    and :attr:`last_members` / :attr:`last_usage`.

    Example:
        >>> specs = [MemberSpec("openai/gpt-4o-mini"), MemberSpec("python:m:judge")]
        >>> with Jury.from_specs(specs) as jury:  # doctest: +SKIP
        ...     replies = jury.member_readings(requests)  # one list per member
        ...     result = evaluate_pairs(jury, items)  # the panel as one judge
    """

    _model_type = LLMJudge
    _parser = read_verdict
    _member_type = JuryMember

    @classmethod
    def from_specs(
        cls,
        specs: Sequence[MemberSpec],
        *,
        session: JudgeSession | None = None,
        store: Store | str | PathLike[str] | None = None,
        options: RunOptions | None = None,
        executor: Executor | str | None = None,
    ) -> Jury:
        """Resolve every member's spec; model members share one session.

        Everything that can fail (an unknown spec, a template, an option that does
        not apply to a member) fails here, before any call.

        Args:
            specs: The members.
            session: Run on this session; else one is opened (from ``store`` and
                ``options``) when a model member needs it, and closed with the jury.
            store: The store or its path, for a session of the jury's own.
            options: Run options (concurrency, budget, ...), for the jury's own session.
            executor: Where the jury's own session runs its batches (an
                :class:`~fairjudge.runner.Executor`, ``"asyncio"`` or ``"ray"``).
        """
        return cls._assemble(
            specs, _member, session=session, store=store, options=options, executor=executor
        )

    @property
    def temperature(self) -> float | None:
        """The lowest sampling temperature among the model members that set one.

        :func:`fairjudge.evaluate_pairs` reads it to refuse ``rounds`` > 2 when a
        member would repeat identical calls.
        """
        temps = [
            t for m in self.members if (t := getattr(m.judge, "temperature", None)) is not None
        ]
        return min(temps) if temps else None

    def __repr__(self) -> str:
        return f"Jury({', '.join(self.names)})"

    def judge_batch(
        self, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None = None
    ) -> Replies[Reply]:
        """The panel's reply to every request, aggregated per call; makes a jury a judge.

        Each member answers every request (as :meth:`member_readings`); the panel's
        reply to a request is the weighted majority of the members' verdicts (no
        strict majority is a tie), with the weighted mean of their probabilities
        when every member that answered gave them (see :func:`panel_reply`), and
        every member's verdict in its ``payload``.
        A member's failed call does not vote; when the members that failed hold
        half of the weight or more, the panel's call is a failure that names them.
        This is per-*call* aggregation; :func:`fairjudge.evaluation.evaluate_jury`
        aggregates the members' debiased per-*item* outcomes instead.

        Args:
            requests: The planned calls.
            progress: Called with the number of *panel* calls finished.

        Returns:
            One panel reply per request. When the budget ran out, ``stopped`` says so
            (a call some members never made is ``NotRun`` unless the members that
            answered hold a majority of the weight).

        Raises:
            FatalBackendError: A model member's backend failed for good.
        """
        scaled = _PerPanelCall(progress, len(self.members)) if progress is not None else None
        per_member = self.member_readings(requests, scaled)
        names, weights = self.names, self.weights
        return Replies(
            (panel_reply(row, names, weights) for row in zip(*per_member, strict=True)),
            stopped=stopped_by(*per_member),
        )

    def _collect(self, judge: Any, replies: list[Reply], stopped: str | None) -> list[Reply]:
        return Replies(replies, stopped=stopped)  # one call per request

    def _answer(
        self, judge: Any, requests: Sequence[PairwiseRequest], progress: ProgressCallback | None
    ) -> list[Reply]:
        return judge.judge_batch(requests, progress)  # type: ignore[no-any-return]

    def _replies_of(self, answers: Sequence[Reply]) -> list[Reply]:
        return list(answers)


def _member(
    spec: MemberSpec, name: str, session: JudgeSession | None, run: PythonRun
) -> JuryMember:
    """One member from its spec; a model member joins ``session``.

    A ``python:`` member runs on the engine with the panel's run options and, when it
    declares a name and version, its store (:class:`PythonRun`).
    """
    where = spec.backend_options()
    if spec.is_python and spec.judge.strip().startswith("python:"):
        judge: BatchJudge = run.build(
            lambda options, store: load_python_judge(
                spec.judge.strip(), options=options, store=store
            ),
            mixed=session is not None,
        )
        return JuryMember(name, judge, spec.weight)
    judge = resolve_judge(
        spec.judge,
        backend_options=where,
        template=spec.template,
        session=None if spec.is_python else session,
    )
    return JuryMember(name, judge, spec.weight)


class _PerPanelCall:
    """Turns the members' progress (members × calls) into the panel's (calls)."""

    def __init__(self, progress: ProgressCallback, n_members: int) -> None:
        self.progress, self.n_members = progress, n_members
        self.settled = self.reported = 0

    def __call__(self, n: int) -> None:
        self.settled += n
        whole = self.settled // self.n_members
        if whole > self.reported:
            self.progress(whole - self.reported)
            self.reported = whole


def panel_reply(replies: Sequence[Reply], names: Sequence[str], weights: Sequence[float]) -> Reply:
    """The panel's reply to one call from each member's reply to it.

    Args:
        replies: Each member's reply to the call, in member order.
        names: The members' names, for the payload and failure messages.
        weights: The members' weights (> 0).

    Returns:
        A reply with the panel's verdict, or a failure when the members that
        answered hold no more than half of the weight. Its probabilities are the
        weighted mean of the members' only when every member that answered measured
        them: a member's label is no probability, and averaged in as 1 or 0 it
        would pass the panel's vote off as a measured probability (a panel of one
        logprob member and three label-only ones read as "P(model 1 better)").
        Otherwise the reply has none, and the soft rule counts it as its label;
        the vote itself is in ``payload``.

    Example:
        >>> a, b = Reply(Verdict.A), Reply(Verdict.B)
        >>> panel_reply([a, a, b], ["x", "y", "z"], [1, 1, 1]).verdict
        <Verdict.A: 'A'>
    """
    answered = [k for k, r in enumerate(replies) if r.verdict is not None]
    total = float(sum(weights))
    held_total = float(sum(weights[k] for k in answered))
    if held_total <= total / 2:
        return _failure(replies, names, weights, answered)
    votes = [replies[k].verdict for k in answered]
    verdict = weighted_majority(votes, [weights[k] for k in answered], held_total, list(Verdict),
                                Verdict.TIE)  # fmt: skip
    members = {
        n: (r.verdict.value if r.verdict is not None else None)
        for n, r in zip(names, replies, strict=True)
    }
    return Reply(
        verdict=verdict,
        probabilities=_mean_probabilities(
            [replies[k] for k in answered], [weights[k] for k in answered]
        ),
        cached=all(replies[k].cached for k in answered),
        payload={"members": members},
    )


def weighted_majority(
    votes: Sequence[L], weights: Sequence[float], total: float, labels: Sequence[L], tie: L
) -> L:
    """The label whose voters hold more than half of ``total``; else ``tie``.

    The one vote of every panel: a jury's verdict on a call here, and its debiased
    outcome on an item (:func:`fairjudge.evaluation._panel.aggregate`).
    """
    held = dict.fromkeys(labels, 0.0)
    for vote, weight in zip(votes, weights, strict=True):
        held[vote] += weight
    best = max(held, key=held.__getitem__)
    return best if held[best] > total / 2 else tie


def _mean_probabilities(replies: Sequence[Reply], weights: Sequence[float]) -> Probabilities | None:
    """Weighted mean of normalised probabilities; ``None`` unless every member gave them."""
    if any(r.probabilities is None for r in replies):
        return None
    a = b = tie = 0.0
    for reply, w in zip(replies, weights, strict=True):
        assert reply.probabilities is not None  # checked above
        p = reply.probabilities.normalized()
        a, b, tie = a + w * p.a, b + w * p.b, tie + w * p.tie
    scale = a + b + tie  # the weights' sum; dividing by it also keeps the sum <= 1
    return Probabilities(a / scale, b / scale, tie / scale)


def _why(reply: Reply) -> str:
    failure = reply.failure
    if isinstance(failure, ParseFailure):
        return f"parse failure: {failure.reason}"
    if isinstance(failure, CallError):
        return f"{failure.kind}: {failure.message}"
    return "no verdict in its reply"


def _failure(
    replies: Sequence[Reply], names: Sequence[str], weights: Sequence[float], answered: list[int]
) -> Reply:
    """The panel's failed call: names every member that failed, and why."""
    failed = [k for k in range(len(replies)) if k not in answered]
    lost = sum(weights[k] for k in failed)
    detail = "; ".join(f"{names[k]} ({_why(replies[k])})" for k in failed)
    message = (
        f"jury members failed on this call, holding {lost:g} of the panel's weight "
        f"{sum(weights):g} (more than half must answer): {detail}"
    )
    failures = [replies[k].failure for k in failed]
    calls = [f for f in failures if isinstance(f, CallError)]
    if any(never_made(f) for f in calls):
        # A budget stopped the run: the call is "not yet made", never an error.
        return Reply(verdict=None, failure=CallError("NotRun", message))
    if failures and all(isinstance(f, ParseFailure) for f in failures):
        raw = replies[failed[0]].raw or ""
        return Reply(verdict=None, raw=raw, failure=ParseFailure(raw, message))
    kinds = {f.kind for f in calls}
    kind = kinds.pop() if len(kinds) == 1 and len(calls) == len(failures) else PANEL_FAILED
    return Reply(verdict=None, failure=CallError(kind, message))
