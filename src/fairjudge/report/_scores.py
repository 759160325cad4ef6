"""The score report: one model of a ``score`` run, rendered as tables or JSON.

:func:`score_report` gathers the result, the judge calls' costs, the skipped rows and
the trend against a baseline (``--baseline``) into a :class:`ScoreReport`;
:func:`render_scores` (the terminal) and :meth:`ScoreReport.to_dict` (JSON) both read
that one model, so they cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from fairjudge._errors import worded
from fairjudge.evaluation import (
    DimensionSummary,
    PairwiseResult,
    ScoreResult,
    SystemDifference,
    WinRate,
)
from fairjudge.report._adaptive import stop_lines, stop_verdict, win_cell
from fairjudge.report._comparison import labelled_truth, verdict_line
from fairjudge.report._text import (
    ReportFrame,
    bootstrap_text,
    calls_text,
    estimate_text,
    ledger_rows,
    markup,
    print_failures,
    say,
)
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge.audit import ScoreCalibration
    from fairjudge.evaluation import (
        AdaptiveResult,
        DimensionShift,
        ScoreMean,
        ScoreTrend,
        ViaScoresResult,
    )
    from fairjudge.stats import RankCorrelation

__all__ = [
    "ScoreReport",
    "mean_text",
    "render_score_calibration",
    "render_scores",
    "render_trend",
    "render_via_scores",
    "score_report",
    "trend_caveats",
    "via_scores_verdict",
]


@dataclass(frozen=True, slots=True)
class ScoreReport(ReportFrame):
    """Everything a ``score`` run shows (on the shared :class:`ReportFrame`).

    Attributes:
        title: What was scored, e.g. the input file's name.
        result: The scores and their summaries.
        run: The judge calls' counts, tokens and cost (``None`` for Python judges).
        skipped: Input rows skipped with ``--skip-invalid`` (source, line, message).
        trend: This run against a baseline (``--baseline``), when one was given.
    """

    title: str
    result: ScoreResult
    run: RunSummary | None = None
    skipped: tuple[dict[str, Any], ...] = ()
    trend: ScoreTrend | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the result's summary plus the failures, calls and skipped rows."""
        trend = self.trend.to_dict() if self.trend is not None else None
        return {**self.result.to_dict(), **self.run_dict(), "trend": trend}


def score_report(
    result: ScoreResult,
    *,
    title: str,
    run: RunSummary | None = None,
    skipped: Sequence[dict[str, Any]] = (),
    trend: ScoreTrend | None = None,
) -> ScoreReport:
    """Build the report of one scoring run."""
    return ScoreReport(title, result, run, tuple(skipped), trend)


def mean_text(m: ScoreMean) -> str:
    """``mean  [low, high]``, or ``n/a`` when nothing was scored."""
    return "n/a" if m.estimate is None else estimate_text(m.estimate, m.ci, ".2f")


def _shift(d: DimensionShift) -> str:
    """The shift and its interval (marked "all alike" when the bootstrap could not vary)."""
    return "n/a" if d.shift is None else estimate_text(d.shift, d.ci, "+.2f")


def _test(d: DimensionShift) -> str:
    t = d.test
    return "n/a" if t.p_value is None else f"W1 {t.statistic:.2f}, {t.p_text()}"


def trend_caveats(trend: ScoreTrend | None) -> list[str]:
    """The trend's caveats, for the page's and the Markdown's headline.

    Runs compared though their settings differ, and what could not be checked: the
    lines the terminal prints under its table.
    """
    if trend is None:
        return []
    anyway = worded("Compared anyway (allow_different=True): ", "allow_different")
    return [*(f"{anyway}{d}." for d in trend.differences),
            *(f"Not checked: {n}." for n in trend.notes)]  # fmt: skip


