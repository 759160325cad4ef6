"""What a pairwise jury and a pointwise jury have in common: one panel on one session.

Both panels check their members the same way (at least two, unique names, positive
weights), run their model members' calls as one batch on one shared session, call
their Python members directly and charge each member its own usage. Only the kind
of judge, the request and the reply differ, so that much lives here once: a change
to how a panel opens, checks or bills its members then reaches both juries.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from fairjudge._closing import Closing
from fairjudge._errors import ConfigError
from fairjudge._types import Replies, Reply, stopped_by
from fairjudge.judges._jury_usage import MemberUsage, model_usage, no_model_usage
from fairjudge.judges._on_session import SessionJudge
from fairjudge.judges._pairwise import ProgressCallback
from fairjudge.judges._session import Job, JudgeSession, ReplyParser
from fairjudge.runner import RunOptions, RunSummary, Store

__all__ = ["Panel", "check_run_args", "member_names"]


class _Spec(Protocol):
    """A member as configured: what naming a member and opening a session read."""

    @property
    def judge(self) -> str: ...

    @property
    def name(self) -> str | None: ...

    @property
    def is_python(self) -> bool: ...


class _Member(Protocol):
    """A member on a panel: what checking and naming the members read."""

    @property
    def name(self) -> str: ...

    @property
    def weight(self) -> float: ...

    @property
    def judge(self) -> object: ...


M = TypeVar("M", bound=_Member)
S = TypeVar("S", bound=_Spec)
T = TypeVar("T")


def member_names(specs: Sequence[_Spec]) -> list[str]:
    """Each member's name: its own, else its spec, with ``#2``, ``#3`` on repeats.

    Reports name members, so two members on the same spec still need two names.
    """
    names: list[str] = []
    for spec in specs:
        base = spec.name or spec.judge.strip()
        name, k = base, 1
        while name in names:
            k += 1
            name = f"{base}#{k}"
        names.append(name)
    return names


def check_run_args(
    session: JudgeSession | None,
    store: Store | str | PathLike[str] | None,
    options: RunOptions | None,
) -> None:
    """Refuse a store or run options next to a session, which carries its own.

    Raises:
        ConfigError: ``store`` or ``options`` given with ``session``.
    """
    if session is not None and (store is not None or options is not None):
        raise ConfigError("store= and options= do not apply with session=; set them on it")


class Panel(Closing, Generic[M]):
    """Several judges on one session: the checks, the session and the usage of a jury.

    Args:
        members: At least two members, with unique names and positive weights.
        session: The session the model members run on; default theirs.
        owns_session: Close ``session`` when the panel closes.

    Raises:
        ConfigError: Fewer than two members, a repeated name, a weight that is not a
            positive number, what :meth:`_check_panel` refuses, or model members on
            different sessions.
    """

    #: The members' judges of this type call a model on the panel's session.
    _model_type: ClassVar[type[SessionJudge]]

    def __init__(
        self,
        members: Sequence[M],
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
        self._check_panel()
        models = [self._model(i) for i in self._model_indices()]
        if self.session is None and models:
            self.session = models[0].session
        if any(j.session is not self.session for j in models):
            raise ConfigError("every model member of a jury must run on the jury's one session")

    def _check_panel(self) -> None:
        """Refuse members that cannot sit on one panel together; a subclass's own check."""

    @classmethod
    def _assemble(
        cls,
        specs: Sequence[S],
        member: Callable[[S, str, JudgeSession | None], M],
        *,
        session: JudgeSession | None,
        store: Store | str | PathLike[str] | None,
        options: RunOptions | None,
    ) -> Self:
        """Open the panel's own session when a model member needs one, then build it.

        The session is closed again when any member or the panel fails, so that a
        bad spec leaves no connection open.

        Args:
            specs: The members, as configured.
            member: Resolves one spec, under its name, on the session.
            session: A session given by the caller; else one is opened.
            store: The store or its path, for a session of the panel's own.
            options: Run options, for a session of the panel's own.

        Raises:
            ConfigError: A store or options for a panel that calls no model.
        """
        if (store is not None or options is not None) and all(s.is_python for s in specs):
            raise ConfigError(
                "the store and run options (--store, --max-calls, --concurrency, ...) do not "
                "apply to a jury of Python callables (they are called directly); drop them"
            )
        own = session is None and any(not s.is_python for s in specs)
        if own:
            session = JudgeSession(store=store, options=options)
        try:
            members = [
                member(spec, name, session)
                for spec, name in zip(specs, member_names(specs), strict=True)
            ]
            return cls(members, session=session, owns_session=own)
        except BaseException:
            if own and session is not None:
                session.close()
            raise

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

    def _model_indices(self) -> list[int]:
        """Where the model members sit: their calls go to the session as one batch."""
        return [i for i, m in enumerate(self.members) if isinstance(m.judge, self._model_type)]

    def _model(self, i: int) -> SessionJudge:
        """Member ``i``'s judge, which calls a model (the subclass's ``_model_type``)."""
        judge = self.members[i].judge
        assert isinstance(judge, self._model_type)
        return judge

    def _run_models(
        self, jobs: list[Job[Any]], parse: ReplyParser[Any], progress: ProgressCallback | None
    ) -> Replies[Reply]:
        """Run the model members' jobs as one batch (``stopped`` set on a spent budget).

        The Python members still answer after a stop; the caller marks every
        member's answers with it.
        """
        assert self.session is not None  # checked in __init__: model members share it
        return self.session.run(jobs, parse, progress=progress)

    @staticmethod
    def _stop_all(out: Sequence[Sequence[T]]) -> list[Replies[T]]:
        """Every member's answers, each marked with the panel's budget stop, if any.

        A stop in any member's batch (the shared session's, or a Python member's)
        stops the panel: each member's list says so, whichever one a caller reads.
        """
        stopped = stopped_by(*out)
        return [Replies(own, stopped=stopped) for own in out]

    def _answer_directly(
        self, skip: Sequence[int], answer: Callable[[M], T], out: list[T]
    ) -> dict[int, float]:
        """Every member not in ``skip`` answers into ``out``; returns each one's wall time.

        These members call no model, so their latency is what their batch took.
        """
        wall: dict[int, float] = {}
        for i, m in enumerate(self.members):
            if i not in skip:
                start = time.perf_counter()
                out[i] = answer(m)
                wall[i] = time.perf_counter() - start
        return wall

    def _usage(
        self, replies: Sequence[Sequence[Reply]], wall: dict[int, float]
    ) -> tuple[MemberUsage, ...]:
        """Each member's usage; a call shared by members is charged to the first."""
        charged: set[str] = set()
        usage = []
        for i, own in enumerate(replies):
            if i in wall or self.session is None:
                usage.append(no_model_usage(own, wall.get(i, 0.0)))
            else:
                usage.append(model_usage(own, self.session.store, charged))
        return tuple(usage)

    def close(self) -> None:
        """Close the panel's own session (a shared one is its owner's to close)."""
        if self._owns_session and self.session is not None:
            self.session.close()
