"""The ``fairjudge`` script: the app, whose commands load when they run (see ``_app``).

Garbage collection, for a short-lived process: the objects that exist once the
modules are imported (functions, classes, module dicts: tens of thousands) live
until the process ends, yet every full collection would traverse them again, and
the interpreter runs a few full collections on the way out. Freezing them
(:func:`gc.freeze`) once at start-up and once more at the end takes them out of
every collection; cycles made while a command runs are still collected. At the end
nothing is left to do but exit: Python never promised to finalize objects that are
still alive at exit, and every file and store a command writes is closed by then.
That takes a fully cached ``compare`` of 1,000 calls from about 1.3 s to 1.0 s.

An exception that escapes a command's guard (``_app.guarded``) is still one line on
stderr, and under ``--json`` an ``{"error": ...}`` object on stdout, never a traceback
(``FAIRJUDGE_TRACEBACK=1`` shows it).

Ctrl-C: the first one raises :class:`KeyboardInterrupt`, so the run stops starting
calls, closes its store (every finished call is already on disk) and exits 130
(``_app.guarded``). An interrupted run then ends at once with :func:`os._exit`: the
embedded judge may still be evaluating a prompt on a thread that llama.cpp cannot
stop (``backends._local``), and the interpreter's exit would otherwise tear down
llama.cpp under it. A second Ctrl-C, while the first is being handled, exits 130 at
once with a line saying so.
"""

import contextlib
import gc
import os
import signal
import sys
from types import FrameType
from typing import NoReturn

from fairjudge.cli._app import app

__all__ = ["main"]

EXIT_INTERRUPTED = 130
_AGAIN = b"interrupted again: stopping now; every finished call is kept in the store\n"


class _Interrupts:
    """SIGINT: a :class:`KeyboardInterrupt` the first time, an immediate exit after."""

    def __init__(self) -> None:
        self.seen = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if not self.seen:
            self.seen = True
            raise KeyboardInterrupt
        os.write(2, _again())  # no Python I/O in a signal handler: it may hold a lock
        os._exit(EXIT_INTERRUPTED)


def _again() -> bytes:
    """The second Ctrl-C's line: the store's promise, unless the judge running has no store.

    An undeclared Python judge keeps nothing (``judges._own_judge.interrupt_note``); the
    module is read only if it is loaded already: nothing is imported in a signal handler.
    """
    own = sys.modules.get("fairjudge.judges._own_judge")
    note = own.interrupt_note() if own is not None else None
    if not note:
        return _AGAIN
    return f"interrupted again: stopping now; {note.removeprefix('interrupted; ')}\n".encode()


def main() -> None:
    """Entry point of the ``fairjudge`` script."""
    gc.freeze()  # what the imports made lives until exit: no collection need look at it
    interrupts = _Interrupts()
    signal.signal(signal.SIGINT, interrupts)
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
    if code == EXIT_INTERRUPTED or interrupts.seen:
        _exit_now(EXIT_INTERRUPTED)
    sys.exit(code)


def _unexpected(exc: Exception) -> int:
    """Say an unexpected error in one line (a JSON error too, under ``--json``); its exit code."""
    from typer import Exit

    from fairjudge.cli._app import _asks_json, internal_error

    try:
        internal_error(exc, _asks_json(sys.argv[1:]))
    except Exit as done:
        return done.exit_code


def _exit_now(code: int) -> NoReturn:
    """Flush what was printed and exit, skipping the interpreter's teardown."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
            stream.flush()
    os._exit(code)
