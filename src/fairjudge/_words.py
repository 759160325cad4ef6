"""Text that names a parameter, in the words of whoever reads it.

A notebook user passed ``rounds=1``; a command-line user typed ``--rounds 1``. An
error carries the parameters it names (:attr:`~fairjudge.FairJudgeError.params`),
and the command line rewrites them when it prints the error. Text that is not an
error (a figure's "not estimated" reason, a warning on a report page) is made deep
in the library and reaches the user through JSON, tables and HTML alike, so it is
worded where it is made: :func:`worded` returns it as written, naming parameters,
unless the command running now has declared its own words with :func:`wording`
(the command line's flags, from its one table in ``cli/_flags.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["Wording", "worded", "wording"]

Wording = Callable[[str, tuple[str, ...]], str]
"""Rewrites a text that names the given parameters into its reader's words."""

_WORDING: ContextVar[Wording | None] = ContextVar("fairjudge_wording", default=None)


def worded(text: str, *params: str) -> str:
    """``text``, which names ``params`` by their Python names, in the current words."""
    words = _WORDING.get()
    return text if words is None else words(text, params)


@contextmanager
def wording(words: Wording) -> Iterator[None]:
    """Word every :func:`worded` text with ``words`` until the block ends."""
    token = _WORDING.set(words)
    try:
        yield
    finally:
        _WORDING.reset(token)
