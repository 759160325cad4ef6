"""How a command ends: its files written, its report shown, its exit code.

Every ``--out`` file is the library's :meth:`fairjudge.Result.save`
(:mod:`fairjudge._api._out`); :func:`save_out` adds what only the command line knows
(the command as typed, ``fairjudge run``'s config). :func:`show` prints a report as
``--json`` or as its tables, then where each written file went; :func:`unresolved_exit`
picks the exit code of a run's coverage before the report is printed, as an
:class:`Ending`: with ``--json`` an exit 4 is said on stdout too
(``too_many_unresolved``), and the exit comes after the report.

``--markdown FILE``, every command's Markdown summary for a pull request comment, is
added by :func:`markdown_flag` and checked before anything is read or judged: the file
must be writable and not one of the command's other files. ``-`` writes the summary to
standard output instead of the tables, so ``--markdown - >> "$GITHUB_STEP_SUMMARY"``
holds the Markdown alone; with ``--json``, which prints there too, it is refused. The
file is written atomically, so a crash never leaves half a summary.
"""

from __future__ import annotations

import inspect
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, is_dataclass
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar

import typer
from rich.console import Console

from fairjudge._errors import ConfigError
from fairjudge._redact import redact_arg
from fairjudge.cli._app import err_console, say
from fairjudge.cli._exit_codes import EXIT_BUDGET, EXIT_UNRESOLVED
from fairjudge.cli._flags import FLAGS, check_writable

__all__ = [
    "Ending",
    "command_line",
    "finish",
    "markdown_flag",
    "markdown_given",
    "refuse_markdown",
    "save_out",
    "show",
    "unresolved_exit",
    "verdict_exit",
    "write_markdown",
    "write_page",
]


class _Report(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=_Report)


@dataclass(frozen=True, slots=True)
class Ending:
    """How a run ends, decided before its report is printed: exit code, stderr line, JSON.

    ``code`` 0 is a run that stands. ``said`` is the ``label``, text and style stderr
    says after the report (:meth:`exit`); ``json`` what ``--json`` adds to the
    report's object, only for an exit 4 (``too_many_unresolved``).
    """

    code: int = 0
    said: tuple[str, str, str] = ("", "", "yellow")
    json: dict[str, Any] = field(default_factory=dict)

    def exit(self) -> None:
        """Say why the run ends so, and exit with its code; nothing for a run that stands."""
        if self.code:
            say(*self.said)
            raise typer.Exit(self.code)


_STANDS = Ending()


def show(
    report: R,
    render: Callable[[R, Console], None],
    *,
    as_json: bool,
    files: Iterable[tuple[str, Path | None]] = (),
    markdown: Callable[[], str] | None = None,
    ending: Ending = _STANDS,
    reasons: Iterable[Counter[str]] = (),
) -> None:
    """Print ``report`` as JSON, or render its tables and say where each written file went.

    With ``--markdown``, its summary (``markdown``, else the report kind's own) is
    written too; ``--markdown -`` prints it instead of the tables, and then the
    ``reasons`` the tables list (why calls gave no verdict, which exit 4's line says
    are listed above) on stderr, so stdout stays one document. The JSON gets what the run's
    ``ending`` adds.
    """
    from fairjudge.io import strict_dumps  # here: report --help needs no io

    def draw() -> str:  # the Markdown views load only when --markdown is given
        from fairjudge.report import markdown_of

        return markdown() if markdown is not None else markdown_of(report)

    if as_json:
        typer.echo(strict_dumps({**report.to_dict(), **ending.json}, indent=2))
        write_markdown(draw)
        return
    if not write_markdown(draw):
        render(report, Console())
    else:  # as calibrate's, beside its --markdown -
        from fairjudge.report import print_failures

        for failures in reasons:
            print_failures(failures, err_console)
    for label, path in files:
        if path is not None:
            err_console.print(f"{label}: {path}", highlight=False, markup=False, soft_wrap=True)


