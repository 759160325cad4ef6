"""``fairjudge compare FILE``: a position-debiased comparison of two systems."""

import dataclasses
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fairjudge._errors import ConfigError
from fairjudge._io import Columns, LoadedItems, load_items
from fairjudge._items import Item
from fairjudge._types import Resolution
from fairjudge.cli._app import EXIT_UNRESOLVED, app, err_console, guarded, say
from fairjudge.cli._options import (
    InputFlags,
    JudgeFlags,
    close_judge,
    input_flags,
    judge_flags,
    judge_name,
    last_run,
)
from fairjudge.cli._progress import judging_progress
from fairjudge.evaluation import EvalSettings, PairwiseResult, evaluate
from fairjudge.prompts import get_template
from fairjudge.report import comparison_report, render_comparison, write_jsonl_atomic

__all__ = ["check_unresolved", "compare", "load_input", "needs_reference"]

MaxUnresolved = Annotated[
    float,
    typer.Option(
        help="Exit with code 4 when more than this share of items could not be resolved "
        "(parse failures, call errors). 1 never fails; 0 fails on any."
    ),
]
DEFAULT_MAX_UNRESOLVED = 0.2


def load_input(file: Path, columns: InputFlags) -> list[Item]:
    """Read and validate every row before any judge call; list what was skipped."""
    cols = Columns(
        question=columns.question_col,
        answer_1=columns.answer1_col,
        answer_2=columns.answer2_col,
        id=columns.id_col,
        reference=columns.reference_col,
        human=columns.human_col,
    )
    loaded: LoadedItems = load_items(file, columns=cols, skip_invalid=columns.skip_invalid)
    for problem in loaded.skipped:
        say("skipped", str(problem))
    return loaded.items


def needs_reference(template: str | None, items: list[Item]) -> str:
    """The template's ``name@version``, after checking every item has what it needs."""
    tmpl = get_template(template or "default")
    missing = [it.id for it in items if it.reference is None]
    if tmpl.needs_reference and missing:
        raise ConfigError(
            f"template {tmpl.name!r} needs a reference, but {len(missing)} item(s) lack one "
            f"(first: id {missing[0]!r}); add a 'reference' column or pick another template"
        )
    return f"{tmpl.name}@{tmpl.version}"


def check_unresolved(result: PairwiseResult, limit: float) -> None:
    """Exit with :data:`EXIT_UNRESOLVED` when too few items resolved to trust the result."""
    share = result.n_unresolved / result.n_items if result.n_items else 0.0
    if result.win_rate is None or share > limit:
        say(
            "too many unresolved items",
            f"{result.n_unresolved} of {result.n_items} items have no verdict "
            f"({share:.0%} > --max-unresolved {limit:g}); the reasons are listed above",
            style="red",
        )
        raise typer.Exit(EXIT_UNRESOLVED)


@app.command()
@guarded
@input_flags
@judge_flags
def compare(
    file: Annotated[
        Path, typer.Argument(help="JSONL, CSV or Parquet with question, answer_1, answer_2.")
    ],
    rule: Annotated[Resolution, typer.Option(help="How the calls on an item resolve.")] = (
        Resolution.CONSERVATIVE
    ),
    rounds: Annotated[int, typer.Option(help="Calls per item; 2 is the swap protocol.")] = 2,
    balanced: Annotated[bool, typer.Option(help="Exactly half the calls in each order.")] = True,
    seed: Annotated[int, typer.Option(help="Run seed: randomised orders and the bootstrap.")] = 0,
    level: Annotated[float, typer.Option(help="Confidence level.")] = 0.95,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
    max_unresolved: MaxUnresolved = DEFAULT_MAX_UNRESOLVED,
    out: Annotated[Path | None, typer.Option(help="Write one JSON record per item.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    *,
    flags: JudgeFlags,
    columns: InputFlags,
) -> None:
    """Compare two systems' answers with the position-debiased protocol."""
    settings = EvalSettings(rule, rounds, balanced, seed, level, bootstrap, source=str(file))
    if not 0 <= max_unresolved <= 1:
        raise ConfigError(f"--max-unresolved must be in [0, 1]; got {max_unresolved}")
    items = load_input(file, columns)
    template = needs_reference(flags.template, items)
    judge = flags.open_judge(rounds=rounds)
    try:
        with judging_progress(judge, len(items) * rounds, quiet=flags.quiet) as progress:
            result = evaluate(judge, items, settings, progress=progress)
    finally:
        close_judge(judge)
    is_model = not (flags.judge or "").startswith("python:")
    settings = dataclasses.replace(
        settings, judge=judge_name(judge), template=template if is_model else None
    )
    result = dataclasses.replace(result, settings=settings)
    if out is not None:
        write_jsonl_atomic(out, (j.to_dict() for j in result.judgments))
    report = comparison_report(
        result, title=f"{file.name}: model 1 vs model 2", run=last_run(judge)
    )
    if json_output:
        typer.echo(json.dumps(report.to_dict(), indent=2))
    else:
        render_comparison(report, Console())
    if out is not None and not json_output:
        err_console.print(f"per-item results: {out}", highlight=False, markup=False)
    check_unresolved(result, max_unresolved)
