"""One panel for every kind of judgment: several judges on one session.

A pairwise and a pointwise jury differ only in what they read, so :class:`Panel`
checks members, batches their calls on one session and charges each its usage once;
a kind brings three small methods (``_collect``, ``_answer``, ``_replies_of``). The
panel's Python members get its run options, its store and one ``max_calls`` budget
for the whole panel, as a single Python judge would (:class:`PythonRun`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from os import PathLike
from typing import Any, ClassVar, Generic, Self, TypeVar

from fairjudge._call import Closing
from fairjudge._errors import ConfigError, worded
from fairjudge._types import Replies, Reply, stopped_by
from fairjudge.judges._callable import PythonFunction
from fairjudge.judges._member import (
    MODEL_SETTINGS,
    PRICE_KEYS,
    MemberSpec,
    MemberUsage,
    function_usage,
    model_usage,
    no_model_usage,
    price_routes,
)
from fairjudge.judges._own_judge import interrupt_note, set_interrupt_note
from fairjudge.judges._pairwise import ProgressCallback
from fairjudge.judges._registry import PYTHON_JUDGE, check_batch_api, reject
from fairjudge.judges._session import (
    JudgeSession,
    ReplyParser,
    SessionJudge,
    uses_default_executor,
)
from fairjudge.runner import Executor, RunOptions, RunSummary, Store

__all__ = [
    "MemberSpec",
    "Panel",
    "PanelMember",
    "PythonRun",
    "budget_message",
    "interrupted_member",
    "member_names",
    "panel_run",
    "python_budget",
]


J = TypeVar("J")  # a member's judge: a pairwise judge, a pointwise judge


@dataclass(frozen=True, slots=True)
class PanelMember(Generic[J]):
    """One judge on a panel, of either kind (``JuryMember``, ``PointwiseMember``).

    Attributes:
        name: Unique within the panel; names the member in every report.
        judge: The judge (a model judge, a callable judge, a replay, ...).
        weight: Its weight in the aggregate (> 0); 1 by default.
    """

    name: str
    judge: J
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record of who the member is."""
        return {"name": self.name, "weight": self.weight}


M = TypeVar("M", bound=PanelMember[Any])
Q = TypeVar("Q")  # a request: a pair to judge, an answer to score
A = TypeVar("A")  # a member's answer to one request: a reply, an answer's scores


def member_names(bases: Sequence[str]) -> list[str]:
    """Each member's name from its base name, with ``#2``, ``#3`` on repeats.

    Reports name members, so two members on the same spec still need two names.
    """
    names: list[str] = []
    for base in bases:
        name, k = base, 1
        while name in names:
            k += 1
            name = f"{base}#{k}"
        names.append(name)
    return names


