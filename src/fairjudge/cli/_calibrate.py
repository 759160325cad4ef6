"""``fairjudge calibrate FILE``: a judge's report card against human labels.

Run it on 20-300 human-labelled items before trusting a judge (or a judge prompt)
at scale; the figures are computed by :func:`fairjudge.audit.calibration_report`.

Exit codes: 0 when the gate passes (or there is no gate to apply), 3 when it fails,
2 for input errors, 1 when judging failed, 4 when too many items were unresolved.
"""

import dataclasses
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fairjudge._types import Resolution
from fairjudge.audit import calibration_report, check_labels
from fairjudge.cli._app import EXIT_GATE_FAILED, app, guarded, say
from fairjudge.cli._compare import (
    DEFAULT_MAX_UNRESOLVED,
    MaxUnresolved,
    check_unresolved,
    load_input,
    needs_reference,
)
from fairjudge.cli._options import (
    InputFlags,
    JudgeFlags,
    close_judge,
    input_flags,
    judge_flags,
    judge_name,
)
from fairjudge.evaluation import EvalSettings, evaluate
from fairjudge.report import calibration_payload, render_calibration, write_jsonl_atomic

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
@input_flags
@judge_flags
def calibrate(
    file: _File,
    rule: Annotated[Resolution, typer.Option(help="Resolution rule.")] = Resolution.CONSERVATIVE,
    rounds: Annotated[int, typer.Option(help="Calls per item; 2 is the swap protocol.")] = 2,
    min_spearman: _Gate = 0.7,
    seed: Annotated[int, typer.Option(help="Seed for orders and bootstrap.")] = 0,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
    max_unresolved: MaxUnresolved = DEFAULT_MAX_UNRESOLVED,
    out: Annotated[Path | None, typer.Option(help="Write per-item judgments (JSONL).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    *,
    flags: JudgeFlags,
    columns: InputFlags,
) -> None:
    """Check a judge against human labels before using it at scale."""
    settings = EvalSettings(rule, rounds, seed=seed, n_resamples=bootstrap, source=str(file))
    items = load_input(file, columns)
    check_labels(items)
    needs_reference(flags.template, items)
    judge = flags.open_judge(rounds=rounds)
    try:
        result = evaluate(judge, items, settings)
    finally:
        close_judge(judge)
    result = dataclasses.replace(
        result, settings=dataclasses.replace(settings, judge=judge_name(judge))
    )
    if out is not None:
        write_jsonl_atomic(out, (j.to_dict() for j in result.judgments))
    report = calibration_report(result, min_spearman=min_spearman)
    if json_output:
        payload = calibration_payload(report, judge=judge_name(judge))
        typer.echo(json.dumps(payload, indent=2, default=str))
    else:
        render_calibration(report, Console())
    check_unresolved(result, max_unresolved)
    gate = report.get("correlation")
    if gate is not None and not gate.passed:
        say(
            "gate failed",
            f"Spearman {gate.spearman:.3f} < {min_spearman}; do not use this judge for "
            "decisions without a better prompt or model",
            style="red",
        )
        raise typer.Exit(EXIT_GATE_FAILED)
