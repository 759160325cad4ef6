"""The judge's checks as text: the bias audit's report card and the calibration.

:func:`render_audit` prints an :class:`~fairjudge.audit.AuditReport` (one table of
effects per bias, and what the mitigation leaves); :func:`render_calibration` prints
:func:`fairjudge.audit.calibration_report`'s agreement with human labels, and
:func:`calibration_payload` is its JSON. The table and the JSON read the same report,
so they cannot disagree. Every text that came from a user (answers, names) is printed
without markup, its hidden characters shown (:func:`~fairjudge.report._text.say`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from fairjudge.report._text import ci_text, markup, say

if TYPE_CHECKING:
    from fairjudge.audit import AuditReport, Effect, ExperimentResult

__all__ = ["calibration_payload", "render_audit", "render_calibration"]

_STYLE = {
    "negligible": "green",
    "notable": "yellow",
    "severe": "bold red",
    "uncertain": "cyan",
    "not estimable": "dim",
}
_EXAMPLE_WORDS = 70
_FIGURES = ("agreement", "correlation", "system", "position_bias")


def _estimate(effect: Effect) -> str:
    if effect.estimate is None or not math.isfinite(effect.estimate):
        return "-"
    return f"{effect.estimate:+.3f}" if effect.null == 0.0 else f"{effect.estimate:.3f}"


def _row(table: Table, effect: Effect, prefix: str = "") -> None:
    verdict = effect.verdict
    # The unit sits under the effect's name: one column less, so the card fits 80
    # columns without folding every cell. Its brackets keep it apart from the name
    # where the dim style is lost (a pipe, a log): "... decisive calls" then "(share)".
    table.add_row(
        f"{markup(prefix + effect.name)}\n[dim]({markup(effect.unit)})[/]",
        _estimate(effect),
        markup(ci_text(effect.ci)),
        f"{effect.null:g}",
        str(effect.n),
        f"[{_STYLE.get(verdict, '')}]{verdict}[/]",
    )


def _experiment_table(exp: ExperimentResult) -> Table:
    title = f"{exp.bias}: {exp.verdict}" + (f"  ({exp.judge})" if exp.judge else "")
    table = Table(title=markup(title), title_justify="left", show_lines=False)
    table.add_column("effect (unit)", overflow="fold", ratio=1)
    for col in ("estimate", "CI", "no bias", "n", "verdict"):
        table.add_column(col, overflow="fold", no_wrap=col != "CI")
    for effect in exp.effects:
        _row(table, effect)
    for effect in exp.residual:
        _row(table, effect, prefix="after mitigation: ")
    return table


def render_audit(report: AuditReport, console: Console, *, calls_made: int | None = None) -> None:
    """Print the report card: per bias its effects, residuals, counts and a padded example."""
    say(console, f"Audit of {', '.join(report.judges)} on {report.source} ({report.n_items} items)")
    for exp in report.experiments:
        if exp.skipped is not None:
            say(console, f"{exp.bias}: skipped: {exp.skipped}")
            continue
        console.print(_experiment_table(exp))
        lines = [f"{exp.n_items} items, {exp.n_calls} calls"]
        if exp.n_failed:
            lines.append(f"{exp.n_failed} call(s) gave no usable reply (left out, never scored)")
        if exp.mitigation:
            lines.append(f"mitigation: {exp.mitigation}")
        say(console, "; ".join(lines))
        for effect in (*exp.effects, *exp.residual):
            if effect.note:
                say(console, f"  {effect.name}: not estimable: {effect.note}")
        _details(exp, console)
    made = "" if calls_made is None else f"; {_made(calls_made, report.n_calls)}"
    asked = f"{report.n_calls} asked for"
    if report.stopped is not None:  # the stopped experiment's calls: in the stop's own line
        asked = f"{report.n_calls} asked for by the experiments that finished"
        made = "" if calls_made is None else f"; {calls_made} made now, the stopped one's included"
    say(
        console,
        f"calls: {asked}{made}. Verdicts: distance from no bias as a share "
        "of the scale: negligible when the whole interval is within 0.05, notable from 0.05, "
        "severe from 0.15 (the interval excluding no bias); else uncertain.",
    )


def _made(made: int, asked: int) -> str:
    """How many calls were made now and how many the store answered, each only if any."""
    if made == 0:
        return "0 made now, all from the store" if asked else "none made"
    if made >= asked:
        return "all made now"
    return f"{made} made now, {asked - made} from the store"


def _details(exp: ExperimentResult, console: Console) -> None:
    example = exp.details.get("example")
    if isinstance(example, dict):
        padded = str(example.get("padded", "")).split()
        shown = " ".join(padded[:_EXAMPLE_WORDS]) + (" ..." if len(padded) > _EXAMPLE_WORDS else "")
        say(
            console,
            f"example (item {example.get('id')}): concise, {example.get('concise_words')} words: "
            f"{example.get('concise')!s}\n  padded, {example.get('padded_words')} words: {shown}",
        )
    matrix = exp.details.get("matrix")
    if isinstance(matrix, dict) and matrix:
        families = sorted({f for row in matrix.values() for f in row})
        table = Table(title="mean score: judge x answer family", title_justify="left")
        table.add_column("judge")
        for f in families:
            table.add_column(markup(f))
        for judge, row in matrix.items():
            cells = [f"{row[f]:.2f}" if f in row else "-" for f in families]
            table.add_row(markup(judge), *cells)
        console.print(table)


def calibration_payload(report: dict[str, Any], *, judge: str) -> dict[str, Any]:
    """The JSON form of :func:`fairjudge.audit.calibration_report`'s report."""
    payload = {k: (v.to_dict() if hasattr(v, "to_dict") else v) for k, v in report.items()}
    payload["judge"] = judge
    return payload


def render_calibration(report: dict[str, Any], console: Console) -> None:
    """Print each figure's summary (a figure the data could not support says why), then the gate."""
    say(
        console,
        f"{report['n_resolved']} of {report['n_items']} items resolved"
        f" ({report['n_unresolved']} left out: parse failures or call errors)",
        style="bold",
    )
    for key in _FIGURES:
        if key in report:
            say(console, report[key].summary())
            console.print()
    for key, reason in report.get("skipped", {}).items():
        say(console, f"{key}: not estimated: {reason}")
    if "gate" in report:
        console.print()
        say(console, report["gate"].summary())
