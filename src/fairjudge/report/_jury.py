"""The jury report: one model of a ``jury`` run, rendered as tables or JSON.

:func:`jury_report` gathers the panel's result under its rule, the same verdicts
under the other rule, the per-member and panel diagnostics and the calls' summary
into a :class:`JuryReport`; :func:`render_jury` and :meth:`JuryReport.to_dict` both
read it, so the table and the JSON cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
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
from fairjudge.report._adaptive import items_cell, stop_lines, stop_verdict, win_cell
from fairjudge.report._comparison import labelled_truth, verdict_line
from fairjudge.report._panel import (
    PanelReport,
    effective_text,
    member_label,
    panel_report,
    partial_note,
    print_calls,
    print_legend,
)
from fairjudge.report._text import calls_text, ci_text, estimate_text, markup, print_failures, say
from fairjudge.runner import RunSummary
from fairjudge.stats import AgreementResult

if TYPE_CHECKING:
    from fairjudge.evaluation import AdaptiveResult

__all__ = ["JuryReport", "jury_report", "render_jury"]


@dataclass(frozen=True, slots=True)
class JuryReport(PanelReport[JuryResult, JuryDiagnostics]):
    """Everything a ``jury`` run shows (see :class:`~fairjudge.report._panel.PanelReport`).

    The other rule's readings show as its win rate; each member's usage is part of
    its diagnostics. ``adaptive`` is the adaptive run (``--stop-when``) whose judged
    items ``result`` holds: the JSON adds its ``"adaptive"`` block, the table its
    lines, and after an early stop the verdict is its anytime-valid interval's.
    """

    adaptive: AdaptiveResult[JuryResult] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The panel's JSON, plus the ``"adaptive"`` block after ``--stop-when``."""
        out = PanelReport.to_dict(self)
        if self.adaptive is not None:
            out["adaptive"] = self.adaptive.adaptive_dict()
        return out

    def alternative_dict(self, alternative: JuryResult) -> Any:
        """The win rate under another rule."""
        return alternative.win_rate.to_dict() if alternative.win_rate else None


def jury_report(
    result: JuryResult,
    *,
    title: str,
    run: RunSummary | None = None,
    skipped: Sequence[dict[str, Any]] = (),
    adaptive: AdaptiveResult[JuryResult] | None = None,
) -> JuryReport:
    """Build the report of one jury run (computes the diagnostics and the other rule)."""
    report = panel_report(JuryReport, result, AGGREGATIONS, jury_diagnostics, title=title,
                          run=run, skipped=skipped)  # fmt: skip
    return report if adaptive is None else replace(report, adaptive=adaptive)


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
    judged = f"{result.n_items - result.n_unresolved} of {result.n_items}"
    table.add_row("items judged", items_cell(judged, report.adaptive))
    table.add_row(
        f"win rate of model 1 ({result.aggregation})",
        win_cell(_num(result.win_rate), report.adaptive),
    )
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
    table.add_row("effective number of judges", effective_text(diag.effective))
    if diag.human is not None:
        table.add_row("panel vs humans (S1 / kappa)", _human(diag.human))
    run = report.run
    if run is not None:
        table.add_row("calls", calls_text(run))
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


def _matrix_table(report: JuryReport) -> Table:
    names = report.result.names
    title = "share of items with the same vote"
    # Numbered columns make a narrow table; a title wider than it would wrap.
    table = Table(title=title, header_style="bold", min_width=len(title) + 4)
    table.add_column("", overflow="fold")
    for k in range(len(names)):
        table.add_column(member_label(k), overflow="fold")
    agreement = report.diagnostics.agreement
    for k, row in enumerate(agreement):
        table.add_row(member_label(k), *("n/a" if math.isnan(x) else f"{x:.2f}" for x in row))
    if any(math.isnan(x) for row in agreement for x in row):  # --json: null
        table.caption = "n/a: no item was resolved by every member"
    return table


def render_jury(report: JuryReport, console: Console) -> None:
    """Print the panel table, the members table and the agreement matrix."""
    print_failures(report.failures, console)
    print_legend(console, report.result.names, report.result.weights)
    console.print(_panel_table(report))
    console.print(_members_table(report))
    print_calls(
        console, [(m.calls, m.cached, m.failed, m.usage) for m in report.diagnostics.members]
    )
    console.print(_matrix_table(report))
    s = report.result.settings
    say(
        console,
        f"aggregate={report.result.aggregation} rule={s.rule.value} rounds={s.rounds} "
        f"seed={s.seed}; figures use the {report.diagnostics.n_complete} items every member "
        "resolved; an item a member could not resolve is unresolved for the panel.",
    )
    partial_note(report.result.stopped, console)
    for text in stop_lines(report.adaptive) if report.adaptive is not None else ():
        say(console, text)
    r = report.result
    line = stop_verdict(report.adaptive) or verdict_line(
        r.win_rate, failed=bool(report.failures), stopped=r.stopped, n_items=r.n_items,
        subject="the panel",
    )  # fmt: skip
    console.print(f"[bold]{line}[/bold]", highlight=False)
    pairs = [(j.item, j.outcome) for j in r.judgments]
    for sentence in labelled_truth(pairs, r.win_rate, "The panel's result"):
        say(console, sentence)
