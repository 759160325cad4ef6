"""The scoring-panel report: one model of a ``score --judge A --judge B`` run.

:func:`score_jury_report` gathers the panel's result under its rule, the same scores
under the other rule, the per-dimension diagnostics and the calls' summary into a
:class:`JuryScoreReport`; :func:`render_score_jury` and :meth:`JuryScoreReport.to_dict`
both read it, so the table and the JSON cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from fairjudge.evaluation import (
    SCORE_AGGREGATIONS,
    JuryScoreDiagnostics,
    JuryScoreResult,
    score_jury_diagnostics,
)
from fairjudge.report._comparison import verdict_line
from fairjudge.report._panel import (
    PanelReport,
    effective_text,
    member_label,
    panel_report,
    partial_note,
    print_calls,
    print_legend,
)
from fairjudge.report._scores import (
    alarm_cell,
    histogram_cell,
    human_cell,
    mean_cell,
    mean_text,
    median_cell,
)
from fairjudge.report._text import (
    bootstrap_text,
    calls_text,
    ci_text,
    estimate_text,
    markup,
    print_failures,
    say,
)
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge.evaluation import DimensionSummary
    from fairjudge.stats import CorrelationResult, KrippendorffAlpha

__all__ = ["AGREEMENT_BAR", "JuryScoreReport", "conclusions", "render_score_jury",
           "score_jury_report"]  # fmt: skip

AGREEMENT_BAR = 0.667
"""The ordinal alpha a panel must reach to agree: Krippendorff's (2004) lowest bar.

He relies on data with alpha >= 0.800 and draws tentative conclusions from data with
alpha >= 0.667; below that, scores that disagree this much are not one measurement.
The conclusion asks the whole interval to clear the bar, as compare's asks it to
clear 0.5, so that a small panel's lucky alpha is not read as agreement.
"""


class JuryScoreReport(PanelReport[JuryScoreResult, JuryScoreDiagnostics]):
    """Everything a scoring panel's run shows (see :class:`~fairjudge.report._panel.PanelReport`).

    The other rule's readings show as its summary per dimension; the members' usage
    is listed apart (``member_usage``).
    """

    __slots__ = ()

    def alternative_dict(self, alternative: JuryScoreResult) -> Any:
        """The summary per dimension under another rule."""
        return [d.to_dict() for d in alternative.dimensions]

    def usage_dict(self) -> dict[str, Any]:
        """Each member's calls, tokens, cost and latency."""
        return {"member_usage": [u.to_dict() for u in self.result.usage]}


def score_jury_report(
    result: JuryScoreResult,
    *,
    title: str,
    run: RunSummary | None = None,
    skipped: Sequence[dict[str, Any]] = (),
) -> JuryScoreReport:
    """Build the report of one scoring panel's run (diagnostics and the other rule)."""
    return panel_report(JuryScoreReport, result, SCORE_AGGREGATIONS, score_jury_diagnostics,
                        title=title, run=run, skipped=skipped)  # fmt: skip


def _panel_table(report: JuryScoreReport) -> Table:
    """The panel's scores per dimension, without the distribution (see _spread_table).

    At 80 columns one table of eight columns cut dimension names and headers
    (``accurac… median``); two narrower tables leave every word whole.
    """
    result = report.result
    level = round(result.level * 100)
    title = (
        f"{report.title}: a panel of {len(result.names)} ({result.aggregation}), rubric "
        f"{result.rubric_tag}, scale {result.rubric.scale_text}"
    )
    table = Table(title=markup(title), header_style="bold")
    human = any(d.human is not None for d in result.dimensions)
    headers = ["dimension", f"mean  [{level}% CI]", f"median  [{level}% CI]", "n", "unscored"]
    headers += ["Spearman vs human"] if human else []
    for head in headers:
        table.add_column(markup(head), overflow="fold")
    for d in result.dimensions:
        row = [markup(d.name), mean_cell(d), median_cell(d), str(d.n), str(result.unscored[d.name])]
        table.add_row(*row + ([human_cell(d)] if human else []))
    return table


def _spread_table(report: JuryScoreReport) -> Table:
    """How the panel's scores spread over the scale, and the collapse alarm."""
    table = Table(title="the panel's scores over the scale", header_style="bold")
    for head in ("dimension", "histogram (nearest level)", "collapse"):
        table.add_column(head, overflow="fold")
    for d in report.result.dimensions:
        table.add_row(markup(d.name), histogram_cell(d), alarm_cell(d))
    return table


def _alternative_table(alt: JuryScoreResult) -> Table:
    """The same members' scores under another rule: its own table, so names stay whole."""
    level = round(alt.level * 100)
    table = Table(title=f"the same scores, {alt.aggregation} of the members", header_style="bold")
    for head in ("dimension", f"mean  [{level}% CI]", f"median  [{level}% CI]"):
        table.add_column(head, overflow="fold")
    for d in alt.dimensions:
        table.add_row(markup(d.name), mean_cell(d), median_cell(d))
    return table


def _alpha(a: KrippendorffAlpha | str) -> str:
    if isinstance(a, str):
        return markup(a)
    return "n/a" if math.isnan(a.alpha) else markup(estimate_text(a.alpha, a.ci, ".3f", ".2f"))


def _agreement_table(report: JuryScoreReport) -> Table:
    table = Table(title="how much the members agree", header_style="bold")
    for head in ("dimension", "alpha (ordinal)", "alpha (interval)", "effective judges",
                 "scored by all"):  # fmt: skip
        table.add_column(head, overflow="fold")
    for d in report.diagnostics.dimensions:
        table.add_row(markup(d.dimension), _alpha(d.alpha_ordinal), _alpha(d.alpha_interval),
                      effective_text(d.effective), str(d.n_complete))  # fmt: skip
    return table