class Panel(Closing, Generic[M, Q, A]):
    """Several judges on one session: the checks, the batch and the usage of a jury.

    Args:
        members: At least two members, with unique names and positive weights.
        session: The session the model members run on (they must all share it, so
            that the panel is one run); default the model members' own session.
            Closed with the panel when ``owns_session``.
        owns_session: Close ``session`` when the panel closes.

    Raises:
        ConfigError: Fewer than two members, a repeated name, a weight that is not a
            positive number, what :meth:`_check_panel` refuses, or model members on
            different sessions.

    Attributes:
        last_members: Every member's answers to the last batch, one list per member
            (empty before the first batch).
        last_usage: Each member's calls, tokens, cost and latency in the last batch.
    """

    #: The members' judges of this type call a model on the panel's session.
    _model_type: ClassVar[type[SessionJudge]]
    #: Reads one reply of a model member's call.
    _parser: ClassVar[ReplyParser[Any, Any]]
    #: The kind's member type: a name, a judge and a weight.
    _member_type: ClassVar[type[Any]]

    def __init__(
        self,
        members: Sequence[M],
        *,
        session: JudgeSession | None = None,
        owns_session: bool = False,
    ) -> None:
        self.members = tuple(members)
        self.session = session
        self.last_members: list[list[A]] = []
        self.last_usage: tuple[MemberUsage, ...] = ()
        self._last_run: RunSummary | None = None
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
        self._check_panel()
        models = [self._model(i) for i in self._on_model()]
        if self.session is None and models:
            self.session = models[0].session
        if any(j.session is not self.session for j in models):
            raise ConfigError("every model member of a jury must run on the jury's one session")

    def _check_panel(self) -> None:
        """Refuse members that cannot sit on one panel together; a subclass's own check."""

    @classmethod
    def _assemble(
        cls,
        specs: Sequence[MemberSpec],
        member: Callable[[MemberSpec, str, JudgeSession | None, PythonRun], M],
        *,
        session: JudgeSession | None,
        store: Store | str | PathLike[str] | None,
        options: RunOptions | None,
        executor: Executor | str | None = None,
    ) -> Self:
        """Open the panel's own session when a model member needs one, then build it.

        The session is closed again when any member or the panel fails, so that a
        bad spec leaves no connection open.

        Args:
            specs: The members, as configured.
            member: Resolves one spec, under its name, on the session (a Python
                member with the panel's run options and store).
            session: A session given by the caller; else one is opened.
            store: The store or its path, for a session of the panel's own.
            options: Run options, for a session of the panel's own.
            executor: Where a session of the panel's own runs its batches.

        Raises:
            ConfigError: A store or options next to a session, which carries its own,
                or a store for a panel of Python members none of which declares a
                name and version (nothing could be kept there).
        """
        if session is not None and (store is not None or options is not None):
            raise ConfigError("store= and options= do not apply with session=; set them on it")
        if session is not None and executor is not None:
            raise ConfigError("executor= does not apply with session=; set it on the session")
        if not uses_default_executor(executor) and all(s.is_python for s in specs):
            raise ConfigError(
                "executor does not apply to a jury of Python callables (they are called "
                "directly, in this process); drop it",
                params="executor",
            )
        for spec in specs:  # before a session opens or a member's model loads
            if not spec.is_python:
                check_batch_api(spec.judge, executor if session is None else session.executor)
        own = session is None and any(not s.is_python for s in specs)
        if own:
            session = JudgeSession(store=store, options=options, executor=executor)
        # Python members run on sessions of their own with the panel's run options and
        # store (a declared one is cached there), as a single Python judge does.
        run = PythonRun(
            session.options if session is not None else options,
            session.store if session is not None else store,
        )
        bases = [spec.name or spec.judge.strip() for spec in specs]
        try:
            members = [
                _built(member, spec, name, session, run)
                for spec, name in zip(specs, member_names(bases), strict=True)
            ]
            run.check_store(store, [m.judge for m in members])
            if session is not None:
                price_routes(session, specs, members)
            return cls(members, session=session, owns_session=own)
        except BaseException:
            if own and session is not None:
                session.close()
            raise

    @classmethod
    def seat(
        cls,
        judges: Sequence[tuple[str, Any, float]],
        *,
        options: RunOptions | None = None,
        store: Store | str | PathLike[str] | None = None,
    ) -> Self:
        """A panel of judges already built, each ``(base name, judge, weight)``.

        The members are named from their base names, with ``#2``, ``#3`` on repeats.
        Python members run with ``options`` and (when declared) ``store``; a store
        that no member could use is refused, as for one undeclared judge.
        """
        run = PythonRun(options, store)
        built = [run.attach(judge) for _, judge, _ in judges]
        run.check_store(store, built)
        names = member_names([base for base, _, _ in judges])
        seats = zip(names, built, judges, strict=True)
        return cls([cls._member_type(name, judge, w) for name, judge, (_, _, w) in seats])

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
        """The panel's last batch, every member's calls: the model members' and its own.

        The model members' session and each Python member's own run, added up
        (:func:`panel_run`), so that ``--json``'s ``calls`` and the budget's stop
        line count the same calls; ``None`` before the first batch, or when no
        member ran on the engine (replays only).
        """
        return self._last_run

    def member_readings(
        self, requests: Sequence[Q], progress: ProgressCallback | None = None
    ) -> list[Replies[A]]:
        """Every member's answers to every request: one list per member, in member order.

        The model members' calls go to the session as one batch (two members making
        the same call make it once); the other members are then called directly.

        Returns:
            The members' answers. When the budget ran out, each list's ``stopped``
            says so (``NotRun`` failures for calls not made), and the Python members
            have still answered.

        Raises:
            FatalBackendError: A model member's backend failed for good; finished
                calls are kept in the store.
        """
        on_model = self._on_model()
        out: list[list[A]] = [[] for _ in self.members]
        runs: list[RunSummary] = []  # the batches on the engine: the session's, each Python's
        if on_model:
            assert self.session is not None  # checked in __init__: model members share it
            per_judge = [(i, self._model(i).jobs(requests)) for i in on_model]
            jobs = [job for _, own in per_judge for job in own]
            replies = self.session.run(jobs, type(self)._parser, progress=progress)
            start = 0
            for i, own in per_judge:
                mine = replies[start : start + len(own)]
                out[i] = self._collect(self._model(i), mine, replies.stopped)
                start += len(own)
            runs += [self.session.last_run] if self.session.last_run is not None else []
        # The other members answer here, so their latency is what their batch took;
        # a Python member runs on the engine, within what is left of the panel's budget.
        wall: dict[int, float] = {}
        own_runs: dict[int, RunSummary] = {}  # each Python member's run of this batch
        judges, limit = [m.judge for m in self.members], self.max_calls
        for i, m in enumerate(self.members):
            if i not in on_model:
                begin = time.perf_counter()
                python_budget(judges, self._session_calls(), limit, m.judge)
                before = getattr(m.judge, "last_run", None)
                try:
                    out[i] = self._answer(m.judge, requests, progress)
                except KeyboardInterrupt:
                    interrupted_member(m.name, [n.judge for n in self.members[:i]], on_model)
                    raise
                wall[i] = time.perf_counter() - begin
                run = getattr(m.judge, "last_run", None)
                if isinstance(run, RunSummary) and run is not before:
                    runs.append(run)
                    own_runs[i] = run
        self.last_members = out
        self.last_usage = self._usage([self._replies_of(own) for own in out], wall, own_runs)
        self._last_run = panel_run(runs)
        # A stop in any member's batch stops the panel: every member's list says so.
        stopped = self._stop_of(judges, stopped_by(*out))
        return [Replies(own, stopped=stopped) for own in out]

    @property
    def max_calls(self) -> int | None:
        """The most calls the whole panel may make in a batch (``None``: no budget).

        The one rule for a panel's budget: its session's ``max_calls``, which its model
        members share; without a session (Python members and replays only), that of its
        Python members' run options, which the panel hands them alike
        (:class:`PythonRun`), so the first member's that has any is the panel's. The
        Python members share it out as they answer (:func:`python_budget`), and
        :func:`fairjudge.evaluation.check_plan` reads it before a run is planned.
        """
        if self.session is not None:
            return self.session.options.max_calls
        options = [getattr(m.judge, "options", None) for m in self.members]
        return next((o.max_calls for o in options if isinstance(o, RunOptions)), None)

    def _session_calls(self) -> int:
        return self.session.calls_made if self.session is not None else 0

    def _stop_of(self, judges: Sequence[object], stopped: str | None) -> str | None:
        """The panel's stop: a ``max_calls`` stop with Python members, said for the panel.

        A member's own line counts its own session's calls only (a Python member's
        run, or the model members' session): on a panel with Python members it is
        said again from the panel's batch (:attr:`last_run`), the count ``--json``
        gives. Without Python members the session made every call, and its line
        (which also words a ``max_cost`` stop) is the panel's already.
        """
        run = self._last_run
        python = any(isinstance(j, PythonFunction) for j in judges)
        if stopped is None or run is None or run.stopped != "max_calls" or not python:
            return stopped
        paths = [p for j in judges if (p := getattr(j, "store_path", None)) is not None]
        store = str(self.session.store.path) if self.session is not None else None
        return budget_message(
            judges, self._session_calls(), run, self.max_calls, store or next(iter(paths), None)
        )

    def _on_model(self) -> list[int]:
        """Where the model members sit: their calls go to the session as one batch."""
        return [i for i, m in enumerate(self.members) if isinstance(m.judge, self._model_type)]

    def _model(self, i: int) -> Any:
        """Member ``i``'s judge, which calls a model (the subclass's ``_model_type``)."""
        judge = self.members[i].judge
        assert isinstance(judge, self._model_type)
        return judge

    def _collect(self, judge: Any, replies: list[Reply[Any]], stopped: str | None) -> list[A]:
        """A model member's answers from its calls' replies, in request order."""
        raise NotImplementedError

    def _answer(
        self, judge: Any, requests: Sequence[Q], progress: ProgressCallback | None
    ) -> list[A]:
        """A member that calls no model answers the whole batch itself."""
        raise NotImplementedError

    def _replies_of(self, answers: Sequence[A]) -> list[Reply[Any]]:
        """The replies behind a member's answers, whose calls its usage counts."""
        raise NotImplementedError

    def _usage(
        self,
        replies: Sequence[Sequence[Reply[object]]],
        wall: dict[int, float],
        own_runs: dict[int, RunSummary],
    ) -> tuple[MemberUsage, ...]:
        """Each member's usage; a call shared by members is charged to the first.

        A Python judge's calls run on its engine and count in the panel's run, so
        they count as made (or cached) in its row too; a replay makes none.
        """
        charged: set[str] = set()
        usage = []
        for i, own in enumerate(replies):
            if isinstance(self.members[i].judge, PythonFunction):
                usage.append(function_usage(own, own_runs.get(i), wall.get(i, 0.0)))
            elif i in wall or self.session is None:
                usage.append(no_model_usage(own, wall.get(i, 0.0)))
            else:
                usage.append(model_usage(own, self.session.store, charged))
        return tuple(usage)

    def close(self) -> None:
        """Close the panel's own session (a shared one is its owner's to close)."""
        if self._owns_session and self.session is not None:
            self.session.close()


