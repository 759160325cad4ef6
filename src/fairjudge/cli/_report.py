"""``fairjudge report RESULTS -o report.html``: the HTML report of a saved comparison.

RESULTS is a file written by ``compare --out`` (one judgment per line, with every
call's raw reply). The calls are resolved again under their recorded rule and
summarised with the seed, level and resamples given here; with ``compare``'s
defaults the figures are ``compare``'s own. No judge is called.
"""

import json
from pathlib import Path
from typing import Annotated

import typer

from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, guarded, say
from fairjudge.cli._writable import check_writable
from fairjudge.report import (
    comparison_html,
    comparison_report,
    load_results,
    write_html,
)

__all__ = ["report"]

_Results = Annotated[
    Path,
    typer.Argument(metavar="FILE", help="A results file written by `fairjudge compare --out`."),
]
_Output = Annotated[Path, typer.Option("--output", "-o", help="Where to write the HTML report.")]
_Title = Annotated[
    str | None,
    typer.Option(help="The report's title. [default: the compared file's name, as compare has it]"),
]


def _source_name(source: str | None, results: Path) -> str:
    """The input file's name as compare's title has it (the header's source), else RESULTS'."""
    if not source or source == str(results):
        return results.name
    return "<stdin>" if source == "-" else Path(source).name


@app.command()
@guarded
def report(
    results: _Results,
    output: _Output,
    title: _Title = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed (compare's default: 0).")] = 0,
    level: Annotated[float, typer.Option(help="Confidence level.")] = 0.95,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
    json_output: Annotated[
        bool, typer.Option("--json", help="Also print the summary as JSON (as compare does).")
    ] = False,
) -> None:
    """Write the self-contained HTML report of a saved comparison; no judge is called."""
    if results.resolve() == output.resolve():
        raise ConfigError(f"--output {output} is the results file itself; give another name")
    check_writable(output, "--output")
    result = load_results(results, seed=seed, level=level, n_resamples=bootstrap)
    page = comparison_report(
        result,
        title=title or f"{_source_name(result.settings.source, results)}: model 1 vs model 2",
    )
    write_html(output, comparison_html(page))
    if json_output:
        typer.echo(json.dumps(page.to_dict(), indent=2))
    say("HTML report", f"{output} ({result.n_items} items)", style="green")
