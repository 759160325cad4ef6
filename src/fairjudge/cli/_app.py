"""The Typer application and the exit-code contract.

Exit codes: 0 on success, 2 for usage or input errors (bad options, bad files,
unknown judges, missing extras), 1 when judging itself failed (a fatal backend
error, a budget stop, an unexpected error).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import typer
from rich.console import Console

from fairjudge._errors import BudgetExceeded, ConfigError, FairJudgeError, InputError

__all__ = ["EXIT_FAILED", "EXIT_USAGE", "app", "err_console", "guarded", "main"]

EXIT_FAILED = 1
EXIT_USAGE = 2

app = typer.Typer(
    name="fairjudge",
    help="LLM-as-a-judge evaluation you can trust: position-debiased, with honest uncertainty.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
err_console = Console(stderr=True)


@app.callback()
def _root() -> None:
    """LLM-as-a-judge evaluation you can trust: position-debiased, with honest uncertainty."""


F = TypeVar("F", bound=Callable[..., Any])


def guarded(fn: F) -> F:
    """Turn fairjudge's errors into one clear line on stderr and the right exit code."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (InputError, ConfigError) as exc:
            err_console.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_USAGE) from None
        except BudgetExceeded as exc:
            err_console.print(f"[yellow]stopped:[/yellow] {exc}", highlight=False)
            raise typer.Exit(EXIT_FAILED) from None
        except FairJudgeError as exc:
            err_console.print(f"[red]judging failed:[/red] {exc}", highlight=False)
            raise typer.Exit(EXIT_FAILED) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; every finished call is kept in the store")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _register() -> None:
    # Imported for their side effect of adding commands to `app`.
    from fairjudge.cli import _calibrate, _compare, _rank  # noqa: F401


def main() -> None:
    """Entry point of the ``fairjudge`` script."""
    _register()
    app(prog_name="fairjudge")
    sys.exit(0)