PF = TypeVar("PF", bound=PythonFunction)

_MODEL_ONLY = ("tpm", "max_cost", "prices", "route_prices")
"""Run options only model members can honour (a Python judge reports no tokens or cost)."""


def _built(
    member: Callable[[MemberSpec, str, JudgeSession | None, PythonRun], M],
    spec: MemberSpec, name: str, session: JudgeSession | None, run: PythonRun,
) -> M:  # fmt: skip
    """One member, an error in its values naming where they were set (:meth:`MemberSpec.named`).

    A ``python:`` member takes its ``timeout`` (:class:`PythonRun`); a model's setting
    on it, which it could not honour, is refused.
    """
    try:
        if spec.judge.strip().startswith("python:"):
            model_only = [f for f in MODEL_SETTINGS if getattr(spec, f) is not None]
            reject(spec.judge.strip(), model_only, PYTHON_JUDGE)
            run = replace(run, timeout=spec.timeout)
        elif spec.is_python:  # a replay: the price keys (its other keys: resolve_judge)
            priced = [key for key in PRICE_KEYS if getattr(spec, key) is not None]
            reject(spec.judge.strip(), priced, "a replay makes no call and pays for none")
        return member(spec, name, session, run)
    except ConfigError as exc:
        named = spec.named(exc)
        if named is exc:
            raise
        raise named from None


