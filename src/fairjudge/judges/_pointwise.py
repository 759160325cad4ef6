"""Pointwise judging: an answer scored against a rubric, by a model, a function or a panel.

:class:`PointwiseJudge` mirrors :class:`~fairjudge.judges.LLMJudge` on a session;
``"json"`` mode makes one call per answer, ``"label"`` one per dimension (so logprobs
give a probability-weighted score). :class:`CallablePointwiseJudge` adapts a
function, validated as a model's reply is. :class:`PointwiseJury` seats several of
them on the *same* rubric, since a per-dimension aggregate means something only when
all read the dimensions and scale alike (aggregating is
:func:`fairjudge.evaluation.score_with_jury`'s job).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast, runtime_checkable

from fairjudge._call import Backend, CallSpec, Conversation
from fairjudge._errors import BudgetExceeded, ConfigError
from fairjudge._items import question_text
from fairjudge._types import ParseFailure, Replies, Reply, ScoreReading
from fairjudge.backends import capabilities_for
from fairjudge.judges._callable import PythonFunction, python_function
from fairjudge.judges._pairwise import ProgressCallback
from fairjudge.judges._panel_base import MemberSpec, Panel, PanelMember, PythonRun
from fairjudge.judges._registry import (
    JUDGE_FORMS,
    PYTHON_JUDGE,
    BackendOptions,
    check_batch_api,
    given_options,
    judge_spec,
    make_backend,
    model_route,
    refuse_one_at_a_time,
    reject,
    sampling,
)
from fairjudge.judges._session import Job, JudgeSession, SessionJudge, uses_default_executor
from fairjudge.prompts import (
    AnswerScores,
    Rubric,
    ScoreCall,
    ScoreContext,
    get_rubric,
    parse_scores,
    read_scores,
    validate_scores,
)
from fairjudge.runner import RunOptions

if TYPE_CHECKING:
    from fairjudge.runner import Executor, Store

__all__ = [
    "SCORE_MODES",
    "AnswerScores",
    "BatchPointwiseJudge",
    "CallablePointwiseJudge",
    "PointwiseJudge",
    "PointwiseJury",
    "PointwiseMember",
    "ScoreCall",
    "ScoreContext",
    "ScoreMode",
    "ScoreRequest",
    "read_scores",
    "resolve_pointwise_judge",
]

ScoreMode = Literal["json", "label"]
"""How a model is asked: one JSON reply per answer, or one bare number per dimension."""
SCORE_MODES: tuple[ScoreMode, ...] = ("json", "label")


@dataclass(frozen=True, slots=True)
class ScoreRequest:
    """One answer to score.

    Attributes:
        question: The question, or the conversation the answer continues.
        answer: The answer scored (for a conversation, the assistant's next turn).
        reference: A reference answer, for rubrics that need one.
        sample: Sample index among otherwise equal calls.
    """

    question: str | Conversation
    answer: str
    reference: str | None = None
    sample: int = 0


@runtime_checkable
class BatchPointwiseJudge(Protocol):
    """A judge that scores a batch of answers against its rubric."""

    @property
    def rubric(self) -> Rubric:
        """The rubric every answer is scored against."""
        ...

    def score_batch(
        self, requests: Sequence[ScoreRequest], progress: ProgressCallback | None = None
    ) -> list[AnswerScores]:
        """One :class:`AnswerScores` per request, in order; failures are records.

        A spent budget is not raised: return :class:`~fairjudge.judges.Replies` with
        its ``stopped`` set (and ``NotRun`` calls for the answers not scored). May
        raise :class:`fairjudge.FatalBackendError` to stop a whole run.
        """
        ...


def as_rubric(rubric: str | Rubric) -> Rubric:
    return rubric if isinstance(rubric, Rubric) else get_rubric(rubric)


class PointwiseJudge(SessionJudge):
    """Scores answers against a rubric by asking a model, through a session.

    Args:
        backend: The model to ask.
        rubric: A built-in rubric name, a ``*.toml`` path, or a rubric.
        mode: ``"json"`` (one call per answer) or ``"label"`` (one bare-number call
            per dimension, for probability-weighted scores).
        session: The session to run on; when omitted the judge opens its own from
            ``store`` and ``options`` and closes it with itself.
        store: The store or its path, for a session of the judge's own.
        options: Run options, for a session of the judge's own.
        executor: Where a session of the judge's own runs its batches (an
            :class:`~fairjudge.runner.Executor`, ``"asyncio"`` or ``"ray"``; see
            :class:`~fairjudge.judges.JudgeSession`).
        params: Sampling parameters over the backend's defaults; part of the cache key.
        structured: Ask an ``openai/`` backend for structured output, passing the
            rubric's :attr:`~fairjudge.prompts.Rubric.reply_schema` as
            ``response_format`` (JSON mode only). Replies are validated all the same.

    Raises:
        ConfigError: An unknown mode, ``"label"`` on a scale with two-digit levels,
            ``structured`` where it does not apply, or ``store``/``options`` with
            ``session``.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        rubric: str | Rubric = "production",
        mode: ScoreMode = "json",
        session: JudgeSession | None = None,
        store: Store | str | PathLike[str] | None = None,
        options: RunOptions | None = None,
        params: Mapping[str, Any] | None = None,
        structured: bool = False,
        executor: Executor | str | None = None,
    ) -> None:
        self._rubric = as_rubric(rubric)
        self.mode = check_mode(mode, self._rubric, backend.name, structured)
        # An openai/ model the OpenAI API serves none is refused before any call (at
        # another server, which may serve another model under the name, its refusal stands).
        if structured and getattr(backend, "at_vendor", True):
            capabilities_for(backend.name, backend.model).check_structured(backend.model)
        self._join(
            backend,
            session=session,
            store=store,
            options=options,
            label_only=mode == "label",
            params=params,
            executor=executor,
        )
        if structured:
            schema = {"name": "rubric_scores", "schema": self._rubric.reply_schema, "strict": True}
            self.params["response_format"] = {"type": "json_schema", "json_schema": schema}

    @property
    def rubric(self) -> Rubric:
        """The rubric every answer is scored against."""
        return self._rubric

    def __repr__(self) -> str:
        return f"PointwiseJudge({self.name!r}, rubric={self._rubric.name!r}, mode={self.mode!r})"

    def spec_for(self, request: ScoreRequest, dimension: str | None = None) -> CallSpec:
        """The call made for one request (and one dimension, in label mode)."""
        r, q = self._rubric, request
        messages = r.render(q.question, q.answer, q.reference, dimension=dimension)
        return self._spec(f"rubric:{r.name}", r.version, messages, q.sample, "pointwise")

    def _dimensions(self) -> tuple[str | None, ...]:
        return self._rubric.names if self.mode == "label" else (None,)

    def jobs(self, requests: Sequence[ScoreRequest]) -> list[Job[ScoreContext]]:
        """The session jobs: per request, one call (JSON) or one per dimension (label)."""
        return [
            Job(self.spec_for(r, d), ScoreContext(self._rubric, d))
            for r in requests
            for d in self._dimensions()
        ]

    def _group(
        self, replies: Sequence[Reply[ScoreReading]], stopped: str | None
    ) -> Replies[AnswerScores]:
        dims = self._dimensions()
        step = len(dims)
        return Replies(
            (
                AnswerScores.from_calls(
                    [ScoreCall(d, r) for d, r in zip(dims, replies[i : i + step], strict=True)]
                )
                for i in range(0, len(replies), step)
            ),
            stopped=stopped,
        )

    def score_batch(
        self, requests: Sequence[ScoreRequest], progress: ProgressCallback | None = None
    ) -> Replies[AnswerScores]:
        """Score every request; one :class:`AnswerScores` per request, in order.

        Returns:
            The scores. When ``max_calls`` or ``max_cost`` ran out, their ``stopped``
            says so and the calls not made are ``NotRun``.

        Raises:
            FatalBackendError: The backend rejected a call in a way retrying cannot fix.
        """
        replies = self.session.run(self.jobs(requests), read_scores, progress=progress)
        return self._group(replies, replies.stopped)

    def __call__(self, question: str, answer: str) -> dict[str, int]:
        """Score one answer: ``{dimension: score}``.

        Raises:
            ValueError: A reply held no valid scores; the message gives the reason.
            BudgetExceeded: ``max_calls`` or ``max_cost`` ran out before the calls (a
                mapping of scores has no ``stopped`` to carry that).
        """
        batch = self.score_batch([ScoreRequest(question, answer)])
        scored = batch[0]
        if batch.stopped is not None and set(scored.scores) != set(self._rubric.names):
            raise BudgetExceeded(batch.stopped)
        if set(scored.scores) != set(self._rubric.names):
            failures = [c.reply.failure for c in scored.calls if c.reply.failure is not None]
            raise ValueError(f"{self.name} gave no valid scores: {failures}")
        return dict(scored.scores)


