"""A jury: several pairwise judges that answer the same calls, on one session.

:meth:`Jury.member_readings` gives every member's reply (for
:func:`fairjudge.evaluation.evaluate_jury`, which debiases each member), and
:meth:`Jury.judge_batch` the panel's aggregated reply, which makes a jury a
:class:`~fairjudge.judges.BatchJudge`. One session carries the whole panel.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from typing import Any

from fairjudge._types import Replies, Reply, stopped_by
from fairjudge.judges._callable import load_python_judge
from fairjudge.judges._jury_votes import panel_reply
from fairjudge.judges._pairwise import (
    BatchJudge,
    LLMJudge,
    PairwiseRequest,
    ProgressCallback,
    read_verdict,
)
from fairjudge.judges._panel_base import MemberSpec, Panel, PanelMember, PythonRun
from fairjudge.judges._registry import BackendOptions, resolve_judge
from fairjudge.judges._session import JudgeSession
from fairjudge.runner import Executor, RunOptions, Store

__all__ = ["Jury", "JuryMember", "MemberSpec"]  # MemberSpec: both kinds', from _panel_base


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
        when any member gave them, and every member's verdict in its ``payload``.
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
    where = BackendOptions(spec.base_url, None, None, spec.temperature, spec.timeout)
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
