"""The two kinds of jury: several judges answering the same calls, on one session.

A :class:`Jury` is pairwise: :meth:`Jury.member_readings` gives every member's reply
(for :func:`fairjudge.evaluation.evaluate_jury`, which debiases each member), and
:meth:`Jury.judge_batch` the panel's aggregated reply, which makes a jury a
:class:`~fairjudge.judges.BatchJudge`. A :class:`PointwiseJury` scores every answer
against one rubric, the same for every member, because a per-dimension aggregate
means something only when all read the dimensions and scale alike; aggregating the
scores is :func:`fairjudge.evaluation.score_with_jury`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from typing import Any, cast

from fairjudge._errors import ConfigError
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
from fairjudge.judges._pointwise import (
    AnswerScores,
    BatchPointwiseJudge,
    CallablePointwiseJudge,
    PointwiseJudge,
    ScoreMode,
    ScoreRequest,
    as_rubric,
    check_mode,
    read_scores,
    resolve_pointwise_judge,
)
from fairjudge.judges._registry import (
    JUDGE_FORMS,
    BackendOptions,
    judge_spec,
    make_backend,
    resolve_judge,
)
from fairjudge.judges._session import JudgeSession
from fairjudge.prompts import Rubric
from fairjudge.runner import Executor, RunOptions, Store

# MemberSpec: both kinds', from _panel_base
__all__ = ["Jury", "JuryMember", "MemberSpec", "PointwiseJury", "PointwiseMember"]


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


class PointwiseMember(PanelMember[BatchPointwiseJudge]):
    """One pointwise judge on a panel (see :class:`~fairjudge.judges._panel_base.PanelMember`)."""

    __slots__ = ()


class PointwiseJury(Panel[PointwiseMember, ScoreRequest, AnswerScores]):
    """Several pointwise judges scoring every answer against one rubric, on one session.

    Args:
        members: At least two members, with unique names, positive weights and the
            same rubric.
        session: The session the model members run on (they must all share it);
            default the model members' own. Closed with the jury when ``owns_session``.
        owns_session: Close ``session`` when the jury closes.

    Raises:
        ConfigError: Fewer than two members, a repeated name, a weight that is not a
            positive number, members with different rubrics, or model members on
            different sessions.

    Example:
        >>> specs = [MemberSpec("openai/gpt-4o-mini"), MemberSpec("python:m:scorer")]
        >>> with PointwiseJury.from_specs(specs, rubric="production") as jury:  # doctest: +SKIP
        ...     per_member = jury.member_readings(requests)  # one list per member
    """

    _model_type = PointwiseJudge
    _parser = read_scores
    _member_type = PointwiseMember

    def _check_panel(self) -> None:
        """Refuse members on different rubrics: a per-dimension aggregate needs one."""
        first = self.members[0].judge.rubric
        for m in self.members[1:]:
            if m.judge.rubric != first:
                raise ConfigError(
                    f"member {m.name!r} scores against rubric {m.judge.rubric.name!r}, the "
                    f"first member against {first.name!r}; a panel shares one rubric"
                )

    @classmethod
    def from_specs(
        cls,
        specs: Sequence[MemberSpec],
        *,
        rubric: str | Rubric = "production",
        mode: ScoreMode = "json",
        structured: bool = False,
        session: JudgeSession | None = None,
        store: Store | str | PathLike[str] | None = None,
        options: RunOptions | None = None,
        executor: Executor | str | None = None,
    ) -> PointwiseJury:
        """Resolve every member's spec against one rubric; model members share one session.

        Everything that can fail (an unknown spec, a mode the rubric cannot take, an
        option that does not apply to a member) fails here, before any call.

        Args:
            specs: The members (``MemberSpec.template`` does not apply: the panel's
                rubric is every member's prompt).
            rubric: A built-in rubric name, a ``*.toml`` path, or a rubric.
            mode: ``"json"`` or ``"label"``, for every model member.
            structured: Ask ``openai/`` members for structured output (JSON mode).
            session: Run on this session; else one is opened (from ``store`` and
                ``options``) when a model member needs it, and closed with the jury.
            store: The store or its path, for a session of the jury's own.
            options: Run options (concurrency, budget, ...), for the jury's own session.
            executor: Where the jury's own session runs its batches (an
                :class:`~fairjudge.runner.Executor`, ``"asyncio"`` or ``"ray"``).

        Raises:
            ConfigError: A bad spec or option (named), or as the constructor.
        """
        the_rubric = as_rubric(rubric)
        for spec in specs:
            _check_spec(spec, the_rubric, mode, structured)

        def member(
            spec: MemberSpec, name: str, on: JudgeSession | None, run: PythonRun
        ) -> PointwiseMember:
            judge = _resolve(spec, the_rubric, mode, structured, on, run)
            return PointwiseMember(name, judge, spec.weight)

        return cls._assemble(
            specs, member, session=session, store=store, options=options, executor=executor
        )

    @property
    def rubric(self) -> Rubric:
        """The rubric every member scores against."""
        return self.members[0].judge.rubric

    def __repr__(self) -> str:
        return f"PointwiseJury({', '.join(self.names)}; rubric={self.rubric.name!r})"

    def _collect(
        self, judge: PointwiseJudge, replies: list[Reply[Any]], stopped: str | None
    ) -> list[AnswerScores]:
        return judge._group(replies, stopped)  # one call per answer, or per dimension

    def _answer(
        self, judge: Any, requests: Sequence[ScoreRequest], progress: ProgressCallback | None
    ) -> list[AnswerScores]:
        return judge.score_batch(requests, progress)  # type: ignore[no-any-return]

    def _replies_of(self, answers: Sequence[AnswerScores]) -> list[Reply[Any]]:
        return [c.reply for scored in answers for c in scored.calls]


def _check_spec(spec: MemberSpec, rubric: Rubric, mode: ScoreMode, structured: bool) -> None:
    """Refuse what a scoring member cannot take, before a session or a model opens."""
    judge = judge_spec(spec.judge)
    if spec.template is not None:
        raise ConfigError(
            f"member {judge!r}: a template does not apply to a scoring panel; every member "
            "scores against the panel's rubric"
        )
    if judge.startswith("replay:"):
        raise ConfigError(f"member {judge!r}: replayed judges give verdicts, not rubric scores")
    if judge.startswith("python:"):
        return
    kind, sep, name = judge.partition("/")
    if not sep or not name.strip() or kind not in ("openai", "anthropic", "local"):
        raise ConfigError(
            f"unknown judge {judge!r}; use one of: {'; '.join(JUDGE_FORMS)}", params="base_url"
        )
    check_mode(mode, rubric, kind, structured)


def _resolve(
    spec: MemberSpec,
    rubric: Rubric,
    mode: ScoreMode,
    structured: bool,
    session: JudgeSession | None,
    run: PythonRun,
) -> BatchPointwiseJudge:
    where = BackendOptions(spec.base_url, None, None, spec.temperature, spec.timeout)
    judge = spec.judge.strip()
    if spec.is_python:  # on the engine, with the panel's run options and (declared) store
        return run.build(
            lambda options, store: cast(
                CallablePointwiseJudge,
                resolve_pointwise_judge(
                    judge, rubric=rubric, backend_options=where, options=options, store=store
                ),
            ),
            mixed=session is not None,
        )
    assert session is not None  # opened for the model members
    kind, _, name = judge.partition("/")
    backend = make_backend(kind, name.strip(), where, quiet=session.options.quiet)
    params = {} if spec.temperature is None else {"temperature": spec.temperature}
    return PointwiseJudge(
        backend, rubric=rubric, mode=mode, session=session, params=params, structured=structured
    )
