"""A pointwise jury: several judges that score every answer against one rubric.

:class:`PointwiseJury` is the scoring counterpart of :class:`~fairjudge.judges.Jury`.
Its members (:class:`PointwiseMember`: a name, a pointwise judge and a weight) all
score every answer against the *same* rubric, because a panel's per-dimension
aggregate only means something when every member reads the dimensions and the scale
alike. :meth:`PointwiseJury.score_members` returns every member's
:class:`~fairjudge.judges.AnswerScores` for every answer; aggregating them (mean or
median per dimension) is :func:`fairjudge.evaluation.score_with_jury`'s job.

The model members' calls go to the session as *one* batch: one run, one store and
one budget carry the whole panel, each call routed to its member's backend, so a
rerun costs no call and ``max_calls`` covers the panel. Two members that would make
the same call (same model, prompt and parameters) make it once. Python-callable
members are called directly, after the model members. :attr:`PointwiseJury.last_usage`
holds what each member cost in the last batch.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any

from fairjudge._closing import Closing
from fairjudge._errors import BudgetExceeded, ConfigError
from fairjudge.judges._jury import MemberSpec, _names
from fairjudge.judges._jury_usage import MemberUsage, model_usage, no_model_usage
from fairjudge.judges._pairwise import ProgressCallback
from fairjudge.judges._pointwise import (
    AnswerScores,
    BatchPointwiseJudge,
    PointwiseJudge,
    ScoreMode,
    ScoreRequest,
    _as_rubric,
    _check_mode,
    read_scores,
    resolve_pointwise_judge,
)
from fairjudge.judges._registry import JUDGE_FORMS, BackendOptions, _backend
from fairjudge.judges._session import Job, JudgeSession
from fairjudge.prompts import Rubric
from fairjudge.runner import RunOptions, RunSummary, Store

__all__ = ["PointwiseJury", "PointwiseMember"]


@dataclass(frozen=True, slots=True)
class PointwiseMember:
    """One judge on a scoring panel.

    Attributes:
        name: Unique within the panel; names the member in every report.
        judge: The judge (a :class:`~fairjudge.judges.PointwiseJudge`, a
            :class:`~fairjudge.judges.CallablePointwiseJudge`, ...).
        weight: Its weight in the aggregate (> 0); 1 by default.
    """

    name: str
    judge: BatchPointwiseJudge
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record of who the member is."""
        return {"name": self.name, "weight": self.weight}


