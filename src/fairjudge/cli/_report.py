"""``fairjudge report RESULTS -o report.html``: the HTML page of any saved run.

RESULTS is a file written by a command's ``--out``. Its header record says which
command wrote it, and so which page draws it (:mod:`fairjudge.report._pages`): a
``compare`` or ``calibrate`` file (one judgment per line, with every call's raw
reply) is resolved again under its recorded rule and drawn as the comparison
report (a ``calibrate`` file's with its calibration); ``compare --via-scores``,
``rank``, ``score``, ``audit``, ``jury`` and ``score-jury`` files by their own
pages. The run is summarised again with its own seed, level and resamples, as the
file's header records them, so the figures are the ones the run showed (a ``rank``
file's leaderboard is fitted as its header records); a flag given here overrides
its setting, and stderr says so (on a ``rank`` file ``--bootstrap`` is the
leaderboard's rounds, as ``rank --bootstrap``).
A file whose header records none keeps the commands' defaults (0, 0.95, 2000). A
pairwise ``calibrate`` file is drawn as ``calibrate --html`` draws it: the
calibration against the human labels its records hold. No judge is called.
"""

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import typer

from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, guarded, say
from fairjudge.cli._flags import check_writable
from fairjudge.cli._out import markdown_flag, markdown_given, write_markdown

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
        "--output",
        "-o",
        help="Where to write the HTML report (needed unless --markdown or --json).",
    ),
]
_Seed = Annotated[
    int | None,
    typer.Option(help="Bootstrap seed. [default: the run's, as the file records it; 0 if not]"),
]
_Level = Annotated[
    float | None,
    typer.Option(help="Confidence level. [default: the run's, as the file records it; 0.95 if "
                 "not]"),
]  # fmt: skip
_Bootstrap = Annotated[
    int | None,
    typer.Option(help="Bootstrap resamples. [default: the run's, as the file records it; 2000 "
                 "if not] Of a rank file, the leaderboard's bootstrap rounds, as rank "
                 "--bootstrap (1000 if not recorded)."),
]  # fmt: skip
_Title = Annotated[
    str | None,
    typer.Option(help="The page's title. [default: the one the run's own --html gives it]"),
]


_RUN = {"compare-via-scores": "compare --via-scores"}
"""A page's kind as the command the user typed, where the two differ."""


def _note(line: str) -> None:
    """A flag given that is not the run's setting: the page is not the run's, and says why."""
    say("note", line)


@app.command()
@guarded
@markdown_flag
def report(
    results: _Results,
    output: _Output = None,
    title: _Title = None,
    seed: _Seed = None,
    level: _Level = None,
    bootstrap: _Bootstrap = None,
    json_output: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print the summary as JSON (as the run's --json does); alone, no page is written.",
        ),
    ] = False,
) -> None:
    """Write the self-contained HTML page of a saved run; no judge is called.

    The figures are summarised again with the run's own seed, level and resamples;
    --seed, --level or --bootstrap redraws them otherwise (stderr says so).
    """
    if output is None and not markdown_given() and not json_output:
        raise ConfigError(
            "give --output FILE (the HTML page), --markdown FILE (a pull request summary; "
            "- prints it) or --json (the summary, printed), or several"
        )
    _not_the_results(results, output)
    if output is not None:
        check_writable(output, "--output")
    # Here, not at the top: the pages load the statistics stack, which --help never needs.
    from fairjudge.io import strict_dumps, write_atomic
    from fairjudge.report import out_file_header, out_file_page, page_html, page_markdown

    header = out_file_header(results)
    kind = header.kind if header is not None else None  # no header: an older file
    page = out_file_page(results, kind, seed=seed, level=level, n_resamples=bootstrap,
                         notify=_note)  # fmt: skip
    if title:
        page = dataclasses.replace(page, title=title)
    if output is not None:
        write_atomic(output, (page_html(page),))
    if json_output:
        typer.echo(strict_dumps(page.summary, indent=2))
    write_markdown(lambda: page_markdown(page))
    if output is not None:
        n = page.summary.get("n_items") if page.kind in ("compare", "calibrate") else None
        run = f"{n} items" if n is not None else f"{_RUN.get(page.kind, page.kind)} run"
        say("HTML report", f"{output} ({run})", style="green")


def _not_the_results(results: Path, output: Path | None) -> None:
    """Refuse an ``--output`` naming the results file, which writing the page would destroy."""
    if output is not None and results.resolve() == output.resolve():
        raise ConfigError(f"--output {output} is the results file itself; give another name")


def _check_values(given: dict[str, Any]) -> None:
    """Refuse, for ``--save-config``, the values every report refuses.

    A --seed, --level or --bootstrap out of range, and an --output naming the results
    file. ``cli._run_config.save`` calls it before writing, as it calls the judging
    commands' (:func:`~fairjudge.cli._options.adds_flags`); whether the results file
    reads and ``--output`` can be written is the run's to check, as theirs are.
    """
    from fairjudge._api import EvalSettings

    names = {"seed": "seed", "level": "level", "bootstrap": "n_resamples"}
    EvalSettings(**{names[k]: given[k] for k in names if given.get(k) is not None})
    _not_the_results(given["results"], given.get("output"))


report.check_values = _check_values  # type: ignore[attr-defined]  # --save-config's
