"""The Typer application and the exit-code contract.

Exit codes:

- 0: success; the numbers printed can be trusted as far as their intervals say.
- 1: judging failed (a fatal backend error, an unreachable server, an unexpected
  error); every finished call is kept in the store.
- 2: usage or input errors (bad options, bad files, unknown judges, missing extras),
  always reported before the first judge call.
- 3: ``calibrate``'s Spearman gate failed.
- 4: too many items could not be resolved (``--max-unresolved``): the calls ran,
  but too few verdicts came back to trust the result.
- 5: stopped by ``--max-calls`` / ``--max-cost``: the partial result is printed and
  saved (``--json``, ``--out``), marked partial; run again with a larger budget to
  finish (stored calls cost nothing).
- 130: interrupted; every finished call is kept in the store.

Every piece of user or exception text is printed with markup off, so a path, a
column, a model name or a server message containing ``[...]`` reaches the user
whole instead of being eaten by rich.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console

from fairjudge._errors import BudgetExceeded, ConfigError, FairJudgeError, InputError
from fairjudge._version import __version__

__all__ = [
    "EXIT_BUDGET",
    "EXIT_FAILED",
    "EXIT_GATE_FAILED",
    "EXIT_UNRESOLVED",
    "EXIT_USAGE",
    "app",
    "err_console",
    "guarded",
    "say",
]

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_GATE_FAILED = 3
EXIT_UNRESOLVED = 4
EXIT_BUDGET = 5

app = typer.Typer(
    name="fairjudge",
    help="LLM-as-a-judge evaluation you can trust: position-debiased, with honest uncertainty.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Plain click help wraps at the terminal's width; rich's option panels cut long
    # option names and defaults off at 80 columns.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
err_console = Console(stderr=True)


def say(label: str, text: str, style: str = "yellow") -> None:
    """Print ``label: text`` on stderr; ``text`` is shown literally, never as markup."""
    err_console.print(f"[{style}]{label}:[/{style}] ", end="", highlight=False)
    err_console.print(text, highlight=False, markup=False, soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"fairjudge {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """LLM-as-a-judge evaluation you can trust: position-debiased, with honest uncertainty."""


F = TypeVar("F", bound=Callable[..., Any])


def guarded(fn: F) -> F:
    """Turn fairjudge's errors into one clear line on stderr and the right exit code."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        as_json = bool(kwargs.get("json_output"))
        try:
            return fn(*args, **kwargs)
        except (InputError, ConfigError) as exc:
            _fail("error", exc, EXIT_USAGE, as_json, style="red")
        except BudgetExceeded as exc:
            _fail("stopped", exc, EXIT_BUDGET, as_json)
        except FairJudgeError as exc:
            _fail("judging failed", exc, EXIT_FAILED, as_json, style="red")
        except OSError as exc:  # a file that could not be written after all: no traceback
            _fail("error", exc, EXIT_FAILED, as_json, style="red")
        except KeyboardInterrupt:
            err_console.print("interrupted; every finished call is kept in the store")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _fail(
    label: str, exc: Exception, code: int, as_json: bool, *, style: str = "yellow"
) -> NoReturn:
    """Report an error on stderr, and with ``--json`` as a JSON object on stdout too.

    A script that asked for JSON always gets JSON it can read, even on failure.
    """
    say(label, str(exc), style=style)
    if as_json:
        error = {"error": {"type": type(exc).__name__, "message": str(exc), "exit_code": code}}
        typer.echo(json.dumps(error, indent=2))
    raise typer.Exit(code) from None
