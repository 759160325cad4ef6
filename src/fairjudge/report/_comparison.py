"""The comparison report: one model of a ``compare`` result, rendered as a table or JSON.

:func:`comparison_report` gathers everything a reader needs (the result, the same
calls under the other informative rule, the length-controlled win rate, the judge
calls' costs, the failures grouped by reason) into a :class:`ComparisonReport`.
The terminal table (:func:`render_comparison`) and the JSON (:meth:`ComparisonReport.to_dict`)
both render from it, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairjudge.evaluation import PairwiseResult, Rate, WinRate, length_controlled
from fairjudge.report._text import ci_text, failure_lines
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge.stats import LengthControlledWinRate

__all__ = ["ComparisonReport", "comparison_report", "render_comparison"]


@dataclass(frozen=True, slots=True)
class ComparisonReport:
    """Everything a ``compare`` run shows.

    Attributes:
        title: What was compared, e.g. the input file's name.
        result: The evaluation.
        alternatives: The same calls resolved under the other informative rule.
        length_control: The length-controlled win rate, or why it was not computed.
        run: The judge calls' counts, tokens and cost (``None`` for Python judges).
        skipped: Input rows skipped with ``--skip-invalid`` (source, line, message).
    """

    title: str
    result: PairwiseResult
    alternatives: tuple[PairwiseResult, ...]
    length_control: LengthControlledWinRate | str
    run: RunSummary | None
    skipped: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the result's summary plus the report's extras."""
        payload = self.result.to_dict()
        payload["alternative_rules"] = {
            a.settings.rule.value: a.win_rate.to_dict() if a.win_rate else None
            for a in self.alternatives
        }
        lc = self.length_control
        payload["length_controlled_win_rate"] = (
            {"skipped": lc} if isinstance(lc, str) else lc.to_dict()
        )
        payload["failures"] = dict(self.result.failures.most_common())
        payload["calls"] = self.run.to_dict() if self.run is not None else None
        payload["skipped_rows"] = list(self.skipped)
        return payload


def comparison_report(
    result: PairwiseResult,
    *,
    title: str,
    run: RunSummary | None = None,
    skipped: Sequence[dict[str, Any]] = (),
) -> ComparisonReport:
    """Build the report of one comparison (computes the length control and alternatives)."""
    # The other informative rule, from the same calls: the seed's conservative result
    # beside a soft one, or the soft one beside the seed's when probabilities exist.
    alternatives: tuple[PairwiseResult, ...] = ()
    if result.settings.rule.value != "conservative":
        alternatives = (result.with_rule("conservative"),)
    elif result.has_probabilities:
        alternatives = (result.with_rule("soft"),)
    lc = length_controlled(result)
    return ComparisonReport(title, result, alternatives, lc, run, tuple(skipped))


def _win(w: WinRate | None) -> str:
    return "n/a" if w is None else f"{w.estimate:.3f}  {ci_text(w.ci)}"


def _rate(r: Rate | None) -> str:
    if r is None:
        return "n/a"
    return f"{r.estimate:.3f}  {ci_text(r.ci)}  ({r.successes}/{r.n})"


def _verdict_line(result: PairwiseResult) -> str:
    w = result.win_rate
    if w is None:
        return "No item could be resolved: see the failures above."
    if not w.ci.estimable:
        return f"No conclusion: the win rate's interval {ci_text(w.ci)}."
    if w.ci.low > 0.5:
        return "Model 1 is better: the whole interval lies above 0.5."
    if w.ci.high < 0.5:
        return "Model 2 is better: the whole interval lies below 0.5."
    return "No clear winner: the interval contains 0.5."


def _table(report: ComparisonReport) -> Table:
    result = report.result
    level = round(result.settings.level * 100)
    table = Table(title=escape(report.title), show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column(f"value  [{level}% CI]")
    table.add_row("items judged", f"{result.n_items - result.n_unresolved} of {result.n_items}")
    label = "debiased" if result.debiased else "single order, NOT debiased"
    table.add_row(f"win rate of model 1 ({label})", _win(result.win_rate))
    w = result.win_rate
    if w is not None:
        table.add_row("wins / ties / losses", f"{w.wins} / {w.ties} / {w.losses}")
    lc = report.length_control
    if isinstance(lc, str):
        table.add_row("length-controlled win rate", escape(f"n/a: {lc}"))
    else:
        table.add_row("length-controlled win rate", f"{lc.estimate:.3f}  {ci_text(lc.ci)}")
    for alt in report.alternatives:
        table.add_row(f"  same calls, {alt.settings.rule.value} rule", _win(alt.win_rate))
    if result.debiased:
        table.add_row("single-order win rate (naive)", _win(result.single_order))
        table.add_row("position consistency", _rate(result.position_consistency))
        table.add_row("inconsistent items", str(result.n_inconsistent))
    table.add_row("calls choosing the first position", _rate(result.first_position_calls))
    table.add_row("parse failures", str(result.n_parse_failures))
    table.add_row("call errors", str(result.n_call_errors))
    run = report.run
    if run is not None:
        table.add_row("judge calls", f"{run.made} made, {run.cached} cached, {run.failed} failed")
        if run.input_tokens or run.output_tokens:
            cost = f", est. ${run.cost_usd:.4f}" if run.cost_usd else ""
            table.add_row("tokens (in / out)", f"{run.input_tokens} / {run.output_tokens}{cost}")
    return table


def render_comparison(report: ComparisonReport, console: Console) -> None:
    """Print the comparison table, the naive baseline beside it, and a plain verdict."""
    result = report.result
    for line in failure_lines(result.failures):
        console.print(line, highlight=False, markup=False)
    console.print(_table(report))
    s = result.settings
    console.print(
        f"rule={s.rule.value} rounds={s.rounds} seed={s.seed}; "
        "a parse failure or call error is never counted as a tie or a loss.",
        highlight=False,
        markup=False,
    )
    if not result.debiased and result.win_rate is not None:
        console.print(
            "[yellow]warning:[/yellow] each item was judged in one order only (--rounds 1): "
            "this win rate carries whatever position bias the judge has. "
            "Use --rounds 2 (the default) to debias it.",
            highlight=False,
        )
    if result.stopped is not None:
        console.print(
            f"[yellow]partial result:[/yellow] stopped by the budget before every call was "
            f"made; {result.n_not_run} item(s) not yet judged are left out.",
            highlight=False,
        )
    console.print(f"[bold]{_verdict_line(result)}[/bold]")
    w = result.win_rate
    if result.debiased and result.single_order is not None and w is not None:
        gap = result.single_order.estimate - w.estimate
        if abs(gap) >= 0.05:
            console.print(
                f"Asking once, in one order, would have been off by {gap:+.3f}: "
                "that is position bias the swap removed."
            )
