"""How a command shows its report, and writes its ``--out`` file and header-carded page.

Every ``--out`` file is the library's :meth:`fairjudge.Result.save`
(:mod:`fairjudge._api._out`); :func:`save_out` adds what only the command line knows
(the command as typed, ``fairjudge run``'s config). :func:`show` prints a report as
``--json`` or as its tables, then where each written file went.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import typer
from rich.console import Console

from fairjudge._redact import redact_arg
from fairjudge.cli._app import err_console
from fairjudge.io import strict_dumps

__all__ = ["command_line", "save_out", "show", "write_page"]


class _Report(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=_Report)


def show(
    report: R,
    render: Callable[[R, Console], None],
    *,
    as_json: bool,
    files: Iterable[tuple[str, Path | None]] = (),
    markdown: Callable[[], str] | None = None,
) -> None:
    """Print ``report`` as JSON, or render its tables and say where each written file went.

    With ``--markdown``, its summary (``markdown``, else the report kind's own) is
    written too; ``--markdown -`` prints it instead of the tables
    (:mod:`fairjudge.cli._markdown`).
    """
    from fairjudge.cli._markdown import write_markdown

    def draw() -> str:  # the Markdown views load only when --markdown is given
        from fairjudge.report import markdown_of

        return markdown() if markdown is not None else markdown_of(report)

    if as_json:
        typer.echo(strict_dumps(report.to_dict(), indent=2))
        write_markdown(draw)
        return
    if not write_markdown(draw):
        render(report, Console())
    for label, path in files:
        if path is not None:
            err_console.print(f"{label}: {path}", highlight=False, markup=False)


def command_line(name: str) -> list[str]:
    """The command as typed, ``fairjudge`` first, every credential in it masked.

    ``sys.argv`` when the process is the ``fairjudge`` command; otherwise (the CLI
    called from Python, as tests do) the command's ``name`` alone, not the host
    program's arguments. Masked here (:func:`fairjudge._redact.redact_arg`: a key in
    a ``--base-url``, a known secret), so no page, file or header shows what a
    header would not.
    """
    program = Path(sys.argv[0]).name if sys.argv else ""
    if program.removesuffix(".exe") == "fairjudge":
        return ["fairjudge", *map(redact_arg, sys.argv[1:])]
    return ["fairjudge", name]


def save_out(done: Any, path: Path | None, name: str) -> None:
    """Write command ``name``'s ``--out`` when asked: the library's own ``save``.

    The header gets what only the command line knows: the command as typed
    (:func:`command_line`), and the run's config table and file
    (:func:`~fairjudge.cli._run_config.current_config`), so any ``--out`` file says how
    to run its evaluation again (``fairjudge run``).
    """
    if path is None:
        return
    from fairjudge.cli._run_config import current_config, current_config_file

    extra = {"command": command_line(name), "config": current_config(),
             "config_file": current_config_file()}  # fmt: skip
    done.save(path, header_extra=extra)


def write_page(path: Path | None, done: Any) -> None:
    """Write ``done``'s ``--html`` page when asked: the page ``Result.to_html`` writes.

    Its run facts are read from the header ``--out`` opens with
    (:func:`fairjudge._api.page_header`), with the command as typed (masked, as in
    the file), so a command passes nothing of its page by hand.
    """
    if path is not None:
        done.to_html(path, header_extra={"command": command_line(done.kind)})
