"""How invalid rows are reported: the first few problems in one error, never just one.

A file with several bad rows should be fixable in one pass, so a load that stops
names up to :data:`SHOWN_PROBLEMS` rows and counts the rest, as the summary does when
``skip_invalid`` set every row aside.
"""

from __future__ import annotations

from fairjudge._errors import InputError

__all__ = ["SHOWN_PROBLEMS", "bare", "invalid_rows", "nothing_valid"]

SHOWN_PROBLEMS = 5
"""Row problems listed in one error."""


def invalid_rows(bad: list[InputError]) -> InputError:
    """The first invalid row's error, naming up to :data:`SHOWN_PROBLEMS` in all."""
    first = bad[0]
    if len(bad) == 1:
        return first
    # " | " between problems: the problems' own messages use ";".
    more = [f"line {e.line}: {bare(e)}" for e in bad[1:SHOWN_PROBLEMS]]
    rest = len(bad) - SHOWN_PROBLEMS
    if rest > 0:
        more.append(f"and {rest} more invalid row{'s' if rest != 1 else ''}")
    fix = f"{len(bad)} invalid rows; fix them, or pass skip_invalid=True to set them aside"
    named = dict.fromkeys(p for e in bad[:SHOWN_PROBLEMS] for p in e.params)
    return InputError(
        f"{bare(first)} | {' | '.join(more)} ({fix})",
        path=first.path,
        line=first.line,
        params=(*named, "skip_invalid"),
    )


def nothing_valid(name: str, skipped: list[InputError]) -> InputError:
    """The error for a file with no valid row: what it held, or its first few problems."""
    if not skipped:
        return InputError("file holds no items", path=name)
    # Every row was set aside: listing none of them would leave nothing to fix from.
    # " | " between problems: the problems' own messages use ";".
    problems = " | ".join(f"line {e.line}: {bare(e)}" for e in skipped[:SHOWN_PROBLEMS])
    n = len(skipped)
    first = f"; the first {SHOWN_PROBLEMS}" if n > SHOWN_PROBLEMS else ""
    return InputError(
        f"no valid row found ({n} invalid row{'s' if n != 1 else ''}{first}): {problems}",
        path=name,
        params=tuple(dict.fromkeys(p for e in skipped[:SHOWN_PROBLEMS] for p in e.params)),
    )


def bare(error: InputError) -> str:
    """The message without the ``path:line:`` prefix the summary already gives."""
    prefix = f"{error.path}:{error.line}: " if error.line is not None else f"{error.path}: "
    return str(error).removeprefix(prefix) if error.path is not None else str(error)
