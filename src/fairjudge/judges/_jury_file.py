"""``--jury FILE.toml``: a panel's members and its aggregation rule, in a file.

The file is validated whole before any judge is built, and every error names the
file, the key and its line. A jury file may come from someone else, so it cannot run
code (``python:`` members need ``allow_python``) and is read as an untrusted file.
:func:`recorded_jury` seats a ``jury --out`` file's members again as replay judges.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import sys
from collections.abc import Iterator
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any, get_type_hints
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from fairjudge._errors import ConfigError, InputError
from fairjudge._redact import known_secrets, redact_url
from fairjudge.backends import check_base_url, is_loopback_host
from fairjudge.io import (
    BadTOML,
    ConfigText,
    loads_toml,
    read_header,
    read_text,
    shown,
)
from fairjudge.judges._callable import python_function
from fairjudge.judges._jury import Jury, JuryMember, MemberSpec
from fairjudge.judges._registry import judge_spec
from fairjudge.judges._replay import Loader, ReplayJudge

__all__ = ["JuryFile", "judges_beside", "load_jury_file", "recorded_jury"]


_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True)


def _member_model() -> Any:
    """The file's ``[[member]]`` table: :class:`MemberSpec`'s fields, its keys and types.

    Declared once, there: a member's setting is a key of the file as soon as it is a
    field (its documentation is MemberSpec's). The weight is checked here as well, so
    that its error names the file's line; each value is checked as its flag is when
    the file is read (:func:`_member`).
    """
    hints = get_type_hints(MemberSpec)
    keys: dict[str, Any] = {
        f.name: (hints[f.name], ... if f.default is MISSING else f.default)
        for f in fields(MemberSpec)
    }
    keys["weight"] = (float, Field(default=1.0, gt=0, allow_inf_nan=False))
    return create_model("_Member", __config__=_STRICT, **keys)


_Member = _member_model()
_KEYS = frozenset(_Member.model_fields)


class _JuryFile(BaseModel):
    model_config = _STRICT

    schema_version: int = 1
    """The file format's version; 1 is the only one."""
    aggregate: str | None = None
    """The aggregation rule, when the file sets one."""
    member: list[_Member] = Field(min_length=2)  # type: ignore[valid-type]
    """The members, at least two."""


@dataclass(frozen=True, slots=True)
class _FileMember(MemberSpec):
    """A member read from a jury file: its errors name the file, the line and the key."""

    at: tuple[tuple[str, int | None], ...] = ()
    """``(key, line)`` of each value the file sets for the member (its judge aside)."""
    path: str = ""
    index: int = 0

    def named(self, error: ConfigError) -> InputError | ConfigError:
        """``error`` at the line of the first key the file set that it names."""
        lines = dict(self.at)
        key = next((p for p in error.params if p in lines), None)
        if key is None:  # a value the command line or the setup gave: named as given
            return error
        rest = tuple(p for p in error.params if p not in _KEYS)  # the file's keys: its words
        return InputError(
            f"member.{self.index}.{key}: {error}", path=self.path, line=lines[key], params=rest
        )


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


_ALLOW_PYTHON = (
    "a jury file may come from someone else, so it cannot name Python code unless you "
    "trust this file and say so (allow_python=True)"
)
"""Why a ``python:`` member of a jury file is refused, and how to allow it."""

_ALLOW_SERVERS = (
    "a jury file may come from someone else, so it cannot send your API key to a server "
    "it names unless you allow it: pass allow_servers=True if you trust this file (a "
    "loopback address needs no such permission)"
)
"""Why a jury file's ``base_url`` off this machine is refused, and how to allow it."""

_MISSING = {
    "judge": 'missing: each [[member]] names its judge (judge = "openai/gpt-4o-mini")',
    "member": "missing: the members go in [[member]] tables, two or more",
}
"""What a required key's absence means, in the file's words."""


def _error(
    file: ConfigText, loc: tuple[Any, ...], message: str, params: tuple[str, ...] = ()
) -> InputError:
    """``message`` (which names ``loc``) at the line of ``member.N.key`` or a top-level key.

    A key a member lacks is at the member's ``[[member]]`` line; an inline array of
    members at its ``member =`` line.
    """
    line = None
    if loc[0] == "member" and len(loc) > 1 and isinstance(loc[1], int):
        line = file.table_line("member", loc[1], loc[2] if len(loc) > 2 else None)
    line = line or file.line(str(loc[0])) or file.table_line(str(loc[0]), 0)
    return InputError(message, path=str(file.path), line=line, params=params)


def load_jury_file(
    path: str | Path, *, allow_python: bool = False, allow_servers: bool = False
) -> JuryFile:
    """Read and validate a jury file.

    Relative ``template`` and ``replay:`` paths are resolved against the jury file's
    folder, so a file means the same wherever it is run from; so is a ``python:``
    member's module, which is imported as the file is read (:func:`judges_beside`).

    Args:
        path: The TOML file.
        allow_python: Seat ``python:`` members, which import and call Python code the
            file names. Off by default: a jury file may come from anyone.
        allow_servers: Accept a member ``base_url`` off this machine. A backend sends
            the user's API key to its server, so a file handed over by someone else
            could otherwise collect it; loopback addresses are always accepted.

    Raises:
        InputError: The file cannot be read (or is not a regular file), is not UTF-8
            or not TOML, breaks the format, has a bad ``base_url``, or names Python
            code without ``allow_python`` (or code that cannot be imported: a module
            found nowhere names the places looked), or a server off this machine
            without ``allow_servers``; the message names the file and the field.
    """
    path = Path(path)
    text = read_text(path)
    try:
        file = ConfigText(path, loads_toml(text), text)
        parsed = _JuryFile.model_validate(file.data)
    except BadTOML as exc:
        raise InputError(str(exc), path=str(path)) from None
    except ValidationError as exc:
        raise _invalid(file, exc) from None
    if parsed.schema_version != 1:
        version = parsed.schema_version
        raise _error(file, ("schema_version",), f"schema_version {version} is unknown; use 1")
    members = tuple(
        _member(m, i, file, allow_python, allow_servers) for i, m in enumerate(parsed.member)
    )
    return JuryFile(members, parsed.aggregate, path)


def _invalid(file: ConfigText, exc: ValidationError) -> InputError:
    """The first of pydantic's errors, in the file's words, at its line."""
    errors = exc.errors()
    first = errors[0]
    if first["type"] == "missing":  # a misspelt key leaves the key it meant missing
        first = next((e for e in errors if e["type"] == "extra_forbidden"
                      and e["loc"][:-1] == first["loc"][:-1]), first)  # fmt: skip
    loc, msg = first["loc"], first["msg"]
    if first["type"] == "extra_forbidden":  # a misspelt key: the near one, and the keys there are
        keys = list((_Member if loc[0] == "member" else _JuryFile).model_fields)
        close = difflib.get_close_matches(str(loc[-1]), keys, n=1)
        hint = f"did you mean {close[0]!r}? The" if close else "the"
        msg = f"unknown key; {hint} keys are {', '.join(keys)}"
    elif first["type"] == "missing":
        msg = _MISSING.get(str(loc[-1]), msg)
    return _error(file, loc, f"{'.'.join(str(p) for p in loc)}: {msg}")


def _member(
    member: Any, index: int, file: ConfigText, allow_python: bool, allow_servers: bool
) -> MemberSpec:
    """Member ``index``'s spec, checked, with its relative paths read from the file's folder."""
    spec: dict[str, Any] = member.model_dump()
    judge_at, url_at = ("member", index, "judge"), ("member", index, "base_url")
    try:
        judge = judge_spec(spec["judge"], name=f"member.{index}.judge")
    except ConfigError as exc:
        raise _error(file, judge_at, str(exc)) from None
    if judge.startswith("python:") and not allow_python:
        why = f"member.{index}.judge {shown(spec['judge'])} would import and run Python code; "
        raise _error(file, judge_at, why + _ALLOW_PYTHON, ("allow_python",))
    if judge.startswith("python:"):  # imported now, while its folder is searched too
        try:
            with judges_beside(file.path, folder_is="the jury file's folder"):
                python_function(judge)
        except ConfigError as exc:
            raise _error(file, judge_at, f"member.{index}.judge: {exc}") from None
    url = spec["base_url"]
    if url is not None:
        try:
            check_base_url(url, name=f"member.{index}.base_url")
        except ConfigError as exc:
            raise _error(file, url_at, str(exc)) from None
        if not allow_servers and not is_loopback_host(urlsplit(url).hostname or ""):
            shown_url = shown(redact_url(url, known_secrets()))
            why = f"member.{index}.base_url {shown_url} would receive your API key; "
            raise _error(file, url_at, why + _ALLOW_SERVERS, ("allow_servers",))
    folder = file.path.parent
    if judge.startswith("replay:"):
        recording = judge.removeprefix("replay:").strip()
        if recording and not Path(recording).is_absolute():
            spec["judge"] = f"replay:{folder / recording}"
            spec["name"] = spec["name"] or judge  # named as written, wherever it is run from
    template = spec["template"]
    if template is not None and template.endswith(".toml") and not Path(template).is_absolute():
        spec["template"] = str(folder / template)
    keys = [key for key in _Member.model_fields if key in member.model_fields_set - {"judge"}]
    at = tuple((key, _error(file, ("member", index, key), "").line) for key in keys)
    read = _FileMember(**spec, at=at, path=str(file.path), index=index)
    try:  # the checks of the values alone; those of a value for its judge as it is built
        read.backend_options()
        read.prices()
    except ConfigError as exc:
        raise read.named(exc) from None
    return read


_LOOKED = ", $PYTHONPATH and the installed packages: run from"
"""Where a ``python:`` module found nowhere was looked for (``python_function``'s words)."""


@contextlib.contextmanager
def judges_beside(path: str | Path, *, folder_is: str) -> Iterator[None]:
    """While the block runs, a ``python:`` judge module beside the file ``path`` is found.

    A file's relative paths are read from its folder, and so is a judge module it
    names (a jury file's members, ``fairjudge run``'s config): the folder is searched
    last, after the working directory, ``$PYTHONPATH`` and the installed packages,
    and is off ``sys.path`` again after the block (unless it was on it before). A
    module imported in the block stays imported, so a judge built from its spec later
    finds it. A module found nowhere in the block names the folder among the places
    looked, as ``folder_is`` (``"the jury file's folder"``).

    Raises:
        ConfigError: A module found nowhere, the folder named; any other as it came.
    """
    folder = str(Path(path).resolve().parent)
    added = folder not in sys.path
    if added:
        sys.path.append(folder)
    try:
        yield
    except ConfigError as exc:
        if _LOOKED not in str(exc):
            raise
        looked = f", $PYTHONPATH, the installed packages and {folder_is} {folder}: run from"
        raise ConfigError(str(exc).replace(_LOOKED, looked), params=exc.params) from exc
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)