def finish(
    done: Any, name: str, render: Callable[[Any, Console], None], *, out: Path | None,
    html: Path | None, as_json: bool, ending: Ending, report: Any = None,
    markdown: Callable[[], str] | None = None, reasons: Iterable[Counter[str]] | None = None,
) -> None:  # fmt: skip
    """Write command ``name``'s ``--out`` and ``--html``, then show ``done``'s report.

    The files come before the report and the exit code: a failed run's files help most.
    The caller exits with ``ending`` after it, which ``--json`` has said already.
    ``report``, ``markdown`` and ``reasons``: what :func:`show` shows, when not
    ``done.report``, its kind's own summary and its ``failures`` (which its tables
    list first; a comparison via scores is its own report).
    """
    save_out(done, out, name)
    write_page(html, done)
    shown = done.report if report is None else report
    show(shown, render, as_json=as_json, ending=ending, markdown=markdown,
         files=(("per-item results", out), ("HTML report", html)),
         reasons=(shown.failures,) if reasons is None else reasons)  # fmt: skip


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
    (:func:`fairjudge._api._result.page_header`), with the command as typed (masked, as in
    the file), so a command passes nothing of its page by hand.
    """
    if path is not None:
        done.to_html(path, header_extra={"command": command_line(done.kind)})


def verdict_exit(
    result: Any, limit: float, what: str = "have no verdict",
    reasons: str | None = "the reasons are listed above", *, as_json: bool = False,
    key: str = "failures", noun: str = "items",
) -> Ending:  # fmt: skip
    """A win rate's ending: 5 when it is partial, 4 when too many items are ``what``.

    ``result``: a pairwise result, a jury's or one via scores (``stopped``,
    ``n_unresolved``, ``n_items``, ``win_rate``: none resolved when it is None).
    ``reasons``, ``as_json``, ``key`` and ``noun``: as :func:`unresolved_exit`'s.
    """
    return unresolved_exit(
        result.stopped, result.n_unresolved, result.n_items, limit, what=what,
        none=result.win_rate is None, reasons=reasons, as_json=as_json, key=key, noun=noun,
    )  # fmt: skip


def unresolved_exit(
    stopped: str | None, n_bad: int, n: int, limit: float, *, what: str, none: bool,
    reasons: str | None = "the reasons are listed above", as_json: bool = False,
    key: str = "failures", noun: str = "items",
) -> Ending:  # fmt: skip
    """The ending of a run's coverage: 5 partial, 4 too many items unresolved, else none.

    4 when more than ``limit`` of the ``n`` items are ``what`` (``n_bad`` of them), or
    when ``none`` resolved; ``--json`` then says so under ``too_many_unresolved``:
    ``max_unresolved`` (the limit), ``n_unresolved`` (``n_bad``), ``n_items`` and
    ``share``. The line ends with where the reasons are, as the command prints its
    report: ``reasons`` (printed before the line; None: not said), or, ``as_json``,
    under ``key`` of the ``--json`` output. ``noun``: what the command's output calls
    the ``n`` things (``rank``'s are pairs; ``--json`` says ``n_items`` all the same).
    """
    if stopped is not None:
        return Ending(EXIT_BUDGET, ("stopped", f"{stopped} The result above is partial.", "yellow"))
    share = n_bad / n if n else 0.0
    if share <= limit and not none:
        return _STANDS
    over = (f"{share:.0%} > --max-unresolved {limit:g}" if share > limit
            else "none resolved, which fails at any --max-unresolved")  # fmt: skip
    if as_json:  # nothing is listed above: the reasons are in the JSON printed
        reasons = f'the reasons are under "{key}" in the --json output'
    said = f"{n_bad} of {n} {noun} {what} ({over})" + (f"; {reasons}" if reasons else "")
    counts = {"max_unresolved": limit, "n_unresolved": n_bad, "n_items": n, "share": share}
    return Ending(EXIT_UNRESOLVED, ("too many unresolved items", said, "red"),
                  {"too_many_unresolved": counts})  # fmt: skip


# --- --markdown FILE ---------------------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])

MarkdownFile = Annotated[
    Path | None,
    typer.Option(
        "--markdown",
        metavar="FILE",
        help="Write a Markdown summary for a pull request comment: the conclusion, its "
        "interval, the verdict counts and a table (no links, no HTML). '-' prints it on "
        "standard output instead of the tables (not with --json).",
    ),
]

_TARGET: ContextVar[Path | None] = ContextVar("fairjudge_markdown", default=None)


def _given_files(kwargs: dict[str, Any]) -> Iterator[tuple[str, Path]]:
    """Every file a command was given, with the flag (or ``FILE``, an argument) that named it.

    Typer passes every parameter by name, the command's arguments too.
    """
    for name, value in kwargs.items():
        if isinstance(value, Path):
            yield FLAGS.get(name, "FILE"), value
        elif is_dataclass(value) and not isinstance(value, type):
            for f in fields(value):
                inner = getattr(value, f.name)
                if isinstance(inner, Path):
                    yield FLAGS.get(f.name, "FILE"), inner


def _check(markdown: Path, as_json: bool, files: Iterator[tuple[str, Path]]) -> None:
    """Refuse, before any call, a ``--markdown`` that cannot or must not be written."""
    if str(markdown) == "-":
        if as_json:
            raise ConfigError(
                "--markdown - and --json both print on standard output; give --markdown a "
                "file name (e.g. --markdown summary.md) or drop --json"
            )
        return
    check_writable(markdown, "--markdown")
    for flag, path in files:
        if str(path) != "-" and path.resolve() == markdown.resolve():
            what = "the input file" if flag == "FILE" else f"also given to {flag}"
            raise ConfigError(f"--markdown {markdown}: is {what}; give another file name")


def markdown_flag(fn: F) -> F:
    """Add ``--markdown FILE`` to a command; check it, then run the command with it set.

    Put it right under ``@guarded``, so its errors exit 2 and it sees every flag.
    """
    signature = inspect.signature(fn, eval_str=True)
    option = inspect.Parameter(
        "markdown", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=MarkdownFile
    )

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        markdown = kwargs.pop("markdown", None)
        if markdown is not None:
            _check(markdown, bool(kwargs.get("json_output")), _given_files(kwargs))
        token = _TARGET.set(markdown)
        try:
            return fn(*args, **kwargs)
        finally:
            _TARGET.reset(token)

    params = [*signature.parameters.values(), option]
    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**fn.__annotations__, "markdown": MarkdownFile}
    return wrapper  # type: ignore[return-value]


def markdown_given() -> bool:
    """Whether ``--markdown`` was given: a command builds what only the summary needs."""
    return _TARGET.get() is not None


def write_markdown(draw: Callable[[], str]) -> bool:
    """Write the ``--markdown`` summary that ``draw`` makes, if the flag was given.

    Returns:
        True when the summary went to standard output (the tables are then not printed).
    """
    target = _TARGET.get()
    if target is None:
        return False
    text = draw()
    if str(target) == "-":
        typer.echo(text, nl=False)
        return True
    from fairjudge.io import write_atomic

    write_atomic(target, (text,))
    err_console.print(f"Markdown summary: {target}", highlight=False, markup=False, soft_wrap=True)
    return False


def refuse_markdown(what: str) -> None:
    """Refuse ``--markdown`` for a run no summary draws yet (exit 2, before any call)."""
    if _TARGET.get() is not None:
        raise ConfigError(
            f"--markdown does not draw {what} yet; its tables and --json show the run. "
            "Drop --markdown for it"
        )