def render_trend(trend: ScoreTrend, console: Console) -> None:
    """Print the shifts as a table, then one plain line per dimension."""
    level = round(trend.level * 100)
    table = Table(title=markup(f"since the baseline {trend.baseline}"), header_style="bold")
    headers = ("dimension", f"baseline  [{level}% CI]", f"this run  [{level}% CI]",
               f"shift  [{level}% CI]", "shared questions", "distribution change")  # fmt: skip
    # Squeezed, rich narrows every column alike, and at 80 columns the last header's
    # "distribution" came out as "distributi…": where the even share is too narrow
    # for it, that column is held at its longest word and the others wrap instead.
    word = max(len(w) for w in headers[-1].split())
    even_share = (console.width - len(headers) - 1) // len(headers) - 2
    for header in headers[:-1]:
        table.add_column(header)
    table.add_column(headers[-1], width=word if even_share < word else None)
    for d in trend.dimensions:
        table.add_row(markup(d.dimension), mean_text(d.baseline), mean_text(d.current),
                      _shift(d), str(d.n_shared), _test(d))  # fmt: skip
    console.print(table)
    for difference in trend.differences:
        anyway = worded(
            "[yellow]compared anyway (allow_different=True):[/yellow] ", "allow_different"
        )
        console.print(anyway, end="")
        say(console, difference)
    for note in trend.notes:  # the baseline's judge settings could not be checked
        console.print("[yellow]not checked:[/yellow] ", end="")
        say(console, note, soft_wrap=True)  # one line the terminal wraps: a long path stays whole
    for d in trend.dimensions:  # the --json's reading, word for word
        say(console, d.reading(), style={"up": "green", "down": "red"}.get(d.direction))
    say(
        console,
        f"shift: this run - baseline, bootstrap resampling whole questions; distribution "
        f"change: {trend.n_resamples} permutations of whole questions, seed {trend.seed}; "
        "each dimension is tested on its own.",
    )


def histogram_cell(d: DimensionSummary) -> str:
    return " ".join(f"{level}:{count}" for level, count in d.histogram.items())


def mean_cell(d: DimensionSummary) -> str:
    return mean_text(d.mean)


def median_cell(d: DimensionSummary) -> str:
    return "n/a" if d.median is None else markup(estimate_text(d.median, d.median_ci, "g", ".2f"))


def alarm_cell(d: DimensionSummary) -> str:
    if d.collapse.collapsed is None:
        return "not assessed"
    return "[red]COLLAPSED[/red]" if d.collapse.collapsed else "ok"


def human_cell(d: DimensionSummary) -> str:
    human = d.human
    if human is None:
        return ""
    if isinstance(human, str):
        return "n/a"
    return markup(estimate_text(human.spearman, human.spearman_ci, ".2f"))


def _dimension_table(report: ScoreReport) -> Table:
    result = report.result
    rubric = result.rubric
    level = round(result.level * 100)
    title = f"{report.title}: rubric {rubric.name}@{rubric.version}, scale {rubric.scale_text}"
    table = Table(title=markup(title), show_header=True, header_style="bold")
    expected = any(d.expected is not None for d in result.dimensions)
    human = any(d.human is not None for d in result.dimensions)
    headers = ["dimension", f"mean  [{level}% CI]", f"median  [{level}% CI]", "n", "histogram"]
    headers += ["collapse"] + (["prob.-weighted mean"] if expected else [])
    headers += ["Spearman vs human"] if human else []
    for header in headers:
        table.add_column(markup(header))
    for d in result.dimensions:
        row = [
            markup(d.name),
            mean_cell(d),
            median_cell(d),
            str(d.n),
            histogram_cell(d),
            alarm_cell(d),
        ]
        if expected:
            e = d.expected
            shown = "n/a" if e is None else markup(estimate_text(e.estimate, e.ci, ".2f"))
            row.append(shown)
        if human:
            row.append(human_cell(d))
        table.add_row(*row)
    return table


