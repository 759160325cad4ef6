"""The two panel reports: a ``jury`` run's and a scoring panel's, as tables or JSON.

:func:`jury_report` (pairwise verdicts) and :func:`score_jury_report` (rubric scores)
gather the panel's result under its rule, the same readings under the other rule,
the diagnostics and the calls' summary into one model on
:class:`~fairjudge.report._panel.PanelReport`; the renderers (:func:`render_jury`,
:func:`render_score_jury`) and ``to_dict`` both read it, so the table and the JSON
cannot disagree.
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
    SCORE_AGGREGATIONS,
    JuryDiagnostics,
    JuryResult,
    JuryScoreDiagnostics,
    JuryScoreResult,
    Rate,
    WinRate,
    jury_diagnostics,
    score_jury_diagnostics,
)
from fairjudge.report._adaptive import items_cell, stop_lines, stop_verdict, win_cell
from fairjudge.report._comparison import labelled_truth, verdict_line
from fairjudge.report._panel import (
    LOCAL,
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
from fairjudge.stats import AgreementResult

if TYPE_CHECKING:
    from fairjudge.evaluation import AdaptiveResult, DimensionSummary
    from fairjudge.stats import CorrelationResult, KrippendorffAlpha

__all__ = [
    "AGREEMENT_BAR",
    "JuryReport",
    "JuryScoreReport",
    "conclusions",
    "jury_report",
    "member_reasoning",
    "reasoning_by_member",
    "reasoning_text",
    "render_jury",
    "render_score_jury",
    "score_jury_report",
]


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
        out = _with_reasoning(PanelReport.to_dict(self), self.result)
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


def member_reasoning(result: JuryResult | JuryScoreResult) -> tuple[int | None, ...] | None:
    """Each member's reasoning tokens this run (``None``: not reported); ``None`` without usage."""
    usage = result.member_usage
    return None if None in usage else tuple(u.reasoning_tokens for u in usage if u is not None)


def reasoning_text(result: JuryResult | JuryScoreResult, run: RunSummary | None) -> str | None:
    """The panel's reasoning tokens in words; ``None`` when there are none.

    The run's total is unknown (``calls.reasoning_tokens`` is ``null``) when any reply
    did not report its own (an Anthropic model that thought); the members that did
    report still have theirs, so the text gives their sum as the known part and
    names the members left out, instead of nothing.
    """
    per, total = member_reasoning(result), run.reasoning_tokens if run is not None else None
    if per is None:  # no usage by member (a library result): the run's own total
        if run is None or total == 0:
            return None
        return "not reported" if total is None else f"{total} of {run.output_tokens} output"
    if not any(n is None or n for n in per):
        return None
    known, unreported = _known_reasoning(per)
    missing = [member_label(k) for k in unreported]
    out = run.output_tokens if run is not None else sum(u.output_tokens for u in result.usage)
    return f"{known} of {out} output" if not missing else (
        f"{known} known; not reported by {', '.join(missing)} (the provider's usage does "
        "not count thinking apart from the output)"
    )  # fmt: skip


def reasoning_by_member(result: JuryResult | JuryScoreResult) -> str | None:
    """``#1 10240, #2 not reported, #3 —``: each member's; ``None`` when none has any to tell.

    ``—`` (:data:`~fairjudge.report._panel.LOCAL`) is a member that calls no model,
    as in the calls by member: its 0 is no measurement.
    """
    per = member_reasoning(result)
    if per is None or not any(n is None or n for n in per):
        return None
    cells = [LOCAL if u.local else "not reported" if n is None else str(n)
             for u, n in zip(result.usage, per, strict=True)]  # fmt: skip
    return ", ".join(f"{member_label(k)} {cell}" for k, cell in enumerate(cells))


def _print_reasoning(console: Console, result: JuryResult | JuryScoreResult) -> None:
    """Each member's reasoning tokens, under the calls by member (a run without shows none)."""
    if (cells := reasoning_by_member(result)) is not None:
        say(console, f"reasoning tokens by member (of its output tokens): {cells}")


