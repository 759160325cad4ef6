"""``fairjudge rubrics [NAME]``: the built-in rubrics, or one rubric in full."""

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairjudge.cli._app import app, guarded
from fairjudge.io import strict_dumps
from fairjudge.prompts import DEFAULT_RUBRIC, Rubric, get_rubric, list_rubrics

__all__ = ["rubrics"]


def _as_dict(rubric: Rubric, *, full: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": rubric.name,
        "version": rubric.version,
        "scale": list(rubric.scale),
        "dimensions": list(rubric.names),
        "needs_reference": rubric.needs_reference,
        "description": rubric.description,
        "default": rubric.name == DEFAULT_RUBRIC,
    }
    if full:
        data["dimensions"] = [
            {"name": d.name, "description": d.description, "low": d.low, "mid": d.mid,
             "high": d.high}
            for d in rubric.dimensions
        ]  # fmt: skip
        data["instructions"] = rubric.instructions
        data["system"] = rubric.system
        data["reply_schema"] = rubric.reply_schema
    return data


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
            typer.echo(strict_dumps([_as_dict(r, full=False) for r in found], indent=2))
        else:
            console.print(_list_table(found))
        return
    rubric = get_rubric(name)
    if json_output:
        typer.echo(strict_dumps(_as_dict(rubric, full=True), indent=2))
    else:
        _show(rubric, console)