def _systems_table(result: ScoreResult) -> Table:
    table = Table(title="per system: mean", show_header=True, header_style="bold")
    table.add_column("system")
    table.add_column("items")
    for name in result.rubric.names:
        table.add_column(markup(name))
    for s in result.systems:
        cells = [mean_text(s.means[name]) for name in result.rubric.names]
        table.add_row(markup(s.system), str(s.n_items), *cells)
    return table


def _reading(diff: SystemDifference) -> str:
    d = diff.difference
    if d.estimate is None:
        return "no shared question"
    if not d.ci.estimable or d.ci.cannot_vary:  # alike on every question: decides nothing
        return "no conclusion"
    if d.ci.low > 0:
        return f"{diff.system_a} higher"
    if d.ci.high < 0:
        return f"{diff.system_b} higher"
    return "no clear difference"


def _differences_table(result: ScoreResult) -> Table:
    level = round(result.level * 100)
    table = Table(title="paired differences on shared questions", header_style="bold")
    for header in ("systems", "dimension", f"difference  [{level}% CI]", "questions", "reading"):
        table.add_column(header)
    for diff in result.differences:
        d = diff.difference
        shown = (
            "n/a" if d.estimate is None else markup(estimate_text(d.estimate, d.ci, "+.2f", ".2f"))
        )
        table.add_row(
            markup(f"{diff.system_a} - {diff.system_b}"),
            markup(diff.dimension),
            shown,
            str(diff.n_questions),
            markup(_reading(diff)),
        )
    return table


def _calls_line(report: ScoreReport) -> str:
    result, run = report.result, report.run
    line = (
        f"items fully scored: {result.n_items - result.n_unscored} of {result.n_items}; "
        f"parse failures: {result.n_parse_failures}, call errors: {result.n_call_errors}"
    )
    if run is not None:
        line += f"; judge calls: {calls_text(run)}"
        if run.cost_usd:
            line += f", est. ${run.cost_usd:.4f}"
        line += "".join(f"; {label}: {text}" for label, text in ledger_rows(run))
    return line


def render_scores(report: ScoreReport, console: Console) -> None:
    """Print the failures, the per-dimension table, the systems, and the collapse alarms."""
    result = report.result
    print_failures(result.failures, console)
    console.print(_dimension_table(report))
    if result.systems:
        console.print(_systems_table(result))
        console.print(_differences_table(result))
    if report.trend is not None:
        render_trend(report.trend, console)
    say(console, _calls_line(report))
    say(
        console,
        f"{bootstrap_text(result)}; intervals resample whole questions; a parse failure or "
        "call error is never a score.",
    )
    if result.stopped is not None:
        console.print(
            f"[yellow]partial result:[/yellow] the run stopped early (the 'stopped' line "
            f"says why); {result.n_not_run} item(s) not yet scored are left out.",
            highlight=False,
        )
    for d in result.dimensions:
        if d.collapse.collapsed:
            console.print("[red]collapse alarm:[/red] ", end="", highlight=False)
            say(
                console,
                f"{d.name}: {d.collapse.reason}. "
                + worded(
                    "The judge barely tells answers apart on this dimension: try a stronger "
                    "judge, a sharper rubric, or mode=label.",
                    "mode",
                ),
            )


def _rho(c: RankCorrelation) -> str:
    if math.isnan(c.spearman):
        return "n/a"
    return markup(estimate_text(c.spearman, c.spearman_ci, ".2f"))


