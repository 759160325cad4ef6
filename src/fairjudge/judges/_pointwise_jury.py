"""A pointwise jury: several judges that score every answer against one rubric.

Every member scores against the *same* rubric, because a per-dimension aggregate
means something only when all read the dimensions and scale alike; aggregating is
:func:`fairjudge.evaluation.score_with_jury`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from typing import Any, cast

from fairjudge._errors import ConfigError
from fairjudge._types import Reply
from fairjudge.judges._pairwise import ProgressCallback
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
from fairjudge.judges._registry import JUDGE_FORMS, BackendOptions, judge_spec, make_backend
from fairjudge.judges._session import JudgeSession
from fairjudge.prompts import Rubric
from fairjudge.runner import Executor, RunOptions, Store

__all__ = ["PointwiseJury", "PointwiseMember"]


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
