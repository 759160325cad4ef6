"""What every top-level function shares: opening a judge from a spec, and its last run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fairjudge._api._inputs import ROWS
from fairjudge.runner import RunSummary

__all__ = ["last_run", "opened", "title"]


def title(source: str) -> str:
    """The input's name for a report's title: a file's name, ``<stdin>`` or ``<rows>``."""
    if source == "-":
        return "<stdin>"
    return source if source == ROWS else Path(source).name


@contextmanager
def opened(
    judge: Any,
    open_spec: Callable[[str | None], Any],
    own: Callable[[Any], Any] | None = None,
) -> Iterator[Any]:
    """The judge to use; one opened from a spec here is closed here.

    ``own`` wraps your own judge (a function, or an object with a ``judge``/``ajudge``
    method; anything with no ``judge_batch`` or ``score_batch``) with the run options
    and store, as a spec's judge would get them; the wrapper is closed here too.
    """
    if judge is None or isinstance(judge, str):
        judge_ = open_spec(judge)
    elif own is not None and not any(hasattr(judge, m) for m in ("judge_batch", "score_batch")):
        judge_ = own(judge)
    else:
        judge_ = None
    if judge_ is not None:
        try:
            yield judge_
        finally:
            close = getattr(judge_, "close", None)
            if callable(close):
                close()
    else:
        yield judge


def last_run(judge: object) -> RunSummary | None:
    """The judge's last run (calls, usage, cost), when it keeps one."""
    run = getattr(judge, "last_run", None)
    return run if isinstance(run, RunSummary) else None
