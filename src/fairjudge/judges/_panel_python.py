"""Python members of a panel: the panel's run options, store and budget, as one judge's.

A single Python judge runs on the engine with the run options and (when it declares
a name and version) the store; a panel's Python members get the same, from the
panel, so ``--concurrency``, retries, progress and the store apply to them too, and
``max_calls`` is one budget for the whole panel rather than one per member.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Any, TypeVar

from fairjudge._errors import ConfigError
from fairjudge._words import worded
from fairjudge.judges._callable import PythonFunction
from fairjudge.judges._own_judge import interrupt_note, set_interrupt_note

if TYPE_CHECKING:
    from fairjudge.runner import RunOptions, RunSummary, Store

__all__ = ["PythonRun", "budget_message", "interrupted_member", "panel_run", "python_budget"]

J = TypeVar("J", bound=PythonFunction)

_MODEL_ONLY = ("tpm", "max_cost", "prices")
"""Run options only model members can honour (a Python judge reports no tokens or cost)."""


@dataclasses.dataclass(frozen=True, slots=True)
class PythonRun:
    """What a panel hands its Python members: its run options and its store.

    Attributes:
        options: The panel's run options (``None``: a Python judge's defaults).
        store: The panel's store or its path (``None``: the default store, for a
            declared member).
    """

    options: RunOptions | None
    store: Store | str | PathLike[str] | None

    def build(self, make: Callable[[RunOptions | None, Any], J], *, mixed: bool) -> J:
        """A Python member, made by ``make(options, store)``: the store only if it declares.

        An undeclared member is never cached, so it gets no store (a store for it
        alone is refused, as for one judge: :meth:`check_store`). On a panel with
        model members (``mixed``), the token and cost options are the model members'
        and are not handed on; on a panel of Python members alone they are refused.
        """
        options = self.options
        if options is not None and mixed:
            from fairjudge.runner import RunOptions

            default = RunOptions()
            options = dataclasses.replace(
                options, **{name: getattr(default, name) for name in _MODEL_ONLY}
            )
        judge = make(options, None)
        if self.store is not None and judge.declared:
            judge.close()  # nothing opened yet: its session opens at its first batch
            judge = make(options, self.store)
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
    from fairjudge.runner import RunSummary

    total = RunSummary.total_of(runs)
    if total is None or len(runs) <= 1:
        return total
    return dataclasses.replace(total, stopped=next((r.stopped for r in runs if r.stopped), None))


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
            "run again with a larger budget to continue (stored calls cost nothing).",
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