def check_mode(mode: str, rubric: Rubric, backend: str | None, structured: bool) -> ScoreMode:
    if mode not in SCORE_MODES:
        raise ConfigError(
            f"mode must be one of {', '.join(SCORE_MODES)}; got {mode!r}", params="mode"
        )
    if mode == "label" and not rubric.single_digit:
        raise ConfigError(
            f"mode=label reads each score from the reply's first token, so every level must "
            f"be one digit; rubric {rubric.name!r} scores {rubric.scale_text}",
            params="mode",
        )
    if structured and (mode != "json" or backend != "openai"):
        raise ConfigError(
            "structured=True applies to openai/ judges in mode=json only; drop it",
            params=("structured", "mode"),
        )
    return "label" if mode == "label" else "json"


ScoreFunction = Callable[..., Any]


class CallablePointwiseJudge(PythonFunction):
    """Adapts ``judge(question, answer) -> {dimension: score}`` to the batch interface.

    The function may also return the reply text of a model (read as a JSON reply).
    Its scores are validated exactly as a model's are: a missing dimension or a score
    off the scale is a :class:`~fairjudge.ParseFailure`. A conversation is passed as
    its role-labelled transcript, and the reference as ``reference=`` when the
    function takes that keyword. Failures are records, and a spent budget ends the
    batch early, as for :class:`CallableJudge` (see :class:`PythonFunction`).
    """

    call_kind = "pointwise"

    def __init__(
        self, fn: ScoreFunction, *, rubric: str | Rubric = "production", name: str | None = None,
        options: RunOptions | None = None, store: Store | str | PathLike[str] | None = None,
        timeout: float | None = None,
    ) -> None:  # fmt: skip
        super().__init__(fn, name=name, options=options, store=store, timeout=timeout)
        self._rubric = as_rubric(rubric)
        try:
            self._takes_reference = "reference" in inspect.signature(self.target).parameters
        except (TypeError, ValueError):  # a builtin without a signature
            self._takes_reference = False

    @property
    def rubric(self) -> Rubric:
        """The rubric the function's scores are validated against."""
        return self._rubric

    def _call(self, request: ScoreRequest) -> object:
        extra = {"reference": request.reference} if self._takes_reference else {}
        return self.target(question_text(request.question), request.answer, **extra)

    def _read(self, value: object) -> Reply[ScoreReading]:
        if isinstance(value, str):
            read = parse_scores(value, self._rubric)
            if isinstance(read, ParseFailure):
                return Reply(raw=value, failure=read)
            return Reply(read, raw=value)
        if isinstance(value, Mapping):
            checked = validate_scores(value, self._rubric)
            raw = repr(value)
            if isinstance(checked, str):
                return Reply(raw=raw, failure=ParseFailure(raw, checked))
            return Reply(checked, raw=raw)
        reason = f"judge returned {type(value).__name__} {value!r}; expected {{dimension: score}}"
        return Reply(raw=repr(value), failure=ParseFailure(repr(value), reason))

    def score_batch(
        self, requests: Sequence[ScoreRequest], progress: ProgressCallback | None = None
    ) -> Replies[AnswerScores]:
        """Call the function once per request, in order."""
        replies = self._each(requests, self._call, self._read, progress)
        return Replies(
            (AnswerScores.from_calls([ScoreCall(None, r)]) for r in replies),
            stopped=replies.stopped,
        )


