"""How a command ends: its files written, its report shown, its exit code.

Every ``--out`` file is the library's :meth:`fairjudge.Result.save`
(:mod:`fairjudge._api._out`); :func:`save_out` adds what only the command line knows
(the command as typed, ``fairjudge run``'s config). :func:`show` prints a report as
``--json`` or as its tables, then where each written file went; :func:`unresolved_exit`
picks the exit code of a run's coverage.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import typer
from rich.console import Console

from fairjudge._redact import redact_arg
from fairjudge.cli._app import err_console, say
from fairjudge.cli._exit_codes import EXIT_BUDGET, EXIT_UNRESOLVED
from fairjudge.io import strict_dumps

if TYPE_CHECKING:
    from fairjudge._api import PairwiseResult

__all__ = [
    "check_unresolved",
    "command_line",
    "finish",
    "save_out",
    "show",
    "unresolved_exit",
    "write_page",
]


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


def finish(
    done: Any, name: str, render: Callable[[Any, Console], None], *, out: Path | None,
    html: Path | None, as_json: bool,
) -> None:  # fmt: skip
    """Write command ``name``'s ``--out`` and ``--html``, then show ``done``'s report.

    The files come before the report and the exit code: a failed run's files help most.
    """
    save_out(done, out, name)
    write_page(html, done)
    show(done.report, render, as_json=as_json,
         files=(("per-item results", out), ("HTML report", html)))  # fmt: skip


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


def check_unresolved(result: PairwiseResult, limit: float) -> None:
    """Exit unless the result stands: 5 when it is partial, 4 when too few items resolved."""
    code = unresolved_exit(
        result.stopped, result.n_unresolved, result.n_items, limit, what="have no verdict",
        none=result.win_rate is None, reasons="the reasons are listed above",
    )  # fmt: skip
    if code:
        raise typer.Exit(code)


def unresolved_exit(
    stopped: str | None, n_bad: int, n: int, limit: float, *, what: str, none: bool,
    reasons: str | None = "the reasons are above",
) -> int:  # fmt: skip
    """The exit code of a run's coverage: 5 partial, 4 too many items unresolved, else 0.

    4 when more than ``limit`` of the ``n`` items are ``what`` (``n_bad`` of them), or
    when ``none`` resolved; each says why on stderr.
    """
    if stopped is not None:
        say("stopped", f"{stopped} The result above is partial.")
        return EXIT_BUDGET
    share = n_bad / n if n else 0.0
    if share > limit or none:
        say(
            "too many unresolved items",
            f"{n_bad} of {n} items {what} ({share:.0%} > --max-unresolved {limit:g})"
            + (f"; {reasons}" if reasons else ""),
            style="red",
        )
        return EXIT_UNRESOLVED
    return 0
