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
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fairjudge._errors import InputError
from fairjudge.judges._jury import MemberSpec

__all__ = ["JuryFile", "load_jury_file"]


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
