"""What a ``--out`` header records of the run's calls, read back for the page redrawn.

The run's page shows its calls, tokens and cost (and a panel's usage per member);
the header the run saves holds them as its ``--json`` has them. ``fairjudge
report`` reads them back here, so the page it draws shows the run's calls, not the
replay's or none. The header is read from a file, so each field is checked as the
run could have written it: a value no run could hold drops the whole record (the
page then says nothing of the calls, as for a file written before headers kept them),
never a wrong count on the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, fields
from typing import Any, cast

from fairjudge.io import OutHeader
from fairjudge.judges import MemberUsage
from fairjudge.runner import RunSummary

__all__ = ["recorded_member_usage", "recorded_run"]

_STOPS = frozenset({"max_calls", "max_cost"})


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _good(name: str, value: object) -> bool:
    """Whether ``value`` is one a run's :class:`RunSummary` could hold as ``name``."""
    if name in ("cost_usd", "cache_saved_usd"):  # None: no price known
        return value is None or _number(value)
    if name in ("wall_s", "backoff_s"):
        return _number(value)
    if name == "stopped":
        return value is None or value in _STOPS
    if name == "learned":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return _count(value)


def recorded_run(header: OutHeader | None) -> RunSummary | None:
    """The run's calls as its header records them; ``None`` when it records none usable.

    A field a newer fairjudge added and this one lacks is ignored; one this fairjudge
    has and the file lacks takes its default (a file written before it existed), and
    a required one missing, or any value no run could hold, drops the record.
    """
    calls = header.calls if header is not None else None
    if not isinstance(calls, Mapping):
        return None
    values: dict[str, Any] = {}
    for f in fields(RunSummary):
        if f.name not in calls:
            if f.default is MISSING:
                return None
            continue
        value = calls[f.name]
        if not _good(f.name, value):
            return None
        values[f.name] = tuple(value) if f.name == "learned" else value
    return RunSummary(**values)


def _member(record: Mapping[str, Any]) -> MemberUsage | None:
    calls, made, cached = record.get("calls"), record.get("made"), record.get("cached")
    tokens = record.get("input_tokens"), record.get("output_tokens")
    cost, latency = record.get("cost_usd"), record.get("mean_latency_s")
    local = record.get("answered_locally", False)
    good = (
        _count(calls) and all(v is None or _count(v) for v in (made, cached))
        and all(_count(t) for t in tokens) and all(v is None or _number(v) for v in (cost, latency))
        and isinstance(local, bool)
    )  # fmt: skip
    if not good:
        return None
    return MemberUsage(
        cast(int, calls), cast("int | None", made), cast("int | None", cached),
        cast(int, tokens[0]), cast(int, tokens[1]), cast("float | None", cost),
        cast("float | None", latency), local,
    )  # fmt: skip


def recorded_member_usage(header: OutHeader | None, n_members: int) -> tuple[MemberUsage, ...]:
    """A panel's usage per member as its header records it; ``()`` when it records none usable.

    ``()`` is what a panel that recorded no usage has (each member's usage ``None``);
    a list of another length than the panel's, or a member's record no run could
    write, is treated so too.
    """
    usage = header.member_usage if header is not None else None
    if usage is None or len(usage) != n_members:
        return ()
    members = [_member(u) for u in usage]
    return tuple(m for m in members if m is not None) if None not in members else ()