def resolve_pointwise_judge(
    spec: str | None,
    *,
    rubric: str | Rubric = "production",
    mode: ScoreMode = "json",
    backend_options: BackendOptions | None = None,
    options: RunOptions | None = None,
    store: Store | str | PathLike[str] | None = None,
    params: Mapping[str, Any] | None = None,
    structured: bool = False,
    executor: Executor | str | None = None,
) -> PointwiseJudge | CallablePointwiseJudge:
    """Build the pointwise judge a ``--judge`` spec names (the forms of ``compare``).

    Raises:
        ConfigError: An empty spec or an unknown form, an option that does not apply to the judge
            (named), a bad mode for the rubric, or a missing backend SDK.
    """
    given_spec, spec = spec, judge_spec(spec)  # an empty spec is refused first
    check_batch_api(given_spec, executor)
    where = backend_options or BackendOptions()
    the_rubric = as_rubric(rubric)
    if spec.startswith("python:"):
        given = [g for g in given_options(where) if g != "timeout"]  # it has a timeout
        given += ["mode"] if mode != "json" else []
        given += ["structured"] if structured else []
        given += [] if uses_default_executor(executor) else ["executor"]
        reject(spec, given, PYTHON_JUDGE)
        fn, _ = python_function(spec)  # imported only: it is not a pairwise judge
        return CallablePointwiseJudge(
            fn, rubric=the_rubric, name=spec, options=options, store=store, timeout=where.timeout
        )
    kind, name = model_route(spec)
    refuse_one_at_a_time(spec, options, executor)
    check_mode(mode, the_rubric, kind, structured)  # before a model loads
    backend = make_backend(kind, name, where, quiet=(options or RunOptions()).quiet)
    return PointwiseJudge(
        backend, rubric=the_rubric, mode=mode, store=store, options=options,
        params=sampling(where, params, spec=spec), structured=structured, executor=executor,
    )  # fmt: skip


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
    where = spec.backend_options()
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
