"""What a panel's diagnostics compute the same way, whatever its members read.

Both kinds ask the same two questions of a panel, over a matrix with one row per
item and one column per member:

- **What does each member add?** :func:`leave_one_out` sets each member's reading
  against the aggregate of the *others* under the panel's own rule and weights, so
  a dissenter shows up (as low agreement for verdicts, a low Spearman for scores).
- **How many judges is the panel really?** :func:`effective` is the effective number
  of independent judges (:func:`fairjudge.stats.effective_judges`) over the items
  every member read, or why it cannot be computed.

How the members agree beyond chance depends on the reading (Fleiss' kappa of
verdicts, Krippendorff's alpha of scores) and stays with each kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fairjudge._errors import FairJudgeError
from fairjudge.evaluation._panel_rules import without
from fairjudge.stats import EffectiveJudges, effective_judges

__all__ = ["effective", "leave_one_out", "skipped_or_dict"]

V = TypeVar("V")
A = TypeVar("A")


def leave_one_out(
    k: int,
    rows: Sequence[Sequence[V | None]],
    weights: Sequence[float],
    aggregate: Callable[[list[V | None], list[float]], A | None],
) -> list[tuple[int, V, A]]:
    """Per row where both exist: its index, member ``k``'s reading and the others' aggregate."""
    out = []
    for i, row in enumerate(rows):
        own = row[k]
        rest = aggregate(*without(k, row, weights))
        if own is not None and rest is not None:
            out.append((i, own, rest))
    return out


def effective(
    rows: Sequence[Sequence[float]], clusters: Sequence[str], boot: dict[str, Any], too_few: str
) -> EffectiveJudges | str:
    """The effective number of judges over complete rows, or why not (``too_few``: < 2 rows)."""
    if len(rows) < 2:
        return too_few
    try:
        return effective_judges(rows, questions=clusters, **boot)
    except (FairJudgeError, ValueError) as exc:
        return str(exc)


def skipped_or_dict(value: Any) -> Any:
    """A figure's JSON: ``None``, ``{"skipped": why}`` for a reason, else its ``to_dict()``."""
    if value is None:
        return None
    return {"skipped": value} if isinstance(value, str) else value.to_dict()
