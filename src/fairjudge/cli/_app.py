"""The Typer application and how every command ends: its exit code and its error.

The exit codes are :mod:`fairjudge.cli._exit_codes`'s (0 trusted, 1 judging failed,
2 bad input before any call, 3-8 a result that stands only in part, 130 Ctrl-C, 143
SIGTERM);
this module maps each error to its code.

With ``--json``, every failure is also a JSON object on stdout,
``{"error": {"type", "message", "exit_code"}}``: usage errors that Click raises
while parsing (:meth:`LazyCommands.invoke`) as well as fairjudge's own (:func:`_fail`).

Every piece of user or exception text is printed with markup off, so a path, a
column, a model name or a server message containing ``[...]`` reaches the user
whole instead of being eaten by rich.

Start-up: a command's module (and the library it calls) is imported only when that
command runs or shows its help (:class:`LazyCommands`); ``fairjudge --help`` and
``--version`` import none of them. ``--save-config`` is given to every command a config
file can run (:data:`CONFIG_COMMANDS`) as it loads; the config machinery
(``cli._run_config``) loads only when the flag is used.

The script (:func:`main`): an exception that escapes every guard is still one line
(and ``--json``'s error), never a traceback. The first Ctrl-C stops the run: no new
call starts, and the calls in flight get a grace period (``$FAIRJUDGE_INTERRUPT_GRACE``
seconds, 5 by default; ``runner._executor.EventLoopThread._grace``) to finish and be
stored, since their replies are billed either way. It then says what it kept (the
calls in flight stored and abandoned too; with ``--json``, an ``Interrupted`` error
object as well) and exits 130 with :func:`os._exit` (the embedded judge may be on a
thread llama.cpp cannot stop); a second one exits at once, grace or not. A SIGTERM
does the same, exit 143. A judge that keeps nothing (an undeclared Python judge, or a
panel with one: ``runner._limits.GracefulStop``) is stopped rather than ended: its runs
start no call, give the calls in flight the grace, and return what answered as a
partial result, which the command writes as any (``--out``, ``--html``); then the
same exit, with a line saying where it went (``GracefulStop.say``). A bad
``$FAIRJUDGE_INTERRUPT_GRACE`` is a ``ConfigError`` (exit 2) before any call. The
objects made at start-up are frozen out of every garbage collection (:func:`gc.freeze`).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import os
import signal
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from types import FrameType
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

try:  # Typer 0.29 ships its own copy of Click; already imported by ``typer.core``
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - a Typer that uses Click itself
    from click.exceptions import ClickException  # type: ignore[no-redef, import-not-found, assignment, unused-ignore]

from fairjudge._errors import (
    BatchPending,
    BudgetExceeded,
    ConfigError,
    FairJudgeError,
    InputError,
    wording,
)
from fairjudge._version import __version__
from fairjudge.cli._coercion import plain_values
from fairjudge.cli._exit_codes import (
    EXIT_BATCH_PENDING,
    EXIT_BUDGET,
    EXIT_CODES_HELP,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_USAGE,
)
from fairjudge.cli._flags import keep_typed, to_flags

__all__ = [
    "COMMANDS",
    "CONFIG_COMMANDS",
    "LazyCommands",
    "app",
    "echo_error",
    "err_console",
    "guarded",
    "in_flags",
    "internal_error",
    "main",
    "notes",
    "say",
]

COMMANDS: dict[str, tuple[str, str]] = {
    "audit": (
        "fairjudge.cli._audit",
        "Measure a judge's position, verbosity, framing and self-preference bias.",
    ),
    "score": (
        "fairjudge.cli._score",
        "Score each answer against a rubric: per-dimension means, medians, CIs, collapse alarm.",
    ),
    "calibrate": (
        "fairjudge.cli._calibrate",
        "Check a judge against human labels before using it at scale.",
    ),
    "compare": (
        "fairjudge.cli._compare",
        "Compare two systems' answers with the position-debiased protocol.",
    ),
    "rank": (
        "fairjudge.cli._rank",
        "Rank many models: judge pairs with the debiased protocol, fit Bradley-Terry.",
    ),
    "report": (
        "fairjudge.cli._report",
        "Write the self-contained HTML page of a saved run; no judge is called.",
    ),
    "rubrics": (
        "fairjudge.cli._shipped",
        "List the built-in rubrics for `fairjudge score`, with their dimensions.",
    ),
    "jury": (
        "fairjudge.cli._jury",
        "Judge two systems' answers with a panel of judges, and show what each member adds.",
    ),
    "score-jury": (
        "fairjudge.cli._jury",
        "Score each answer with a panel of judges: aggregates, agreement, what each adds.",
    ),
    "label": (
        "fairjudge.cli._label",
        "Label pairs blind in a local web page; each label is saved into FILE as it is given.",
    ),
    "label-merge": (
        "fairjudge.cli._label",
        "Merge two labellers' files of the same items, with their agreement.",
    ),
    "example-data": (
        "fairjudge.cli._shipped",
        "Copy the example inputs and judges into DIR, to try every command offline.",
    ),
    "run": (
        "fairjudge.cli._run",
        "Run an evaluation from its config file: the command, its input and every flag.",
    ),
}
"""Each command: the module that registers it, and its docstring's first paragraph
(what ``fairjudge --help`` lists; a test keeps the two equal)."""

CONFIG_COMMANDS = (
    "compare", "rank", "calibrate", "score", "audit", "jury", "score-jury", "report",
)  # fmt: skip
"""The commands a config file runs (``fairjudge run``), which take ``--save-config``."""


class _Unloaded(TyperCommand):
    """A command whose module is not imported yet: its name and summary only."""


class LazyCommands(TyperGroup):
    """The root command: a command's module is imported when it runs or shows its help.

    Until then it is listed from :data:`COMMANDS`, so ``fairjudge --help`` costs no
    judge, runner, report or numpy import.
    """

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        loaded = dict(self.commands)
        self.commands = {
            name: loaded.get(name) or _Unloaded(name, help=summary)
            for name, (_, summary) in COMMANDS.items()
        }
        self.commands.update(loaded)
        self._listing = False
        self._json = False

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        """The root context; a usage error in the root's own options is reported as JSON too.

        Click raises a usage error (an unknown option, a bad choice, a missing
        argument) while parsing, before any command body, and so before
        :func:`guarded` could see ``--json``: hence ``--json`` is looked for in the
        arguments themselves.
        """
        self._json = _asks_json(args)
        plain_values(self)  # --install/--show-completion too, without pydantic
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except ClickException as exc:
            self._usage_json(exc)
            raise

    def invoke(self, ctx: Any) -> Any:
        """Run the command; its usage errors are reported as JSON too with ``--json``."""
        try:
            return super().invoke(ctx)
        except ClickException as exc:
            self._usage_json(exc)
            raise

    def _usage_json(self, exc: ClickException) -> None:
        """With ``--json``, Click's error as fairjudge's JSON error object on stdout.

        Click still prints its usage text and message on stderr, and exits with the
        error's code (2 for every usage error).
        """
        if self._json:
            echo_error(type(exc).__name__, exc.format_message(), exc.exit_code)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The command, its module imported first when it has not been."""
        command = self.commands.get(cmd_name)
        if isinstance(command, _Unloaded) and not self._listing:
            importlib.import_module(COMMANDS[cmd_name][0])  # registers it with ``app``
            group = typer.main.get_command(app)
            assert isinstance(group, TyperGroup)
            command = self.commands[cmd_name] = group.commands[cmd_name]
            plain_values(command)  # its options coerced without pydantic (see ``_coercion``)
        if command is not None and not self._listing:
            offer_save_config(cmd_name, command)  # --save-config (docs/config.md)
            keep_typed(command)  # a path as typed: "out/" names a folder, Path("out") not
        return command

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """List the commands from their summaries, importing none."""
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False

    def shell_complete(self, ctx: Any, incomplete: str) -> Any:
        """Complete the command names from their summaries, importing none.

        Shell completion (``--install-completion``) runs this on every Tab after
        ``fairjudge``; importing each command to read its summary took about 1 s.
        A command's own options are completed from the command, imported then.
        """
        self._listing = True
        try:
            return super().shell_complete(ctx, incomplete)
        finally:
            self._listing = False