@dataclass(frozen=True, slots=True)
class PythonRun:
    """What a panel hands its Python members: its run options and its store.

    Attributes:
        options: The panel's run options (``None``: a Python judge's defaults).
        store: The panel's store or its path (``None``: the default store, for a
            declared member).
        timeout: Seconds one call of the member may take (``None``: no limit).
    """

    options: RunOptions | None
    store: Store | str | PathLike[str] | None
    timeout: float | None = None

    def build(self, make: Callable[[RunOptions | None, Any], PF], *, mixed: bool) -> PF:
        """A Python member, made by ``make(options, store)``: the store only if it declares.

        An undeclared member is never cached, so it gets no store (a store for it
        alone is refused, as for one judge: :meth:`check_store`). On a panel with
        model members (``mixed``), the token and cost options are the model members'
        and are not handed on; on a panel of Python members alone they are refused.
        """
        options = self.options
        if options is not None and mixed:
            default = RunOptions()
            options = replace(options, **{name: getattr(default, name) for name in _MODEL_ONLY})
        judge = make(options, None)
        if self.store is not None and judge.declared:
            judge.close()  # nothing opened yet: its session opens at its first batch
            judge = make(options, self.store)
        if self.timeout is not None:
            judge.timeout = self.timeout
        return judge

    def attach(self, judge: object) -> object:
        """A Python judge built without run options, given the panel's (others as they are).

        For a panel of functions and judge objects (``compare(judges=[fn1, fn2])``): a
        function wrapped there runs with the panel's options and, when it declares a
        name and version, its store.
        """
        if not isinstance(judge, PythonFunction) or (self.options is None and self.store is None):
            return judge
        return judge.with_run(self.options, self.store if judge.declared else None)

    def check_store(self, store: object, judges: Sequence[object]) -> None:
        """Refuse a store that no member could use: every member is an undeclared Python judge.

        As for one undeclared judge (exit 2 on the command line): nothing could be
        kept there, so the store would promise what the run cannot keep.
        """
        if store is None or not judges:
            return
        if all(isinstance(j, PythonFunction) and not j.declared for j in judges):
            names = ", ".join(repr(getattr(j, "name", j)) for j in judges)
            raise ConfigError(
                f"store does not apply to a panel of Python judges none of which declares a "
                f"name and version ({names}): their calls cannot be cached; declare them "
                "with @fairjudge.judge_function(name=..., version=...), or drop store",
                params="store",
            )


