"""What every panel's report shows the same way, whatever its members read.

A jury's report and a scoring panel's report are one model each (the result under
its rule, the same readings under the other rules, the diagnostics, the run): that
model is :class:`PanelReport`, on the shared :class:`~fairjudge.report._text.ReportFrame`,
and its JSON is written once. So are the parts of the table a panel adds to any
report: the legend that names each member's number, the calls by member and the
note on members that call no model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from rich.console import Console
from rich.table import Table

from fairjudge.report._text import ReportFrame, estimate_text, markup, say
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge.judges import MemberUsage
    from fairjudge.stats import EffectiveJudges

__all__ = [
    "LOCAL",
    "PanelReport",
    "calls_table",
    "effective_text",
    "member_label",
    "panel_report",
    "partial_note",
    "print_calls",
    "print_legend",
    "print_local_note",
]


class _Result(Protocol):
    """A panel's result (a JuryResult, a JuryScoreResult), as its report reads it."""

    @property
    def aggregation(self) -> str: ...

    @property
    def failures(self) -> Counter[str]: ...

    def to_dict(self) -> dict[str, Any]: ...


class _Diagnostics(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=_Result)
D = TypeVar("D", bound=_Diagnostics)
P = TypeVar("P", bound="PanelReport[Any, Any]")

LOCAL = "—"
"""The tokens and cost cells of a member that calls no model (a Python judge, a replay),
and the made and cached cells of one that answers without a call (a replay)."""


@dataclass(frozen=True, slots=True)
class PanelReport(ReportFrame, Generic[R, D]):
    """Everything a panel's run shows.

    Attributes:
        title: What was judged, e.g. the input file's name.
        result: The panel's result under its rule.
        alternatives: The same readings under the other aggregation rule(s).
        diagnostics: Per-member and panel figures (agreement, effective size).
        run: The model members' calls (one run for the panel); ``None`` without any.
        skipped: Input rows skipped with ``skip_invalid``.
    """

    title: str
    result: R
    alternatives: tuple[R, ...]
    diagnostics: D
    run: RunSummary | None = None
    skipped: tuple[dict[str, Any], ...] = ()

    def alternative_dict(self, alternative: R) -> Any:
        """What the JSON shows of the readings under another rule (a kind's own)."""
        raise NotImplementedError

    def usage_dict(self) -> dict[str, Any]:
        """The members' usage, where a kind's JSON lists it apart from its diagnostics."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        """The JSON: summary, other rules, diagnostics, usage, failures, calls, skipped rows."""
        return {
            **self.result.to_dict(),
            "alternative_aggregations": {
                a.aggregation: self.alternative_dict(a) for a in self.alternatives
            },
            **self.diagnostics.to_dict(),
            **self.usage_dict(),
            **self.run_dict(),
        }


def panel_report(
    cls: type[P],
    result: Any,
    rules: Sequence[str],
    diagnose: Callable[[Any], Any],
    *,
    title: str,
    run: RunSummary | None,
    skipped: Sequence[dict[str, Any]],
) -> P:
    """Build a panel's report: the diagnostics and the same readings under the other rules."""
    others = tuple(result.with_aggregation(a) for a in rules if a != result.aggregation)
    return cls(title, result, others, diagnose(result), run, tuple(skipped))


def member_label(k: int) -> str:
    """The short label of the ``k``-th member (from 0) in every table: ``#1``, ``#2``, ...

    Members' names are judge specs such as ``python:examples.judges:longer``: at 80
    columns a table cuts them to ``python:e…`` and two members read alike. A table
    shows the number, and :func:`print_legend` names each number in full.
    """
    return f"#{k + 1}"


def print_legend(console: Console, names: Sequence[str], weights: Sequence[float]) -> None:
    """Name each member's number in full, one line each; a long name wraps, never cut."""
    say(console, "members:")
    for k, (name, weight) in enumerate(zip(names, weights, strict=True)):
        say(console, f"  {member_label(k)}  {name}  (weight {weight:g})", overflow="fold")


def print_calls(
    console: Console, rows: Sequence[tuple[int | None, int | None, int, MemberUsage | None]]
) -> None:
    """The calls by member (:func:`calls_table`), and the members that call no model."""
    console.print(calls_table(rows))
    print_local_note(console, [u for *_, u in rows])


def calls_table(rows: Sequence[tuple[int | None, int | None, int, MemberUsage | None]]) -> Table:
    """Per member: calls asked, made now, from the store, failed; tokens, cost, latency.

    Args:
        rows: Per member, its calls and cached calls (``None``: its usage's), its
            failed calls and its usage (``None`` when the panel recorded none).
    """
    table = Table(title="calls by member (this run; a stored call costs 0)", header_style="bold")
    for head in ("member", "calls", "made", "cached", "failed", "tokens in / out", "cost",
                 "mean latency"):  # fmt: skip
        table.add_column(head, overflow="fold")
    for k, (calls, cached, failed, u) in enumerate(rows):
        if u is not None:  # counts a member's row lacks are its usage's
            calls = u.calls if calls is None else calls
            cached = u.cached if cached is None else cached
        asked = "n/a" if calls is None else str(calls)
        if u is None:
            cells = ("n/a", "n/a" if cached is None else str(cached), "n/a", "n/a", "n/a")
        else:
            # A Python judge's calls are made (or cached) on the engine, as a model's
            # are, and the panel's calls line counts them; only a replay makes none.
            made, stored = (LOCAL, LOCAL) if u.made is None else (str(u.made), str(cached))
            tokens = f"{u.input_tokens} / {u.output_tokens}"
            cost = "n/a" if u.cost_usd is None else f"${u.cost_usd:.4f}"
            if u.local:
                tokens = cost = LOCAL
            cells = (made, stored, tokens, cost, _latency(u))
        made, stored, tokens, cost, latency = cells
        table.add_row(member_label(k), asked, made, stored, str(failed), tokens, cost, latency)
    return table


def effective_text(effective: EffectiveJudges | str) -> str:
    """The effective number of judges with its interval, of how many; or why not computed."""
    if isinstance(effective, str):
        return markup(effective)
    e = effective
    return markup(f"{estimate_text(e.estimate, e.ci, '.2f')} of {e.n_members}")


def _latency(usage: MemberUsage) -> str:
    return "n/a" if usage.latency_s is None else f"{usage.latency_s:.3f} s"


def print_local_note(console: Console, usage: Sequence[MemberUsage | None]) -> None:
    """Say what each ``—`` stands for: no model (no tokens, no cost), or no call at all."""
    called = [k for k, u in enumerate(usage) if u is not None and u.local and u.made is not None]
    replayed = [k for k, u in enumerate(usage) if u is not None and u.local and u.made is None]
    if called:
        say(console, f"{LOCAL}: {_labels(called)} call a Python function, not a model: no "
            "tokens, nothing to pay for.")  # fmt: skip
    if replayed:
        say(console, f"{LOCAL}: {_labels(replayed)} answered without a call (a replay reads "
            "its recording): none made or cached, nothing to pay for.")  # fmt: skip


def _labels(members: Sequence[int]) -> str:
    return ", ".join(member_label(k) for k in members)


def partial_note(stopped: str | None, console: Console) -> None:
    """Say that the budget cut the run short, so a partial result is not read as whole."""
    if stopped is not None:
        console.print(
            "[yellow]partial result:[/yellow] stopped by the budget before every call was made.",
            highlight=False,
        )