@functools.cache
def _save_option() -> Any:
    """The ``--save-config`` option, declared as Typer declares every other."""
    probe = typer.Typer()

    @probe.command()
    def _probe(
        save_config: Annotated[
            Path | None,
            typer.Option(
                metavar="PATH",
                help="Write this command's config file (TOML) to PATH and exit without "
                "judging; `fairjudge run PATH` then runs it (docs/config.md). Never writes "
                "an API key.",
            ),
        ] = None,
    ) -> None: ...

    return typer.main.get_command(probe).params[0]


def offer_save_config(name: str, command: Any) -> None:
    """Give ``command`` the ``--save-config`` option, if a config file can run it."""
    if name not in CONFIG_COMMANDS or any(p.name == "save_config" for p in command.params):
        return
    command.params.append(_save_option())
    plain_values(command)
    run = command.callback

    @functools.wraps(run)
    def callback(*args: Any, save_config: Path | None = None, **kwargs: Any) -> Any:
        if save_config is None:
            return run(*args, **kwargs)
        from fairjudge.cli._run_config import save

        # Its errors are said as the command's are: one line, no usage text.
        as_json = bool(kwargs.get("json_output"))
        return guarded(save)(name, command, save_config, kwargs, json_output=as_json)

    command.callback = callback


app = typer.Typer(
    cls=LazyCommands,
    name="fairjudge",
    help="LLM-as-a-judge evaluation you can trust: position-debiased, with honest uncertainty.",
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    # Plain click help wraps at the terminal's width; rich's option panels cut long
    # option names and defaults off at 80 columns.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


class _UsersConsole(Console):
    """stderr, where every line is in the words the user gave (:func:`_users_words`)."""

    def print(self, *objects: Any, worded: bool = False, **options: Any) -> None:
        """Print as :meth:`rich.console.Console.print`, each string in the user's words.

        ``worded``: the strings are in them already (:func:`say` words an error with
        its line first), so they are not reworded.
        """
        if not worded:
            objects = tuple(_users_words(o) if isinstance(o, str) else o for o in objects)
        super().print(*objects, **options)


err_console = _UsersConsole(stderr=True)


def _users_words(text: str, *, error: bool = False) -> str:
    """``text``, which names this command's flags, in the words the user gave them in.

    Typed, those are the flags. Under ``fairjudge run FILE`` they are FILE's keys, and
    an ``error`` starts with FILE, the line and the key it is about
    (:func:`~fairjudge.cli._run_config.config_words`). Every line on stderr passes
    here (:data:`err_console`), an error first with ``error`` (:func:`_fail`).
    ``fairjudge run`` loads the config machinery; without it no config runs, and
    nothing is imported (this runs while an internal error is said, too).
    """
    config = sys.modules.get("fairjudge.cli._run_config")
    return text if config is None else str(config.config_words(text, at_line=error))


def say(label: str, text: str, style: str = "yellow", *, error: bool = False) -> str:
    """Print ``label: text`` on stderr, in the user's words (:func:`_users_words`); return it.

    ``text`` is shown literally, never as markup. Messages quote file names, values
    and server replies: untrusted text, so hidden characters (a bidi override, ESC)
    are shown as markers, as in every report.
    """
    from fairjudge.report import visible

    text = _users_words(text, error=error)
    err_console.print(f"[{style}]{label}:[/{style}] ", end="", highlight=False)
    err_console.print(visible(text), worded=True, highlight=False, markup=False, soft_wrap=True)
    return text


def _note(line: str) -> None:
    err_console.print(line, highlight=False, markup=False)


def notes(quiet: bool) -> Callable[[str], None] | None:
    """Where a library function's ``notify`` lines go: stderr; nowhere with ``-q``."""
    return None if quiet else _note


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
        from fairjudge.stats import shared_resamples

        as_json = bool(kwargs.get("json_output"))
        judging = "store" in kwargs  # a judging command: its calls go to this store
        if judging:
            _running_store(kwargs["store"], kwargs)
        interrupted = False
        try:
            # A command's summaries draw each resampling plan once, and its reports name
            # the flags the user typed, not the library's parameters.
            with shared_resamples(), wording(_flag_words):
                return fn(*args, **kwargs)
        except (InputError, ConfigError) as exc:
            _fail("error", exc, EXIT_USAGE, as_json, style="red")
        except BudgetExceeded as exc:
            _fail("stopped", exc, EXIT_BUDGET, as_json)
        except BatchPending as exc:
            _fail("batches submitted", exc, EXIT_BATCH_PENDING, as_json)
        except FairJudgeError as exc:
            _fail("judging failed", exc, EXIT_FAILED, as_json, style="red")
        except OSError as exc:  # a file that could not be written after all: no traceback
            _fail("error", exc, EXIT_FAILED, as_json, style="red")
        except (typer.Exit, ClickException):
            raise
        except Exception as exc:  # a bug: one clear line (and the JSON error), no traceback
            internal_error(exc, as_json)
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM (:class:`_Interrupts`)
            interrupted = True  # the store stays named for a second Ctrl-C (:func:`_again`)
            from fairjudge.judges import interrupt_note  # what a Python judge's run kept

            said = [interrupt_note() or f"interrupted; {_kept()}"]
            said += getattr(exc, "__notes__", [])  # what the run left going (a provider's batch)
            line, code = _flag_words("; ".join(said), ()), _interrupt_code()
            if code == EXIT_TERMINATED:
                line = "interrupted by SIGTERM" + line.removeprefix("interrupted")
            _note(line)
            if as_json:  # a script reading stdout learns why it ended, as for an error
                echo_error("Interrupted", line, code)
            raise typer.Exit(code) from None
        finally:
            if judging and not interrupted:  # ended: a later command names its own
                _STORE.clear()

    return wrapper  # type: ignore[return-value]


_STORE: list[str] = []
"""The store of the judging command running, once :func:`guarded` has seen its flags."""
_COMMAND: list[dict[str, Any]] = []
"""Its parameters: where a graceful stop's result went (``--out``, ``--html``)."""


def _running_store(store: Path | None, command: dict[str, Any] | None = None) -> None:
    """Remember the command's store, so that a Ctrl-C can name it (:func:`_kept`).

    And its parameters (``command``): its ``--out`` and ``--html`` are where a judge that
    keeps nothing, stopped by a Ctrl-C rather than ended, keeps what answered
    (``runner._limits.GracefulStop``).
    """
    from fairjudge.runner import DEFAULT_STORE_PATH

    _STORE[:] = [str(store or DEFAULT_STORE_PATH)]
    _COMMAND[:] = [command or {}]


def _kept() -> str:
    """What a Ctrl-C leaves: the store that keeps every finished call, and how to go on.

    A user who stopped a long run must know where its calls are and that the same
    command, run again, makes only the rest; a command with no store named (none
    judges) says the store's promise alone.
    """
    if not _STORE:
        return "every finished call is kept in the store"
    return (
        f"every finished call is kept in the store {_STORE[0]}; run the same command "
        "again to make only the rest"
    )


def _fail(
    label: str, exc: Exception, code: int, as_json: bool, *, style: str = "yellow"
) -> NoReturn:
    """Report an error on stderr, and with ``--json`` as a JSON object on stdout too.

    A script that asked for JSON always gets JSON it can read, even on failure, worded
    as on stderr.
    """
    message = say(label, in_flags(exc), style=style, error=True)
    if as_json:
        echo_error(type(exc).__name__, message, code)
    raise typer.Exit(code) from None


TRACEBACK_ENV = "FAIRJUDGE_TRACEBACK"
"""Set to ``1`` to see the traceback of an unexpected error instead of its one line."""


def internal_error(exc: BaseException, as_json: bool) -> NoReturn:
    """An unexpected exception, said in one line on stderr (and as ``--json``'s error); exit 1.

    It is a bug in fairjudge, so the line says so, names the exception and how to see
    where it happened. Its text is scrubbed of secrets, as every message is.
    """
    from fairjudge._redact import scrub

    if os.environ.get(TRACEBACK_ENV) == "1":
        raise exc
    text = scrub(str(exc)).strip().splitlines()
    message = (
        f"{type(exc).__name__}: {text[0] if text else '(no message)'}. This is a bug in "
        f"fairjudge, not in your input: please report it, with the command; "
        f"{TRACEBACK_ENV}=1 shows where it happened"
    )
    message = say("internal error", message, style="red", error=True)
    if as_json:
        echo_error(type(exc).__name__, message, EXIT_FAILED)
    raise typer.Exit(EXIT_FAILED) from None


def in_flags(exc: Exception) -> str:
    """The error's message, with the parameters it names written as this command's flags."""
    text = str(exc)
    params = exc.params if isinstance(exc, FairJudgeError) else ()
    if not params:
        return text
    # The file the error names is the user's, word for word: "out.jsonl" stays.
    path = getattr(exc, "path", None)
    parts = text.split(path) if isinstance(path, str) and path else [text]
    return (path or "").join(_flag_words(part, params) for part in parts)


def _flag_words(text: str, params: tuple[str, ...]) -> str:
    """``text`` with the parameters it names written as the running command's flags."""
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    return to_flags(text, params, ctx.info_name if ctx is not None else None)


def echo_error(kind: str, message: str, code: int) -> None:
    """The JSON error object on stdout: ``{"error": {"type", "message", "exit_code"}}``."""
    from fairjudge.io import strict_dumps  # here: --version and --help never load io

    error = {"error": {"type": kind, "message": message, "exit_code": code}}
    typer.echo(strict_dumps(error, indent=2))


def _asks_json(args: list[str]) -> bool:
    """Whether the command line asks for ``--json`` (an option: before any ``--``)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


# --- the script ---------------------------------------------------------------

_AGAIN = b"interrupted again: stopping now; every finished call is kept in the store\n"
"""The second Ctrl-C's line before any command named its store."""


_SIGNALLED: list[int] = []
"""The signal that interrupted the run (SIGINT or SIGTERM), once :class:`_Interrupts` saw one."""


def _interrupt_code() -> int:
    """The exit code of an interrupted run: 143 for a SIGTERM, 130 for a Ctrl-C."""
    return EXIT_TERMINATED if _SIGNALLED[:1] == [signal.SIGTERM] else EXIT_INTERRUPTED


class _Interrupts:
    """SIGINT and SIGTERM: a :class:`KeyboardInterrupt` the first time, an immediate exit after.

    SIGTERM (``docker stop``, Kubernetes, ``timeout``, a CI cancel) stops the run as a
    Ctrl-C does, with its line and its JSON error, and exits 143, not 130.
    """

    def __init__(self) -> None:
        self.seen = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.seen:
            os.write(2, _again())  # no Python I/O in a signal handler: it may hold a lock
            os._exit(_interrupt_code())
        self.seen, _SIGNALLED[:] = True, [signum]
        # A judge that keeps nothing (an undeclared Python judge) is stopped, not ended:
        # its runs return what answered. Read only if loaded: nothing is imported here.
        limits = sys.modules.get("fairjudge.runner._limits")
        if limits is None or not limits.GRACEFUL_STOP.stop():
            raise KeyboardInterrupt


def _again() -> bytes:
    """The second Ctrl-C's line: the store's promise, unless the judge running has no store.

    An undeclared Python judge keeps nothing (``judges._own_judge.interrupt_note``); the
    module is read only if it is loaded already: nothing is imported in a signal handler.
    """
    own = sys.modules.get("fairjudge.judges._own_judge")
    note = own.interrupt_note() if own is not None else None
    if not note:
        return f"interrupted again: stopping now; {_kept()}\n".encode() if _STORE else _AGAIN
    return f"interrupted again: stopping now; {note.removeprefix('interrupted; ')}\n".encode()


def main() -> None:
    """Entry point of the ``fairjudge`` script."""
    gc.freeze()  # what the imports made lives until exit: no collection need look at it
    interrupts = _Interrupts()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interrupts)
    code: str | int | None = 0
    try:
        app(prog_name="fairjudge")
    except SystemExit as exc:
        code = exc.code
    except KeyboardInterrupt:  # before any command took over: nothing to keep
        code = EXIT_INTERRUPTED
    except Exception as exc:  # escaped every command's guard: one line still, no traceback
        code = _unexpected(exc)
    finally:
        gc.freeze()  # the interpreter's collections at exit would find nothing to free
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED) or interrupts.seen:
        if (limits := sys.modules.get("fairjudge.runner._limits")) is not None:  # kept what?
            limits.GRACEFUL_STOP.say(code, _interrupt_code() == EXIT_TERMINATED, *_COMMAND[:1])
        _exit_now(_interrupt_code())
    sys.exit(code)


def _unexpected(exc: Exception) -> int:
    """Say an unexpected error in one line (a JSON error too, under ``--json``); its exit code."""
    try:
        internal_error(exc, _asks_json(sys.argv[1:]))
    except typer.Exit as done:
        return done.exit_code


def _exit_now(code: int) -> NoReturn:
    """Flush what was printed and exit, skipping the interpreter's teardown."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
            stream.flush()
    os._exit(code)
