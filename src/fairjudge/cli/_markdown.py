"""``--markdown FILE``: every command's Markdown summary, for a pull request comment.

:func:`markdown_flag` adds the option to a command, once for all of them, and checks
it before anything is read or judged: the file must be writable and must not be one
of the command's other files (its input, ``--out``, ``--html``, ``--output``).
``-`` writes the summary to standard output instead of the tables, so that
``--markdown - >> "$GITHUB_STEP_SUMMARY"`` holds the Markdown alone; with
``--json``, which prints there too, it is refused (exit 2, naming both flags):
standard output carries one format, whole.

The command, once its report is built, hands :func:`write_markdown` a function that
draws the Markdown (:mod:`fairjudge.report._markdown`); the file is written
atomically (a temporary file renamed into place), so a crash never leaves half a
summary.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import fields, is_dataclass
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from fairjudge._errors import ConfigError
from fairjudge.cli._app import err_console
from fairjudge.cli._writable import check_writable

__all__ = [
    "markdown_flag",
    "markdown_given",
    "refuse_markdown",
    "write_markdown",
]

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

# The command's other files, by parameter name: the flag each is given with.
_FILES = {"out": "--out", "html": "--html", "output": "--output", "baseline": "--baseline",
          "jury": "--jury", "items": "--items"}  # fmt: skip


def _given_files(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[tuple[str, Path]]:
    """Every file a command was given, with the flag (or ``FILE``) that named it."""
    for value in args:
        if isinstance(value, Path):
            yield "FILE", value
    for name, value in kwargs.items():
        if isinstance(value, Path):
            yield _FILES.get(name, "FILE"), value
        elif is_dataclass(value) and not isinstance(value, type):
            for f in fields(value):
                inner = getattr(value, f.name)
                if isinstance(inner, Path):
                    yield _FILES.get(f.name, "FILE"), inner


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
            _check(markdown, bool(kwargs.get("json_output")), _given_files(args, kwargs))
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
    err_console.print(f"Markdown summary: {target}", highlight=False, markup=False)
    return False


def refuse_markdown(what: str) -> None:
    """Refuse ``--markdown`` for a run no summary draws yet (exit 2, before any call)."""
    if _TARGET.get() is not None:
        raise ConfigError(
            f"--markdown does not draw {what} yet; its tables and --json show the run. "
            "Drop --markdown for it"
        )