def _rho(c: CorrelationResult | str | None) -> str:
    if c is None:
        return ""
    if isinstance(c, str) or math.isnan(c.spearman):
        return "n/a"
    return markup(estimate_text(c.spearman, c.spearman_ci, ".2f"))


def _members_table(report: JuryScoreReport) -> Table:
    table = Table(title="members (Spearman with the rest: leave-one-out)", header_style="bold")
    human = any(m.human is not None for d in report.diagnostics.dimensions for m in d.members)
    for head in ["member", "weight", "dimension", "mean", "Spearman with rest"] + (
        ["Spearman vs human"] if human else []
    ):
        table.add_column(head, overflow="fold")
    for d in report.diagnostics.dimensions:
        for k, m in enumerate(d.members):
            row = [member_label(k), f"{m.weight:g}", markup(d.dimension), mean_text(m.mean),
                   _rho(m.with_rest)] + ([_rho(m.human)] if human else [])  # fmt: skip
            table.add_row(*row)
    return table


def _agreement_sentence(name: str, a: KrippendorffAlpha | str) -> str:
    if isinstance(a, str):
        return f"{name}: no conclusion on agreement: {a}."
    if math.isnan(a.alpha):
        return f"{name}: no conclusion on agreement: every member gave the same score throughout."
    figure = f"ordinal alpha {a.alpha:.2f} {ci_text(a.ci, '.2f')}"
    if not a.ci.estimable:
        return f"{name}: no conclusion on agreement: alpha's interval {ci_text(a.ci)}."
    if a.ci.low >= AGREEMENT_BAR:
        return (
            f"{name}: the members agree ({figure}: the whole interval is {AGREEMENT_BAR} or more)."
        )
    if a.ci.high < AGREEMENT_BAR:
        return (
            f"{name}: the members do not agree ({figure}: the whole interval is below "
            f"{AGREEMENT_BAR}); the panel's score averages judges that disagree."
        )
    return f"{name}: unclear whether the members agree ({figure} contains {AGREEMENT_BAR})."


def _truth_sentence(d: DimensionSummary) -> str | None:
    """The panel's scores against the input's human scores, when the dimension has them."""
    h = d.human
    if h is None:
        return None
    what = f"Known truth, from the input's human_{d.name} scores: "
    if isinstance(h, str):
        return what + f"not compared ({h})."
    if math.isnan(h.spearman) or not h.spearman_ci.estimable:
        return what + f"no conclusion: Spearman's interval {ci_text(h.spearman_ci)}."
    figure = f"Spearman {h.spearman:.2f} {ci_text(h.spearman_ci, '.2f')}, {h.n} answers"
    if h.spearman_ci.low > 0:
        return what + f"the panel's scores follow them ({figure}: the whole interval is above 0)."
    if h.spearman_ci.high < 0:
        return what + (
            f"the panel's scores run against them ({figure}: the whole interval is below 0): "
            "this panel is not good enough for this rubric."
        )
    return what + (
        f"the panel's scores cannot be told from no relation to them ({figure} contains 0): "
        "no conclusion, rather than a wrong one."
    )


def conclusions(report: JuryScoreReport) -> list[tuple[str, list[str]]]:
    """Per dimension: the conclusion on the members' agreement, and the known truth.

    With no panel score at all, one conclusion saying why (as compare's has when no
    item was resolved). Each is ``(conclusion, [sentences on the human scores])``.
    """
    result = report.result
    if all(d.n == 0 for d in result.dimensions):
        failed = bool(result.failures)
        return [
            (verdict_line(None, failed=failed, stopped=result.stopped, n_items=result.n_items), [])
        ]
    alphas = {d.dimension: d.alpha_ordinal for d in report.diagnostics.dimensions}
    out = []
    for d in result.dimensions:
        truth = _truth_sentence(d)
        out.append((_agreement_sentence(d.name, alphas[d.name]), [truth] if truth else []))
    return out


def render_score_jury(report: JuryScoreReport, console: Console) -> None:
    """Print the failures, the panel's scores, the agreement, the members and their calls."""
    result = report.result
    print_failures(result.failures, console)
    print_legend(console, result.names, result.weights)
    console.print(_panel_table(report))
    for alt in report.alternatives:
        console.print(_alternative_table(alt))
    console.print(_spread_table(report))
    console.print(_agreement_table(report))
    console.print(_members_table(report))
    failed = [own.n_parse_failures + own.n_call_errors for own in result.members]
    usage = result.member_usage
    print_calls(console, [(None, None, n, u) for n, u in zip(failed, usage, strict=True)])
    line = f"answers fully scored by the panel: {result.n_items - result.n_unscored} of "
    line += f"{result.n_items}"
    if report.run is not None:
        line += f"; calls: {calls_text(report.run)}"
    say(console, line)
    say(
        console,
        f"aggregate={result.aggregation} {bootstrap_text(result)}; an answer a member could "
        "not score is scored by the others only when they hold more than half of the weight, "
        "else unscored.",
    )
    partial_note(result.stopped, console)
    for d in result.dimensions:
        if d.collapse.collapsed:
            console.print("[red]collapse alarm:[/red] ", end="", highlight=False)
            say(console, f"{d.name}: {d.collapse.reason}.")
    for line, truth in conclusions(report):
        console.print(f"[bold]{markup(line)}[/bold]", highlight=False)
        for sentence in truth:
            say(console, sentence)