def render_score_calibration(cal: ScoreCalibration, console: Console) -> None:
    """Print each dimension's agreement with the human scores, the gate, and what was skipped."""
    r = cal.result
    level = round(r.level * 100)
    title = f"judge vs human scores: rubric {r.rubric_tag}, gate Spearman >= {cal.min_spearman:g}"
    table = Table(title=markup(title), header_style="bold")
    for header in ("dimension", "n", f"Spearman  [{level}% CI]", f"Kendall  [{level}% CI]",
                   "gate", "system-level Spearman"):  # fmt: skip
        table.add_column(header)
    for d in cal.dimensions:
        c, s = d.correlation, d.system
        cells = ["n/a", "n/a", "not applied"]
        if c is not None:
            verdict = "PASS" if c.passed else "[red]FAIL[/red]"
            cells = [_rho(c), markup(estimate_text(c.kendall, c.kendall_ci, ".2f")), verdict]
        cells.append("" if s is None else f"{_rho(s)} ({s.n_systems} systems)")
        table.add_row(markup(d.dimension), str(d.n), *cells)
    console.print(table)
    for d in cal.dimensions:
        for figure, why in d.skipped.items():
            say(console, f"{d.dimension}: {figure} not estimated: {why}")
    say(
        console,
        f"items: {r.n_items} (not fully scored: {r.n_unscored}); {bootstrap_text(r)}; "
        "intervals resample whole questions.",
    )


def _win_row(label: str, w: WinRate | None, note: str) -> list[str]:
    if w is None:
        return [markup(label), "n/a", "", "0", markup(note)]
    return [markup(label), markup(estimate_text(w.estimate, w.ci)), f"{w.wins}/{w.ties}/{w.losses}",
            str(w.n), markup(note)]  # fmt: skip


def via_scores_verdict(
    result: ViaScoresResult, adaptive: AdaptiveResult[ViaScoresResult] | None = None
) -> str:
    """The conclusion of a comparison via scores: the table's and the Markdown's one line."""
    return stop_verdict(adaptive) or verdict_line(
        result.win_rate, failed=bool(result.scores.failures), stopped=result.stopped,
        n_items=result.n_items, subject="scores",
    )  # fmt: skip


def render_via_scores(
    result: ViaScoresResult,
    console: Console,
    *,
    swap: PairwiseResult | None = None,
    title: str = "",
    adaptive: AdaptiveResult[ViaScoresResult] | None = None,
) -> None:
    """Print model 1's win rate via scores, beside the swap protocol's when run.

    Then the paired difference per dimension, and the mean score difference; after
    ``--stop-when``, the stop's lines, and the anytime-valid interval's verdict.
    """
    s = result.scores
    print_failures(s.failures, console)
    level = round(s.level * 100)
    table = Table(title=markup(title), header_style="bold")
    # "items", not "n": an all-alike interval's Wilson bound counts questions (its note)
    for header in ("method", f"win rate of model 1  [{level}% CI]", "W/T/L", "items", "how"):
        table.add_column(header)
    done = result.n_items - result.n_unresolved
    how = (
        f"rubric {s.rubric_tag}, each answer scored alone; tie margin {result.tie_margin:g}; "
        f"{result.n_expected} of {done} on prob.-weighted scores"
    )
    table.add_row(*_win_row("via scores", result.win_rate, win_cell(how, adaptive)))
    if swap is not None:
        rule = swap.settings.rule.value
        table.add_row(*_win_row("swap protocol", swap.win_rate, f"both orders, rule {rule}"))
    console.print(table)
    if s.differences:
        console.print(_differences_table(s))
    d = result.difference
    if d.estimate is not None:
        say(
            console,
            f"mean score difference (model 1 - model 2): {estimate_text(d.estimate, d.ci, '+.2f')}",
        )
    say(
        console,
        f"items: {result.n_items} (unresolved: {result.n_unresolved}); parse failures: "
        f"{s.n_parse_failures}, call errors: {s.n_call_errors}; {bootstrap_text(s)}",
    )
    for text in stop_lines(adaptive) if adaptive is not None else ():
        say(console, text)
    console.print(f"[bold]{via_scores_verdict(result, adaptive)}[/bold]", highlight=False)
    pairs = [(p.item, p.outcome) for p in result.pairs]
    for sentence in labelled_truth(pairs, result.win_rate, "The result via scores"):
        say(console, sentence)
