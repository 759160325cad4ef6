"""``--jury FILE.toml``: a panel's members and its aggregation rule, in a file.

.. code-block:: toml

    schema_version = 1
    aggregate = "majority"          # or "mean"; optional

    [[member]]
    judge = "openai/gpt-4o-mini"
    template = "default"            # optional
    weight = 1.0                    # optional
    base_url = "http://127.0.0.1:8000/v1"   # optional

    [[member]]
    judge = "python:my_judges:by_length"
    name = "length"                 # optional

The file is validated whole (unknown keys included) before any judge is built, and
every error names the file and the member.

A *recorded* panel is a ``jury --out`` file instead (JSONL):
:func:`recorded_jury` seats every member again as a
:class:`~fairjudge.judges.ReplayJudge` of its own recorded calls, with its recorded
weight, so the run replays exactly and calls no one.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fairjudge._errors import InputError
from fairjudge.judges._jury import Jury, JuryMember, MemberSpec
from fairjudge.judges._replay import ReplayJudge, _Loader

__all__ = ["JuryFile", "load_jury_file", "recorded_jury"]


class _Member(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: str = Field(min_length=1)
    """A ``--judge`` spec."""
    name: str | None = None
    """How reports name the member."""
    template: str | None = None
    """Prompt template name or ``.toml`` path (model members)."""
    weight: float = Field(default=1.0, gt=0, allow_inf_nan=False)
    """Weight in the aggregate."""
    base_url: str | None = None
    """Server URL (HTTP members)."""
    temperature: float | None = None
    """Sampling temperature."""
    timeout: float | None = None
    """Seconds to wait for one reply (HTTP members)."""


class _JuryFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = 1
    """The file format's version; 1 is the only one."""
    aggregate: str | None = None
    """The aggregation rule, when the file sets one."""
    member: list[_Member] = Field(min_length=2)
    """The members, at least two."""


@dataclass(frozen=True, slots=True)
class JuryFile:
    """A jury file's contents.

    Attributes:
        members: The members, in file order.
        aggregate: The file's aggregation rule, or ``None``.
        path: The file.
    """

    members: tuple[MemberSpec, ...]
    aggregate: str | None
    path: Path


def load_jury_file(path: Path) -> JuryFile:
    """Read and validate a jury file.

    Raises:
        InputError: The file cannot be read, is not TOML, or breaks the format; the
            message names the file and the offending field.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"--jury {path}: cannot read it ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"--jury {path}: not valid TOML: {exc}") from None
    try:
        parsed = _JuryFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"--jury {path}: {where}: {first['msg']}") from None
    if parsed.schema_version != 1:
        raise InputError(f"--jury {path}: schema_version {parsed.schema_version} is unknown; use 1")
    members = tuple(MemberSpec(**m.model_dump()) for m in parsed.member)
    return JuryFile(members, parsed.aggregate, path)


def recorded_jury(path: Path) -> tuple[Jury, str | None]:
    """The panel of a ``jury --out`` file, every member replayed from its own calls.

    Each member becomes a :class:`~fairjudge.judges.ReplayJudge` over the calls the
    file records for it (failures included, so the replay reproduces the run), with
    the member's recorded weight. Evaluating the same items with the same settings
    gives the recorded verdicts again, at no cost; an item or order the file lacks
    is a ``NotRecorded`` call error, never a guess.

    Returns:
        The jury, and the aggregation rule the file records (``None`` if none).

    Raises:
        InputError: The file cannot be read, or a line is not a ``jury --out``
            record (the message names the file and line).
    """
    loaders: dict[str, _Loader] = {}
    weights: dict[str, float] = {}
    rule: str | None = None
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--jury {path}: cannot read it ({exc})") from None
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        members, record = _members(path, number, text)
        rule = rule or record.get("aggregation")
        for name, entry in members.items():
            loader = loaders.setdefault(name, _Loader(path))
            loader.line = number
            weights.setdefault(name, _weight(entry.get("weight", 1.0), path, number, name))
            loader.add_result({**record, "calls": entry.get("calls")})
    if len(loaders) < 2:
        raise InputError(
            f"--jury {path}: holds no jury record (a `fairjudge jury --out` file, one item a "
            "line, each with 'members' and their 'calls')"
        )
    seated = [
        JuryMember(name, _replay(loader, name), weights[name]) for name, loader in loaders.items()
    ]
    return Jury(seated), rule if isinstance(rule, str) else None


def _members(path: Path, number: int, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A record's members (name -> entry), and the record."""
    where = f"--jury {path}, line {number}"
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc.msg})") from None
    members = record.get("members") if isinstance(record, dict) else None
    if not isinstance(members, dict) or not all(isinstance(e, dict) for e in members.values()):
        raise InputError(
            f"{where}: not a `jury --out` record: it needs 'members', each with its 'calls'"
        )
    return members, record


def _weight(value: object, path: Path, number: int, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise InputError(f"--jury {path}, line {number}: member {name!r}: weight must be > 0")
    return float(value)


def _replay(loader: _Loader, name: str) -> ReplayJudge:
    source = f"{loader.path} (member {name})"
    return ReplayJudge(loader.recordings, name=name, source=source, labels=loader.labels)
