"""An ``audit`` out file read back into the :class:`~fairjudge.audit.AuditReport` that wrote it.

The file is the report's JSON cut in lines: the header, one summary record (the
report's fields but its experiments, plus ``calls_made`` and ``headline``), then one
record per experiment (``ExperimentResult.to_dict``). That is all the report holds,
so the report is rebuilt exactly: its ``to_dict`` equals the audit's own ``--json``
(tested), and the page drawn from the file is the page the run drew.

A record the report cannot be rebuilt from (a missing field, a wrong type, no
summary) is refused with the file and line, never filled in with a guess.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairjudge._errors import InputError
from fairjudge.io import read_header, read_records

if TYPE_CHECKING:
    from fairjudge.audit import AuditReport, Effect, ExperimentResult
    from fairjudge.io import OutHeader

__all__ = ["LoadedAudit", "load_audit"]

_EFFECT_KEYS = ("name", "estimate", "ci", "null", "unit", "scale", "n", "verdict", "note")
_EXPERIMENT_KEYS = ("bias", "judge", "effects", "residual", "mitigation", "n_items", "n_calls",
                    "n_failed", "details", "skipped")  # fmt: skip
_SUMMARY_KEYS = ("judges", "source", "n_items", "settings", "stopped")


@dataclass(frozen=True, slots=True)
class LoadedAudit:
    """An audit file read back: the report, its header and the run's extra fields.

    Attributes:
        report: The report, as the run built it.
        header: The file's header (``None`` for a file written without one).
        calls_made: Calls the run made (the rest came from the store); ``None`` if absent.
        calls: Every experiment's runs added up, as ``--json``'s ``calls``; ``None`` in
            a file written before the summary record carried it.
    """

    report: AuditReport
    header: OutHeader | None
    calls_made: int | None
    calls: Mapping[str, Any] | None = None


class _Bad(Exception):
    """A field of a record is missing or of the wrong type (the message says which)."""


def _need(record: Mapping[str, Any], keys: tuple[str, ...], what: str) -> None:
    missing = [k for k in keys if k not in record]
    if missing:
        raise _Bad(f"{what} record lacks {', '.join(missing)}")


def _number(value: object, what: str, *, optional: bool = False) -> float:
    if value is None and optional:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(f"{what} must be a number; got {type(value).__name__}")
    return float(value)


def _effect(record: object) -> Effect:
    from fairjudge.audit import Effect
    from fairjudge.stats import ConfidenceInterval

    if not isinstance(record, Mapping):
        raise _Bad("an effect must be an object")
    _need(record, _EFFECT_KEYS, "effect")
    ci = record["ci"]
    if not isinstance(ci, Mapping) or "level" not in ci:
        raise _Bad(f"effect {record['name']!r}: its ci must be an object with a level")
    reason = ci.get("reason")
    interval = ConfidenceInterval(
        _number(ci.get("low"), "ci low", optional=True),
        _number(ci.get("high"), "ci high", optional=True),
        _number(ci["level"], "ci level"),
        None if reason is None else str(reason),
    )
    estimate = record["estimate"]
    return Effect(
        str(record["name"]), None if estimate is None else _number(estimate, "estimate"),
        interval, _number(record["null"], "null"), str(record["unit"]),
        _number(record["scale"], "scale"), int(_number(record["n"], "n")),
        record["verdict"], None if record["note"] is None else str(record["note"]),
    )  # fmt: skip


def _experiment(record: Mapping[str, Any]) -> ExperimentResult:
    from fairjudge.audit import ExperimentResult

    _need(record, _EXPERIMENT_KEYS, "experiment")
    details = record["details"]
    if not isinstance(details, Mapping):
        raise _Bad("an experiment's details must be an object")
    effects, residual = record["effects"], record["residual"]
    if not isinstance(effects, list) or not isinstance(residual, list):
        raise _Bad("an experiment's effects and residual must be lists")
    return ExperimentResult(
        str(record["bias"]), str(record["judge"]), tuple(_effect(e) for e in effects),
        tuple(_effect(e) for e in residual),
        None if record["mitigation"] is None else str(record["mitigation"]),
        int(_number(record["n_items"], "n_items")), int(_number(record["n_calls"], "n_calls")),
        int(_number(record["n_failed"], "n_failed")), dict(details),
        None if record["skipped"] is None else str(record["skipped"]),
    )  # fmt: skip


def _settings(value: object) -> Any:
    from fairjudge._types import Resolution
    from fairjudge.audit import AuditSettings

    if not isinstance(value, Mapping):
        raise _Bad("settings must be an object")
    known = {f.name for f in fields(AuditSettings)}
    given = {k: v for k, v in value.items() if k in known}
    if isinstance(given.get("framing_templates"), list):
        given["framing_templates"] = tuple(given["framing_templates"]) or None
    if "rule" in given:
        given["rule"] = Resolution(given["rule"])
    return AuditSettings(**given)


def load_audit(path: Path) -> LoadedAudit:
    """Read an ``audit`` out file back into its report.

    Raises:
        InputError: The file is not an audit file, or a record lacks what the report
            needs (the message names the file, the line and the field).
    """
    from fairjudge.audit import AuditReport

    name = str(path)
    header: OutHeader | None = None
    summary: Mapping[str, Any] | None = None
    experiments: list[ExperimentResult] = []
    for count, (line, record) in enumerate(read_records(path)):
        if count == 0:
            header = read_header(record, path=name, line=line)
            if header is not None:
                header.expect(["audit"], reader="the audit page", path=name)
                continue
        try:
            if not isinstance(record, Mapping):
                raise _Bad("a record must be an object")
            kind = record.get("kind")
            if kind == "audit" and summary is None:
                _need(record, _SUMMARY_KEYS, "summary")
                summary = record
            elif kind == "experiment":
                experiments.append(_experiment(record))
            else:
                raise _Bad(f"unexpected record kind {kind!r} (an audit file holds one 'audit' "
                           "summary, then 'experiment' records)")  # fmt: skip
        except (_Bad, ValueError, TypeError, InputError) as exc:
            raise InputError(f"cannot rebuild the audit report: {exc}", path=name,
                             line=line) from None  # fmt: skip
    if summary is None:
        raise InputError("cannot rebuild the audit report: the file has no 'audit' summary "
                         "record (judges, source, settings)", path=name)  # fmt: skip
    try:
        settings = _settings(summary["settings"])
        judges = summary["judges"]
        if not isinstance(judges, list):
            raise _Bad("judges must be a list")
        report = AuditReport(
            tuple(str(j) for j in judges), tuple(experiments),
            int(_number(summary["n_items"], "n_items")), str(summary["source"]), settings,
            None if summary["stopped"] is None else str(summary["stopped"]),
        )  # fmt: skip
    except (_Bad, ValueError, TypeError, InputError) as exc:
        raise InputError(f"cannot rebuild the audit report from its summary: {exc}",
                         path=name) from None  # fmt: skip
    made = summary.get("calls_made")
    calls = summary.get("calls")
    return LoadedAudit(
        report, header, made if isinstance(made, int) else None,
        dict(calls) if isinstance(calls, Mapping) else None,
    )  # fmt: skip