class PointwiseJury(Closing):
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
        ...     per_member = jury.score_members(requests)  # one list per member
    """

    def __init__(
        self,
        members: Sequence[PointwiseMember],
        *,
        session: JudgeSession | None = None,
        owns_session: bool = False,
    ) -> None:
        self.members = tuple(members)
        self.session = session
        self.last_usage: tuple[MemberUsage, ...] = ()
        self._owns_session = owns_session and session is not None
        if len(self.members) < 2:
            raise ConfigError(f"a jury needs at least two members; got {len(self.members)}")
        names = [m.name for m in self.members]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ConfigError(f"jury member names must be unique; repeated: {repeated}")
        for m in self.members:
            if not (isinstance(m.weight, int | float) and math.isfinite(m.weight) and m.weight > 0):
                raise ConfigError(
                    f"member {m.name!r}: weight must be a number > 0; got {m.weight!r}"
                )
        first = self.members[0].judge.rubric
        for m in self.members[1:]:
            if m.judge.rubric != first:
                raise ConfigError(
                    f"member {m.name!r} scores against rubric {m.judge.rubric.name!r}, the "
                    f"first member against {first.name!r}; a panel shares one rubric"
                )
        models = [m.judge for m in self.members if isinstance(m.judge, PointwiseJudge)]
        if self.session is None and models:
            self.session = models[0].session
        if any(j.session is not self.session for j in models):
            raise ConfigError("every model member of a jury must run on the jury's one session")

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

        Raises:
            ConfigError: A bad spec or option (named), or as the constructor.
        """
        the_rubric = _as_rubric(rubric)
        given = store is not None or options is not None
        if session is not None and given:
            raise ConfigError("store= and options= do not apply with session=; set them on it")
        for spec in specs:
            _check_spec(spec, the_rubric, mode, structured)
        models = [s for s in specs if not s.is_python]
        if given and not models:
            raise ConfigError(
                "the store and run options (--store, --max-calls, --concurrency, ...) do not "
                "apply to a jury of Python callables (they are called directly); drop them"
            )
        own = session is None and bool(models)
        if own:
            session = JudgeSession(store=store, options=options)
        members = []
        try:
            for spec, name in zip(specs, _names(specs), strict=True):
                judge = _resolve(spec, the_rubric, mode, structured, session)
                members.append(PointwiseMember(name, judge, spec.weight))
            return cls(members, session=session, owns_session=own)
        except BaseException:
            if own and session is not None:
                session.close()
            raise

    @property
    def rubric(self) -> Rubric:
        """The rubric every member scores against."""
        return self.members[0].judge.rubric

    @property
    def names(self) -> tuple[str, ...]:
        """The members' names, in order."""
        return tuple(m.name for m in self.members)

    @property
    def weights(self) -> tuple[float, ...]:
        """The members' weights, in order."""
        return tuple(float(m.weight) for m in self.members)

    @property
    def last_run(self) -> RunSummary | None:
        """The model members' last batch (one batch for the whole panel)."""
        return self.session.last_run if self.session is not None else None

    def __repr__(self) -> str:
        return f"PointwiseJury({', '.join(self.names)}; rubric={self.rubric.name!r})"

    def score_members(
        self, requests: Sequence[ScoreRequest], progress: ProgressCallback | None = None
    ) -> list[list[AnswerScores]]:
        """Every member's scores for every request: one list per member, in member order.

        Raises:
            FatalBackendError: A model member's backend failed for good; finished
                calls are kept in the store.
            BudgetExceeded: The session's budget ran out; its ``partial`` holds one
                list per member (calls not made are ``NotRun``), and the Python
                members have still answered.
        """
        llm = [i for i, m in enumerate(self.members) if isinstance(m.judge, PointwiseJudge)]
        out: list[list[AnswerScores]] = [[] for _ in self.members]
        wall: dict[int, float] = {}
        stopped: BudgetExceeded | None = None
        if llm:
            per_judge = [self._model(i).jobs(requests) for i in llm]
            jobs: list[Job[Any]] = [job for js in per_judge for job in js]
            assert self.session is not None  # checked in __init__: model members share it
            try:
                replies = self.session.run(jobs, read_scores, progress=progress)
            except BudgetExceeded as exc:
                if not isinstance(exc.partial, list) or len(exc.partial) != len(jobs):
                    raise
                replies, stopped = exc.partial, exc
            start = 0
            for i, js in zip(llm, per_judge, strict=True):
                out[i] = self._model(i)._group(replies[start : start + len(js)])
                start += len(js)
        for i, m in enumerate(self.members):
            if i not in llm:
                began = time.perf_counter()
                out[i] = m.judge.score_batch(requests, progress)
                wall[i] = time.perf_counter() - began
        self.last_usage = self._usage(out, wall)
        if stopped is not None:
            raise BudgetExceeded(str(stopped), partial=out) from stopped
        return out

    def _model(self, i: int) -> PointwiseJudge:
        judge = self.members[i].judge
        assert isinstance(judge, PointwiseJudge)
        return judge

    def _usage(
        self, out: list[list[AnswerScores]], wall: dict[int, float]
    ) -> tuple[MemberUsage, ...]:
        """Each member's usage; a call shared by members is charged to the first."""
        charged: set[str] = set()
        usage = []
        for i, scored in enumerate(out):
            replies = [c.reply for s in scored for c in s.calls]
            if i in wall or self.session is None:
                usage.append(no_model_usage(replies, wall.get(i, 0.0)))
            else:
                usage.append(model_usage(replies, self.session.store, charged))
        return tuple(usage)

    def close(self) -> None:
        """Close the jury's own session (a shared one is its owner's to close)."""
        if self._owns_session and self.session is not None:
            self.session.close()


def _check_spec(spec: MemberSpec, rubric: Rubric, mode: ScoreMode, structured: bool) -> None:
    """Refuse what a scoring member cannot take, before a session or a model opens."""
    judge = spec.judge.strip()
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
        raise ConfigError(f"unknown judge {judge!r}; use one of: {'; '.join(JUDGE_FORMS)}")
    _check_mode(mode, rubric, kind, structured)


def _resolve(
    spec: MemberSpec,
    rubric: Rubric,
    mode: ScoreMode,
    structured: bool,
    session: JudgeSession | None,
) -> BatchPointwiseJudge:
    where = BackendOptions(spec.base_url, None, None, spec.temperature, spec.timeout)
    judge = spec.judge.strip()
    if spec.is_python:
        return resolve_pointwise_judge(judge, rubric=rubric, backend_options=where)
    assert session is not None  # opened for the model members
    kind, _, name = judge.partition("/")
    backend = _backend(kind, name.strip(), where, quiet=session.options.quiet)
    params = {} if spec.temperature is None else {"temperature": spec.temperature}
    return PointwiseJudge(
        backend, rubric=rubric, mode=mode, session=session, params=params, structured=structured
    )
