"""``fairjudge calibrate FILE``: a judge's report card against human labels.

Run it on 20-300 human-labelled items before trusting a judge (or a judge prompt)
at scale; the figures are computed by :func:`fairjudge.audit.calibration_report`.

Exit codes: 0 when the gate passes (or there is no gate to apply), 3 when it fails,
2 for input errors, 1 when judging failed, 4 when too many items were unresolved.
"""

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fairjudge._errors import ConfigError
from fairjudge.audit import calibration_report
from fairjudge.cli._app import EXIT_GATE_FAILED, app, guarded, say
from fairjudge.cli._judging import check_unresolved, judge_file
from fairjudge.cli._options import EvalFlags, InputFlags, JudgeFlags, item_judging_flags
from fairjudge.report import (
    calibration_payload,
    comparison_html,
    comparison_report,
    render_calibration,
    write_html,
)

__all__ = ["calibrate"]

_File = Annotated[
    Path,
    typer.Argument(
        help="Items with question, answer_1, answer_2 and human (1/2/tie) or human_score."
    ),
]
_Gate = Annotated[float, typer.Option(help="Gate: pass at Spearman >= this (human_score).")]


@app.command()
@guarded
@item_judging_flags
def calibrate(
    file: _File,
    min_spearman: _Gate = 0.7,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    *,
    flags: JudgeFlags,
    columns: InputFlags,
    run: EvalFlags,
) -> None:
    """Check a judge against human labels before using it at scale."""
    if not -1 <= min_spearman <= 1:
        raise ConfigError(f"--min-spearman must be in [-1, 1]; got {min_spearman}")
    judged = judge_file(file, flags, columns, run, labelled=True)
    result = judged.result
    report = calibration_report(result, min_spearman=min_spearman)
    payload = calibration_payload(report, judge=result.settings.judge or "")
    payload["skipped_rows"] = judged.skipped
    if run.html is not None:
        source = "<stdin>" if str(file) == "-" else file.name
        page = comparison_report(result, title=f"{source}: calibration", run=judged.calls,
                                 skipped=judged.skipped)  # fmt: skip
        write_html(run.html, comparison_html(page, calibration=report, summary=payload))
    if json_output:
        typer.echo(json.dumps(payload, indent=2, default=str))
    else:
        render_calibration(report, Console())
    check_unresolved(result, run.max_unresolved)
    gate = report.get("correlation")
    if gate is not None and not gate.passed:
        say(
            "gate failed",
            f"Spearman {gate.spearman:.3f} < {min_spearman}; do not use this judge for "
            "decisions without a better prompt or model",
            style="red",
        )
        raise typer.Exit(EXIT_GATE_FAILED)
