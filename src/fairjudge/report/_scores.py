"""The score report: one model of a ``score`` run, rendered as tables or JSON.

:func:`score_report` gathers the result, the judge calls' costs and the skipped rows
into a :class:`ScoreReport`; :func:`render_scores` (the terminal) and
:meth:`ScoreReport.to_dict` (JSON) both read that one model, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairjudge.evaluation import DimensionSummary, ScoreResult, SystemDifference
from fairjudge.report._text import ci_text, failure_lines
from fairjudge.runner import RunSummary

__all__ = ["ScoreReport", "render_scores", "score_report"]


@dataclass(frozen=True, slots=True)
class ScoreReport:
    """Everything a ``score`` run shows.

    Attributes:
        title: What was scored, e.g. the input file's name.
        result: The scores and their summaries.
        run: The judge calls' counts, tokens and cost (``None`` for Python judges).
        skipped: Input rows skipped with ``--skip-invalid`` (source, line, message).
    """

    title: str
    result: ScoreResult
    run: RunSummary | None = None
    skipped: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the result's summary plus the failures, calls and skipped rows."""
        payload = self.result.to_dict()
        payload["failures"] = dict(self.result.failures.most_common())
        payload["calls"] = self.run.to_dict() if self.run is not None else None
        payload["skipped_rows"] = list(self.skipped)
        return payload


def score_report(
    result: ScoreResult,
    *,
    title: str,
    run: RunSummary | None = None,
    skipped: Sequence[dict[str, Any]] = (),
) -> ScoreReport:
    """Build the report of one scoring run."""
    return ScoreReport(title, result, run, tuple(skipped))


def _histogram(d: DimensionSummary) -> str:
    return " ".join(f"{level}:{count}" for level, count in d.histogram.items())


def _mean(d: DimensionSummary) -> str:
    m = d.mean
    return "n/a" if m.estimate is None else f"{m.estimate:.2f}  {ci_text(m.ci, '.2f')}"


def _median(d: DimensionSummary) -> str:
    return "n/a" if d.median is None else f"{d.median:g}  {ci_text(d.median_ci, '.2f')}"


def _alarm(d: DimensionSummary) -> str:
    if d.collapse.collapsed is None:
        return "not assessed"
    return "[red]COLLAPSED[/red]" if d.collapse.collapsed else "ok"


def _human(d: DimensionSummary) -> str:
    human = d.human
    if human is None:
        return ""
    if isinstance(human, str):
        return "n/a"
    return f"{human.spearman:.2f}  {ci_text(human.spearman_ci, '.2f')}"


def _dimension_table(report: ScoreReport) -> Table:
    result = report.result
    rubric = result.rubric
    level = round(result.level * 100)
    title = f"{report.title}: rubric {rubric.name}@{rubric.version}, scale {rubric.scale_text}"
    table = Table(title=escape(title), show_header=True, header_style="bold")
    expected = any(d.expected is not None for d in result.dimensions)
    human = any(d.human is not None for d in result.dimensions)
    headers = ["dimension", f"mean  [{level}% CI]", f"median  [{level}% CI]", "n", "histogram"]
    headers += ["collapse"] + (["prob.-weighted mean"] if expected else [])
    headers += ["Spearman vs human"] if human else []
    for header in headers:
        table.add_column(escape(header))
    for d in result.dimensions:
        row = [escape(d.name), _mean(d), _median(d), str(d.n), _histogram(d), _alarm(d)]
        if expected:
            e = d.expected
            shown = "n/a" if e is None or e.estimate is None else f"{e.estimate:.2f}"
            row.append(shown if e is None else f"{shown}  {ci_text(e.ci, '.2f')}")
        if human:
            row.append(_human(d))
        table.add_row(*row)
    return table


def _systems_table(result: ScoreResult) -> Table:
    table = Table(title="per system: mean", show_header=True, header_style="bold")
    table.add_column("system")
    table.add_column("items")
    for name in result.rubric.names:
        table.add_column(escape(name))
    for s in result.systems:
        cells = [
            "n/a" if m.estimate is None else f"{m.estimate:.2f}  {ci_text(m.ci, '.2f')}"
            for m in (s.means[name] for name in result.rubric.names)
        ]
        table.add_row(escape(s.system), str(s.n_items), *cells)
    return table


def _reading(diff: SystemDifference) -> str:
    d = diff.difference
    if d.estimate is None:
        return "no shared question"
    if not d.ci.estimable:
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
        shown = "n/a" if d.estimate is None else f"{d.estimate:+.2f}  {ci_text(d.ci, '.2f')}"
        table.add_row(
            escape(f"{diff.system_a} - {diff.system_b}"),
            escape(diff.dimension),
            shown,
            str(diff.n_questions),
            escape(_reading(diff)),
        )
    return table


def _calls_line(report: ScoreReport) -> str:
    result, run = report.result, report.run
    line = (
        f"items fully scored: {result.n_items - result.n_unscored} of {result.n_items}; "
        f"parse failures: {result.n_parse_failures}, call errors: {result.n_call_errors}"
    )
    if run is not None:
        line += f"; judge calls: {run.made} made, {run.cached} cached, {run.failed} failed"
        if run.cost_usd:
            line += f", est. ${run.cost_usd:.4f}"
    return line


def render_scores(report: ScoreReport, console: Console) -> None:
    """Print the failures, the per-dimension table, the systems, and the collapse alarms."""
    result = report.result
    for line in failure_lines(result.failures):
        console.print(line, highlight=False, markup=False)
    console.print(_dimension_table(report))
    if result.systems:
        console.print(_systems_table(result))
        console.print(_differences_table(result))
    console.print(_calls_line(report), highlight=False, markup=False)
    console.print(
        f"seed={result.seed} level={result.level} resamples={result.n_resamples}; intervals "
        "resample whole questions; a parse failure or call error is never a score.",
        highlight=False,
        markup=False,
    )
    if result.stopped is not None:
        console.print(
            f"[yellow]partial result:[/yellow] stopped by the budget; {result.n_not_run} "
            "item(s) not yet scored are left out.",
            highlight=False,
        )
    for d in result.dimensions:
        if d.collapse.collapsed:
            console.print("[red]collapse alarm:[/red] ", end="", highlight=False)
            console.print(
                f"{d.name}: {d.collapse.reason}. The judge barely tells answers apart on this "
                "dimension: try a stronger judge, a sharper rubric, or --mode label.",
                highlight=False,
                markup=False,
            )
