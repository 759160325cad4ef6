"""``fairjudge report RESULTS -o report.html``: the HTML page of any saved run.

RESULTS is a file written by a command's ``--out``. Its header record says which
command wrote it, and so which page draws it (:mod:`fairjudge.report._pages`): a
``compare`` or ``calibrate`` file (one judgment per line, with every call's raw
reply) is resolved again under its recorded rule and drawn as the comparison
report; ``compare --via-scores``, ``rank``, ``score``, ``audit``, ``jury`` and
``score-jury`` files by their own pages. The run is summarised again with the seed,
level and resamples given here; with the commands' defaults the figures are the
command's own (a ``rank`` file's leaderboard is fitted as its header records). No
judge is called.
"""

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, guarded, say
from fairjudge.cli._markdown import markdown_flag, markdown_given, write_markdown
from fairjudge.cli._options import Bootstrap, Level
from fairjudge.cli._writable import check_writable
from fairjudge.io import strict_dumps, write_atomic
from fairjudge.report import out_file_header, out_file_page, page_html, page_markdown

__all__ = ["report"]

_Results = Annotated[
    Path,
    typer.Argument(
        metavar="FILE",
        help="A file written by --out of compare, calibrate, rank, score, audit, jury or "
        "score-jury.",
    ),
]
_Output = Annotated[
    Path | None,
    typer.Option(
        "--output", "-o", help="Where to write the HTML report (needed unless --markdown)."
    ),
]
_Title = Annotated[
    str | None,
    typer.Option(help="The page's title. [default: the one the run's own --html gives it]"),
]


@app.command()
@guarded
@markdown_flag
def report(
    results: _Results,
    output: _Output = None,
    title: _Title = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed (compare's default: 0).")] = 0,
    level: Level = 0.95,
    bootstrap: Bootstrap = 2000,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Also print the summary as JSON (as the run's --json does)."),
    ] = False,
) -> None:
    """Write the self-contained HTML page of a saved run; no judge is called."""
    if output is None and not markdown_given():
        raise ConfigError(
            "give --output FILE (the HTML page), --markdown FILE (a pull request summary; "
            "- prints it), or both"
        )
    if output is not None and results.resolve() == output.resolve():
        raise ConfigError(f"--output {output} is the results file itself; give another name")
    if output is not None:
        check_writable(output, "--output")
    header = out_file_header(results)
    kind = header.kind if header is not None else None  # no header: an older file
    page = out_file_page(results, kind, seed=seed, level=level, n_resamples=bootstrap)
    if title:
        page = dataclasses.replace(page, title=title)
    if output is not None:
        write_atomic(output, (page_html(page),))
    if json_output:
        typer.echo(strict_dumps(page.summary, indent=2))
    write_markdown(lambda: page_markdown(page))
    if output is not None:
        n = page.summary.get("n_items") if page.kind in ("compare", "calibrate") else None
        say("HTML report",
            f"{output} ({n} items)" if n is not None else f"{output} ({page.kind} run)",
            style="green")  # fmt: skip