def python_budget(
    judges: Sequence[object], session_calls: int, limit: int | None, member: object
) -> None:
    """Give a Python member what is left of the panel's ``max_calls`` before its batch.

    Args:
        judges: Every member's judge.
        session_calls: Calls the model members' session has made.
        limit: The panel's ``max_calls`` (``None``: no budget).
        member: The Python member about to answer.
    """
    if limit is None or not isinstance(member, PythonFunction):
        return
    member.cap_calls(max(0, limit - panel_calls(judges, session_calls)))


def panel_calls(judges: Sequence[object], session_calls: int) -> int:
    """Calls the whole panel has made: its model members' and its Python members'."""
    own = sum(j.calls_made for j in judges if isinstance(j, PythonFunction))
    return session_calls + own


def panel_run(runs: Sequence[RunSummary]) -> RunSummary | None:
    """The panel's batch as one run: its model members' session and each Python member's.

    Every output of a panel (the budget's stop line, ``--json``'s ``calls``, the
    report) reads this one count, so none of them counts one session's calls alone.
    ``stopped`` is the first budget stop among them (the Python members answer after
    the model members, within what the model members left of ``max_calls``).
    """
    total = RunSummary.total_of(runs)
    if total is None or len(runs) <= 1:
        return total
    return replace(total, stopped=next((r.stopped for r in runs if r.stopped), None))


def budget_message(
    judges: Sequence[object], session_calls: int, run: RunSummary, limit: object, store: str | None
) -> str:
    """The panel's budget stop, counted over every member and true of every Python member.

    Args:
        judges: Every member's judge.
        session_calls: Calls the model members' session has made (the budget counts
            them with the Python members' own).
        run: The panel's batch (:func:`panel_run`): its ``stopped`` names the budget,
            its ``not_run`` counts every member's calls the budget left unmade.
        limit: That budget's value.
        store: Where the finished calls are kept (``None``: no store).
    """
    budget = run.stopped or "max_calls"
    undeclared = [str(j.name) for j in judges if isinstance(j, PythonFunction) and not j.declared]
    made = (
        f"the {budget}={limit} budget is spent: {panel_calls(judges, session_calls)} calls "
        f"made by the panel, {run.not_run} not run"
    )
    if not undeclared:
        return worded(
            f"{made}. Everything finished is kept in the store {store}; "
            "run again to continue: the budget counts the calls of one run, so the same "
            "budget pays for as many again (stored calls cost nothing).",
            budget,
        )
    others = f" The other members' finished calls are kept in the store {store}." if store else ""
    return worded(
        f"{made}. No store for {', '.join(undeclared)}: they declare no "
        "name and version, so nothing of theirs was kept and a rerun makes their calls "
        "again (declare them with @fairjudge.judge_function(name=..., version=...) to "
        f"cache them; README: 'Your own judge').{others}",
        budget,
    )


def interrupted_member(name: str, before: Sequence[object], on_model: Sequence[int]) -> None:
    """Say which member a Ctrl-C stopped, and what became of the members before it.

    The interrupted member's own note (what its store kept, or that it has none) is
    about that member alone; on a panel, the members that answered before it are
    named too, so the note claims nothing for them that is not so.
    """
    note = interrupt_note()
    if note is None:
        return
    done = [
        f"{getattr(j, 'name', j)} ("
        + ("kept in the store" if getattr(j, "declared", True) else "not kept: no store")
        + ")"
        for k, j in enumerate(before)
        if k not in on_model
    ]
    models = " The model members' calls are kept in their store." if on_model else ""
    earlier = f" Members that answered before it: {', '.join(done)}." if done else ""
    set_interrupt_note(f"{note} (member {name}).{earlier}{models}")
