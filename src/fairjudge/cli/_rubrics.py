"""``fairjudge rubrics [NAME]``: the built-in rubrics, or one rubric in full."""

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairjudge.cli._app import app, guarded
from fairjudge.io import strict_dumps
from fairjudge.prompts import DEFAULT_RUBRIC, Rubric, get_rubric, list_rubrics

__all__ = ["rubrics"]


def _list_table(found: list[Rubric]) -> Table:
    table = Table(title="built-in rubrics (--rubric NAME, or a .toml file)", header_style="bold")
    for header in ("name", "scale", "dimensions", "description"):
        table.add_column(header)
    for r in found:
        name = f"{r.name} (default)" if r.name == DEFAULT_RUBRIC else r.name
        dims = ", ".join(r.names) + ("  [needs reference]" if r.needs_reference else "")
        table.add_row(escape(name), r.scale_text, escape(dims), escape(r.description))
    return table


def _show(rubric: Rubric, console: Console) -> None:
    console.print(
        f"{rubric.name}@{rubric.version}: scale {rubric.scale_text}"
        f"{', needs a reference' if rubric.needs_reference else ''}. {rubric.description}",
        highlight=False,
        markup=False,
    )
    table = Table(header_style="bold")
    for header in ("dimension", "question", "low", "middle", "high"):
        table.add_column(header)
    for d in rubric.dimensions:
        table.add_row(*(escape(t) for t in (d.name, d.description, d.low, d.mid, d.high)))
    console.print(table)
    if rubric.instructions:
        console.print(rubric.instructions, highlight=False, markup=False)


@app.command()
@guarded
def rubrics(
    name: Annotated[
        str | None,
        typer.Argument(metavar="NAME", help="Show this rubric (a name or a .toml file) in full."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the built-in rubrics for `fairjudge score`, with their dimensions."""
    console = Console()
    if name is None:
        found = list_rubrics()
        if json_output:
            typer.echo(strict_dumps([r.to_dict() for r in found], indent=2))
        else:
            console.print(_list_table(found))
        return
    rubric = get_rubric(name)
    if json_output:
        typer.echo(strict_dumps(rubric.to_dict(full=True), indent=2))
    else:
        _show(rubric, console)