def _with_reasoning(out: dict[str, Any], result: JuryResult | JuryScoreResult) -> dict[str, Any]:
    """The JSON with the members' known reasoning tokens, and those that reported none.

    ``calls.reasoning_tokens`` stays the run's total (as the ``--out`` header keeps
    it), ``null`` when any reply did not report its own; ``reasoning_tokens_known``
    is the sum over the members that did, ``reasoning_not_reported_by`` the names of
    those that did not (``[]``: the known sum is the whole). Neither without usage
    by member.
    """
    per = member_reasoning(result)
    if per is not None:
        known, missing = _known_reasoning(per)
        out["reasoning_tokens_known"] = known
        out["reasoning_not_reported_by"] = [result.names[k] for k in missing]
    return out


def _known_reasoning(per: Sequence[int | None]) -> tuple[int, list[int]]:
    """The members' reasoning tokens summed where reported; the members (indexes) not reporting."""
    return sum(n for n in per if n is not None), [k for k, n in enumerate(per) if n is None]


def _members_cell(n: int) -> str:
    return f"{n}: " + ", ".join(member_label(k) for k in range(n)) + " (named above)"


def _num(x: Rate | WinRate | None) -> str:
    return "n/a" if x is None else markup(estimate_text(x.estimate, x.ci, ".3f", ".2f"))


def _human(h: AgreementResult | None) -> str:
    """``S1 / kappa``; an undefined kappa (chance agreement 1) is ``n/a (why)``, as calibrate's."""
    if h is None:
        return "n/a"
    kappa = f"n/a ({h.kappa_ci.reason})" if math.isnan(h.kappa) else f"{h.kappa:.3f}"
    return markup(f"{h.s1.estimate:.3f} / {kappa}")


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
        f"win rate of model 1 ({result.mean_reading()[0]})",
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
    if (reasoning := reasoning_text(result, run)) is not None:
        table.add_row("reasoning tokens", markup(reasoning))
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
    _print_reasoning(console, report.result)
    console.print(_matrix_table(report))
    s = report.result.settings
    say(
        console,
        f"aggregate={report.result.aggregation} rule={s.rule.value} rounds={s.rounds} "
        f"seed={s.seed}; figures use the {report.diagnostics.n_complete} items every member "
        "resolved; an item a member could not resolve is unresolved for the panel.",
    )
    if (labels := report.result.mean_reading()[1]) is not None:  # a mean of labels, said
        console.print(f"[yellow]note:[/yellow] {markup(labels)}", highlight=False)
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
        """Each member's calls, tokens, reasoning tokens, cost and latency."""
        return {"member_usage": [u.to_dict() for u in self.result.usage]}

    def to_dict(self) -> dict[str, Any]:
        """The panel's JSON, with the members' known reasoning tokens beside ``calls``."""
        return _with_reasoning(PanelReport.to_dict(self), self.result)


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


def _score_panel_table(report: JuryScoreReport) -> Table:
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


def _score_members_table(report: JuryScoreReport) -> Table:
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
    if a.ci.cannot_vary:  # every resample gave it: its point rules nothing in or out
        return f"{name}: no conclusion on agreement ({figure}): no verdict rests on it."
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
    console.print(_score_panel_table(report))
    for alt in report.alternatives:
        console.print(_alternative_table(alt))
    console.print(_spread_table(report))
    console.print(_agreement_table(report))
    console.print(_score_members_table(report))
    failed = [own.n_parse_failures + own.n_call_errors for own in result.members]
    usage = result.member_usage
    print_calls(console, [(None, None, n, u) for n, u in zip(failed, usage, strict=True)])
    _print_reasoning(console, result)
    line = f"answers fully scored by the panel: {result.n_items - result.n_unscored} of "
    line += f"{result.n_items}"
    if report.run is not None:
        line += f"; calls: {calls_text(report.run)}"
    if (reasoning := reasoning_text(result, report.run)) is not None:
        line += f"; reasoning tokens: {reasoning}"
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
