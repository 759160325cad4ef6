"""What fairjudge ships, shown or copied: its rubrics and its example files.

Neither command calls a judge; each reads only what the package holds.

``fairjudge rubrics [NAME]`` lists the built-in rubrics, or shows one rubric in full
(a name or a ``.toml`` file).

``fairjudge example-data DIR`` copies the README's example files into a folder. A
``pip install`` has no repository checkout, so the README's offline commands read
their inputs from the files shipped in :mod:`fairjudge.examples`. This command writes
them out, so that ``DIR/score_answers.jsonl`` and friends can be read, edited and
passed to any command. The example judges need no copy: they import from anywhere
as ``python:fairjudge.examples.judges:NAME``; ``judges.py`` is copied too, as a
starting point for a judge of one's own. It never overwrites a file unless
``--force`` is given: it checks every target first and, when one exists, writes
nothing and exits 2 naming them.

Each command's ``--help`` loads only its own: the rubrics and rich's tables load
when ``rubrics`` runs.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape  # loaded with rich.console already

from fairjudge._errors import ConfigError
from fairjudge.cli._app import app, err_console, guarded
from fairjudge.io import strict_dumps

if TYPE_CHECKING:
    from rich.table import Table

    from fairjudge.prompts import Rubric

__all__ = ["example_data", "example_files", "rubrics"]


# --- fairjudge rubrics ------------------------------------------------------------


def _list_table(found: list[Rubric]) -> Table:
    from rich.table import Table

    from fairjudge.prompts import DEFAULT_RUBRIC

    table = Table(title="built-in rubrics (--rubric NAME, or a .toml file)", header_style="bold")
    for header in ("name", "scale", "dimensions", "description"):
        table.add_column(header)
    for r in found:
        name = f"{r.name} (default)" if r.name == DEFAULT_RUBRIC else r.name
        dims = ", ".join(r.names) + ("  [needs reference]" if r.needs_reference else "")
        table.add_row(escape(name), r.scale_text, escape(dims), escape(r.description))
    return table


def _show(rubric: Rubric, console: Console) -> None:
    from rich.table import Table

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
    from fairjudge.prompts import get_rubric, list_rubrics

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


# --- fairjudge example-data --------------------------------------------------------

_PACKAGE = "fairjudge.examples"
_NEXT = "python:fairjudge.examples.judges:knows_facts"


def example_files() -> list[Traversable]:
    """The shipped example files, sorted by name: every ``.jsonl`` input and ``judges.py``."""
    found = files(_PACKAGE).iterdir()
    return sorted(
        (f for f in found if f.is_file() and (f.name.endswith(".jsonl") or f.name == "judges.py")),
        key=lambda f: f.name,
    )


def _targets(directory: Path, sources: list[Traversable], force: bool) -> list[Path]:
    """Where each file goes; refused when one is taken and not ``force``."""
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"{directory} exists and is not a folder; choose another DIR")
    targets = [directory / f.name for f in sources]
    taken = [t for t in targets if t.exists() or t.is_symlink()]
    if blocked := [t for t in taken if t.is_dir()]:
        raise ConfigError(f"{', '.join(map(str, blocked))}: a folder where a file would go")
    if taken and not force:
        raise ConfigError(
            f"{len(taken)} of the example files already exist in {directory} "
            f"({', '.join(t.name for t in taken)}); nothing was written. "
            "Pass --force to overwrite them, or choose another DIR"
        )
    return targets


def _writable(directory: Path) -> None:
    """Make ``directory`` and prove a file can be written in it, before any example is.

    Raises:
        ConfigError: It cannot be made or written in (read-only, under a file, no
            permission), as every command's output check words it; nothing was written.
    """
    import os
    import tempfile

    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".fairjudge-", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(
            f"DIR {directory}: cannot write there ({exc.strerror or exc}); nothing was "
            "written. Choose another DIR"
        ) from None


@app.command("example-data")
@guarded
def example_data(
    directory: Annotated[
        Path, typer.Argument(metavar="DIR", help="Folder to write into; created when missing.")
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite example files that already exist in DIR.")
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the files written as JSON.")
    ] = False,
) -> None:
    """Copy the example inputs and judges into DIR, to try every command offline.

    Lists each file it wrote. Files already in DIR are refused (exit 2, nothing
    written) unless --force is given.
    """
    sources = example_files()
    targets = _targets(directory, sources, force)
    replaced = [str(t) for t in targets if t.exists() or t.is_symlink()]
    _writable(directory)
    for source, target in zip(sources, targets, strict=True):
        target.unlink(missing_ok=True)  # --force replaces a link too, not what it points to
        target.write_bytes(source.read_bytes())
        if not json_output:
            typer.echo(str(target))
    if json_output:
        wrote = {"directory": str(directory), "wrote": [str(t) for t in targets]}
        typer.echo(strict_dumps({**wrote, "replaced": replaced}, indent=2))
    err_console.print(
        f"wrote {len(targets)} example files{f', {len(replaced)} replaced' if replaced else ''}; "
        f"try: fairjudge compare {directory / 'demo_pairs.jsonl'} --judge {_NEXT}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