def recorded_jury(path: str | Path) -> tuple[Jury, str | None]:
    """The panel of a ``jury --out`` file, every member replayed from its own calls.

    Each member becomes a :class:`~fairjudge.judges.ReplayJudge` over the calls the
    file records for it (failures included, so the replay reproduces the run), with
    the member's recorded weight. Evaluating the same items with the same settings
    gives the recorded verdicts again, at no cost; an item or order the file lacks
    is a ``NotRecorded`` call error, never a guess.

    A recording is data: its members are replayed, never resolved from their names,
    so a recorded member named ``python:...`` runs no code.

    Returns:
        The jury, and the aggregation rule the file records (``None`` if none).

    Raises:
        InputError: The file cannot be read (or is not a regular file), or a line is
            not JSON or not a ``jury --out`` record (the message names the file and
            line).
    """
    path = Path(path)
    loaders: dict[str, Loader] = {}
    weights: dict[str, float] = {}
    rule: str | None = None
    try:
        for number, value in ReplayJudge.records(path):  # scrubbed, verdicts checked
            header = read_header(value, path=str(path), line=number) if not loaders else None
            if header is not None:  # a result file's header: only a jury's will do
                header.expect(("jury",), reader="a recorded jury", path=str(path))
                continue
            members, record = _members(path, number, value)
            rule = rule or record.get("aggregation")
            for name, entry in members.items():
                loader = loaders.setdefault(name, Loader(path))
                loader.line = number
                weights.setdefault(name, _weight(entry.get("weight", 1.0), path, number, name))
                loader.add_result({**record, "calls": entry.get("calls")})
    except InputError as exc:
        if exc.path is None:  # already names the file and the line
            raise
        line = f", line {exc.line}" if exc.line is not None else ""
        raise InputError(f"{path}{line}: {_bare(exc)}", params=exc.params) from None
    if len(loaders) < 2:
        raise InputError(
            f"{path}: holds no jury record (the per-item records a jury run writes, one item "
            "a line, each with 'members' and their 'calls')"
        )
    seated = [
        JuryMember(name, _replay(loader, name), weights[name]) for name, loader in loaders.items()
    ]
    return Jury(seated), rule if isinstance(rule, str) else None


def _members(path: Path, number: int, record: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A record's members (name -> entry), and the record."""
    members = record.get("members") if isinstance(record, dict) else None
    if not isinstance(members, dict) or not all(isinstance(e, dict) for e in members.values()):
        raise InputError(
            f"{path}, line {number}: not a jury run's record: it needs 'members', "
            "each with its 'calls'"
        )
    return members, record


def _bare(error: InputError) -> str:
    """The message without the ``path:line:`` prefix."""
    prefix = f"{error.path}:{error.line}: " if error.line is not None else f"{error.path}: "
    return str(error).removeprefix(prefix)


def _weight(value: object, path: Path, number: int, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        raise InputError(
            f"{path}, line {number}: member {shown(name)}: weight must be a number > 0"
        )
    return float(value)


def _replay(loader: Loader, name: str) -> ReplayJudge:
    source = f"{loader.path} (member {name})"
    return ReplayJudge(loader.recordings, name=name, source=source, labels=loader.labels)
