"""What the judging commands share: reading the input and the exit codes."""

from __future__ import annotations

from pathlib import Path

import typer

from fairjudge._api import PairwiseResult
from fairjudge._items import Item
from fairjudge.cli._app import in_flags, say
from fairjudge.cli._exit_codes import EXIT_BUDGET, EXIT_UNRESOLVED
from fairjudge.cli._options import InputFlags
from fairjudge.io import LoadedItems, load_items

__all__ = ["check_unresolved", "load_input", "unresolved_exit"]


def load_input(file: Path, columns: InputFlags) -> LoadedItems[Item]:
    """Read and validate every row before any judge call; list what was skipped."""
    loaded = load_items(file, columns=columns.columns(), skip_invalid=columns.skip_invalid,
                        allow_empty=columns.allow_empty)  # fmt: skip
    for problem in loaded.skipped:
        say("skipped", in_flags(problem))
    return loaded


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
