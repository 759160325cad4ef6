"""What the judging commands share: reading the input, the template check, the exit codes."""

from __future__ import annotations

from pathlib import Path

import typer

from fairjudge._api import PairwiseResult
from fairjudge._errors import ConfigError
from fairjudge._items import Item
from fairjudge.cli._app import EXIT_BUDGET, EXIT_UNRESOLVED, in_flags, say
from fairjudge.cli._options import InputFlags, JudgeFlags
from fairjudge.io import LoadedItems, load_items
from fairjudge.judges import calls_no_model
from fairjudge.prompts import PairwiseTemplate, get_template

__all__ = [
    "check_references",
    "check_unresolved",
    "load_input",
    "template_option",
    "unresolved_exit",
]


def load_input(file: Path, columns: InputFlags) -> LoadedItems[Item]:
    """Read and validate every row before any judge call; list what was skipped."""
    loaded = load_items(file, columns=columns.columns(), skip_invalid=columns.skip_invalid,
                        allow_empty=columns.allow_empty)  # fmt: skip
    for problem in loaded.skipped:
        say("skipped", in_flags(problem))
    return loaded


def template_option(flags: JudgeFlags, items: list[Item]) -> None:
    """Check ``--template`` (a model judge's) and that the items have the references it needs."""
    if not calls_no_model(flags.judge):  # a Python callable or a replay has no prompt
        check_references(items, get_template(flags.template or "default"))


def check_references(
    items: list[Item], template: PairwiseTemplate, member: str | None = None
) -> None:
    """Refuse, before any call, items without the reference ``template`` needs.

    ``member``: the panel member whose template it is, named in the message.
    """
    missing = [it.id for it in items if it.reference is None]
    if not template.needs_reference or not missing:
        return
    what = (
        f"template {template.name!r} needs a reference, but {len(missing)} item(s) lack one "
        f"(first: id {missing[0]!r})"
    )
    if member is not None:
        raise ConfigError(f"member {member!r}: {what}")
    raise ConfigError(f"{what}; add a 'reference' column or pick another template")


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
