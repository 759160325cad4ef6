"""The jury report: one model of a ``jury`` run, rendered as tables or JSON.

:func:`jury_report` gathers the panel's result under its rule, the same verdicts
under the other rule, the per-member and panel diagnostics and the calls' summary
into a :class:`JuryReport`; :func:`render_jury` and :meth:`JuryReport.to_dict` both
read it, so the table and the JSON cannot disagree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from fairjudge.evaluation import (
    AGGREGATIONS,
    JuryDiagnostics,
    JuryResult,
    Rate,
    WinRate,
    jury_diagnostics,
)
from fairjudge.report._comparison import labelled_truth, verdict_line
from fairjudge.report._text import calls_text, ci_text, estimate_text, markup, print_failures, say
from fairjudge.runner import RunSummary
from fairjudge.stats import AgreementResult

if TYPE_CHECKING:
    from fairjudge.judges._jury_usage import MemberUsage

__all__ = [
    "JuryReport",
    "jury_report",
    "member_label",
    "print_legend",
    "print_local_note",
    "render_jury",
]


@dataclass(frozen=True, slots=True)
class JuryReport:
    """Everything a ``jury`` run shows.

    Attributes:
        title: What was compared.
        result: The panel's result under its rule.
        alternatives: The same verdicts under the other aggregation rule(s).
        diagnostics: Per-member and panel figures.
        run: The model members' calls (one run for the panel); ``None`` without any.
        skipped: Input rows skipped with ``--skip-invalid``.
    """

    title: str
    result: JuryResult
    alternatives: tuple[JuryResult, ...]
    diagnostics: JuryDiagnostics
    run: RunSummary | None
    skipped: tuple[dict[str, Any], ...] = ()

    @property
    def failures(self) -> Counter[str]:
        """Why calls failed, over every member, each reason prefixed by the member."""
        out: Counter[str] = Counter()
        for name, member in zip(self.result.names, self.result.members, strict=True):
            for reason, count in member.failures.items():
                out[f"{name}: {reason}"] += count
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        payload = self.result.to_dict()
        payload["alternative_aggregations"] = {
            a.aggregation: a.win_rate.to_dict() if a.win_rate else None for a in self.alternatives
        }
        payload.update(self.diagnostics.to_dict())
        payload["failures"] = dict(self.failures.most_common())
        payload["calls"] = self.run.to_dict() if self.run is not None else None
        payload["skipped_rows"] = list(self.skipped)
        return payload


def jury_report(
    result: JuryResult,
    *,
    title: str,
    run: RunSummary | None = None,
    skipped: Sequence[dict[str, Any]] = (),
) -> JuryReport:
    """Build the report of one jury run (computes the diagnostics and the other rule)."""
    others = tuple(result.with_aggregation(a) for a in AGGREGATIONS if a != result.aggregation)
    return JuryReport(title, result, others, jury_diagnostics(result), run, tuple(skipped))


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


def _members_cell(n: int) -> str:
    return f"{n}: " + ", ".join(member_label(k) for k in range(n)) + " (named above)"


def _num(x: Rate | WinRate | None) -> str:
    return "n/a" if x is None else markup(estimate_text(x.estimate, x.ci, ".3f", ".2f"))


def _human(h: AgreementResult | None) -> str:
    return "n/a" if h is None else f"{h.s1.estimate:.3f} / {h.kappa:.3f}"


def _panel_table(report: JuryReport) -> Table:
    result, diag = report.result, report.diagnostics
    level = round(result.settings.level * 100)
    table = Table(title=markup(report.title), header_style="bold")
    table.add_column("panel", overflow="fold")
    table.add_column(f"value  [{level}% CI]", overflow="fold")
    table.add_row("members", _members_cell(len(result.names)))
    table.add_row("items judged", f"{result.n_items - result.n_unresolved} of {result.n_items}")
    table.add_row(f"win rate of model 1 ({result.aggregation})", _num(result.win_rate))
    w = result.win_rate
    if w is not None:
        table.add_row("wins / ties / losses", f"{w.wins} / {w.ties} / {w.losses}")
    for alt in report.alternatives:
        table.add_row(f"  same verdicts, {alt.aggregation}", _num(alt.win_rate))
    fleiss = diag.fleiss
    table.add_row(
        "Fleiss' kappa (members' votes)",
        markup(fleiss if isinstance(fleiss, str) else f"{fleiss.kappa:.3f} {ci_text(fleiss.ci)}"),
    )
    eff = diag.effective
    table.add_row(
        "effective number of judges",
        markup(
            eff
            if isinstance(eff, str)
            else f"{estimate_text(eff.estimate, eff.ci, '.2f')} of {eff.n_members}"
        ),
    )
    if diag.human is not None:
        table.add_row("panel vs humans (S1 / kappa)", _human(diag.human))
    run = report.run
    if run is not None:
        table.add_row("model calls", calls_text(run))
    return table


def _members_table(report: JuryReport) -> Table:
    diag = report.diagnostics
    table = Table(title="members", header_style="bold")
    # The weight is in the legend (print_legend): without its column every word fits
    # at 80 columns; "fold" breaks a longer word rather than cut it.
    for head in ("member", "win rate", "position consistency", "first position",
                 "agrees with rest", "vs humans S1 / kappa"):  # fmt: skip
        table.add_column(head, overflow="fold")
    for k, m in enumerate(diag.members):
        table.add_row(
            member_label(k), _num(m.win_rate), _num(m.position_consistency),
            _num(m.first_position_calls), _num(m.agreement_with_panel), _human(m.human),
        )  # fmt: skip
    return table


def _cost(usage: MemberUsage) -> str:
    return "n/a" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"


def _latency(usage: MemberUsage) -> str:
    return "n/a" if usage.latency_s is None else f"{usage.latency_s:.3f} s"


def _calls_head() -> Table:
    """The empty calls-by-member table, so that both panels show their calls alike."""
    table = Table(title="calls by member (this run; a stored call costs 0)", header_style="bold")
    for head in ("member", "calls", "made", "cached", "failed", "tokens in / out", "cost",
                 "mean latency"):  # fmt: skip
        table.add_column(head, overflow="fold")
    return table


def _partial_note(stopped: str | None, console: Console) -> None:
    """Say that the budget cut the run short, so a partial result is not read as whole."""
    if stopped is not None:
        console.print(
            "[yellow]partial result:[/yellow] stopped by the budget before every call was made.",
            highlight=False,
        )


def _calls_table(report: JuryReport) -> Table:
    """Per member: calls asked, made now, from the store, failed; tokens, cost, latency."""
    table = _calls_head()
    for k, m in enumerate(report.diagnostics.members):
        u = m.usage
        if u is None:
            cells = ("n/a", str(m.cached), "n/a", "n/a", "n/a")
        elif u.local:
            cells = (LOCAL, LOCAL, LOCAL, LOCAL, _latency(u))
        else:
            tokens = f"{u.input_tokens} / {u.output_tokens}"
            cells = (str(u.made), str(m.cached), tokens, _cost(u), _latency(u))
        made, cached, tokens, cost, latency = cells
        table.add_row(member_label(k), str(m.calls), made, cached, str(m.failed), tokens, cost,
                      latency)  # fmt: skip
    return table


LOCAL = "—"
"""The made, cached, tokens and cost cells of a member that calls no model."""


def print_local_note(console: Console, usage: Sequence[MemberUsage | None]) -> None:
    """Name the members that call no model, whose calls were neither made nor cached."""
    local = [member_label(k) for k, u in enumerate(usage) if u is not None and u.local]
    if local:
        who = ", ".join(local)
        say(
            console,
            f"{LOCAL}: {who} called directly (a Python function or a replay): "
            "no model call made or cached, nothing to pay for.",
        )


def _matrix_table(report: JuryReport) -> Table:
    names = report.result.names
    title = "share of items with the same vote"
    # Numbered columns make a narrow table; a title wider than it would wrap.
    table = Table(title=title, header_style="bold", min_width=len(title) + 4)
    table.add_column("", overflow="fold")
    for k in range(len(names)):
        table.add_column(member_label(k), overflow="fold")
    for k, row in enumerate(report.diagnostics.agreement):
        table.add_row(member_label(k), *(f"{x:.2f}" for x in row))
    return table


def render_jury(report: JuryReport, console: Console) -> None:
    """Print the panel table, the members table and the agreement matrix."""
    print_failures(report.failures, console)
    print_legend(console, report.result.names, report.result.weights)
    console.print(_panel_table(report))
    console.print(_members_table(report))
    console.print(_calls_table(report))
    print_local_note(console, [m.usage for m in report.diagnostics.members])
    console.print(_matrix_table(report))
    s = report.result.settings
    say(
        console,
        f"aggregate={report.result.aggregation} rule={s.rule.value} rounds={s.rounds} "
        f"seed={s.seed}; figures use the {report.diagnostics.n_complete} items every member "
        "resolved; an item a member could not resolve is unresolved for the panel.",
    )
    _partial_note(report.result.stopped, console)
    r = report.result
    line = verdict_line(
        r.win_rate, failed=bool(report.failures), stopped=r.stopped, n_items=r.n_items,
        subject="the panel",
    )  # fmt: skip
    console.print(f"[bold]{line}[/bold]", highlight=False)
    pairs = [(j.item, j.outcome) for j in r.judgments]
    for sentence in labelled_truth(pairs, r.win_rate, "The panel's result"):
        say(console, sentence)
