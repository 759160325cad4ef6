"""A progress bar for a Python judge run without run options (the runner draws none).

Model judges, and Python judges given run options (as every ``python:`` judge of the
command line is), show the runner's progress (cached, done, failed, retries); a
Python judge without options runs quietly, one call at a time, and gets this
simple bar on a terminal instead.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from fairjudge.cli._app import err_console
from fairjudge.judges import BatchJudge, CallableJudge

__all__ = ["judging_progress"]


@contextmanager
def judging_progress(
    judge: BatchJudge, total: int, *, quiet: bool
) -> Iterator[Callable[[int], None] | None]:
    """Yield a progress callback for a Python judge on a terminal, else ``None``."""
    if quiet or not isinstance(judge, CallableJudge) or not err_console.is_terminal:
        yield None
        return
    if judge.options is not None:  # it runs on the engine, whose progress display draws
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task("judging", total=total)
        yield lambda n: bar.advance(task, n)
