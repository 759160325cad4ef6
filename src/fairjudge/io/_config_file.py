"""An evaluation's config file (``fairjudge run eval.toml``): read it safely, write it.

The file is read as untrusted input, every error names the key's line, and the
writer covers exactly the values a config holds (the standard library writes no
TOML).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._errors import InputError
from fairjudge.io._untrusted import BadTOML, loads_toml, read_text, shown

__all__ = ["CONFIG_SCHEMA_VERSION", "ConfigText", "dump_config", "key_line", "read_config"]

CONFIG_SCHEMA_VERSION = 1
"""The config file format's version; 1 is the only one."""

MAX_CONFIG_BYTES = 2**20
"""The largest config file read: 1 MiB, far more than any evaluation's flags take."""

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class ConfigText:
    """A config file as read: its table, and its text for finding a key's line.

    Attributes:
        path: The file, as named.
        data: The parsed top-level table.
        text: The file's text.
    """

    path: Path
    data: dict[str, Any]
    text: str

    def line(self, key: str) -> int | None:
        """The 1-based line that sets top-level ``key``, or ``None`` if none does."""
        return key_line(self.text, key)

    def table_line(self, table: str, index: int, key: str | None = None) -> int | None:
        """The line of ``key`` in the ``index``-th ``[[table]]`` (from 0), else of its header.

        A jury file's members are such tables: an error names a member's key by the
        line that sets it, and a key the member lacks by the member's ``[[table]]``
        line. ``None`` when the file has no such header (``table = [...]`` inline).
        """
        return table_key_line(self.text, table, index, key)

    def error(self, key: str, message: str, *, params: tuple[str, ...] = ()) -> InputError:
        """An error about ``key``, naming the file and the key's line."""
        return InputError(f"{key}: {message}", path=str(self.path), line=self.line(key),
                          params=params)  # fmt: skip


def read_config(path: str | Path) -> ConfigText:
    """Read a config file as untrusted input: a flat TOML table.

    Raises:
        InputError: The file cannot be read, is not a regular file, is larger than
            1 MiB, is not UTF-8 or not TOML (the message has TOML's own line and
            column), holds a table where a value belongs (named with its line), or
            a ``schema_version`` other than :data:`CONFIG_SCHEMA_VERSION`.
    """
    path = Path(path)
    text = read_text(path, limit=MAX_CONFIG_BYTES)
    try:
        data = loads_toml(text)
    except BadTOML as exc:
        raise InputError(str(exc), path=str(path)) from None
    config = ConfigText(path, data, text)
    for key, value in data.items():
        if isinstance(value, dict) or (
            isinstance(value, list) and any(isinstance(v, dict | list) for v in value)
        ):
            line = _table_line(text, key)
            raise InputError(
                f"{key}: a config file is one flat table: every key is a flag's name at the "
                f"top, and a value is a string, number, boolean or an array of them; got "
                f"{shown(value)}",
                path=str(path),
                line=line if line is not None else config.line(key),
            )
    version = data.get("schema_version", CONFIG_SCHEMA_VERSION)
    if version != CONFIG_SCHEMA_VERSION or type(version) is not int:
        raise config.error("schema_version", f"{version!r} is unknown; this fairjudge reads "
                           f"{CONFIG_SCHEMA_VERSION}")  # fmt: skip
    return config


def _key_pattern(key: str) -> str:
    quoted = re.escape(json.dumps(key)) + "|" + re.escape(f"'{key}'")
    return rf"(?:{re.escape(key)}|{quoted})"


def key_line(text: str, key: str) -> int | None:
    """The 1-based line on which the top-level ``key`` is set, or ``None``.

    TOML parsers give no positions for keys, so the line is found in the text: the
    first line, before any ``[table]`` header, that starts with the key (bare or
    quoted) and ``=`` (or ``.``, a dotted key, which makes it a table). A config file
    is one flat table, so that line is the key's.
    """
    pattern = re.compile(rf"\s*{_key_pattern(key)}\s*[=.]")
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("["):
            return None
        if pattern.match(line):
            return number
    return None


def table_key_line(text: str, table: str, index: int, key: str | None = None) -> int | None:
    """The 1-based line of ``key`` in the ``index``-th ``[[table]]`` (from 0), or of its header.

    A key the table does not set (or ``key=None``) gives the header's line; ``None``
    when the text has no such header.
    """
    lines = text.splitlines()
    header = re.compile(rf"\s*\[\[\s*{_key_pattern(table)}\s*\]\]")
    starts = [number for number, line in enumerate(lines) if header.match(line)]
    if not 0 <= index < len(starts):
        return None
    start = starts[index]
    if key is not None:
        pattern = re.compile(rf"\s*{_key_pattern(key)}\s*[=.]")
        for number in range(start + 1, len(lines)):
            if lines[number].lstrip().startswith("["):  # the next table: not set in this one
                break
            if pattern.match(lines[number]):
                return number + 1
    return start + 1


def _table_line(text: str, key: str) -> int | None:
    """The line of a ``[key]`` or ``[[key]]`` header, where a table was given."""
    pattern = re.compile(rf"\s*\[\[?\s*{_key_pattern(key)}\s*[\].]")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def _toml_string(value: str) -> str:
    # A JSON string is a TOML basic string, but for DEL, which TOML wants escaped.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"a config value is a string, number, boolean or array; got {value!r}")


def dump_config(table: Mapping[str, Any], *, comment: str = "") -> str:
    """``table`` as TOML text, one ``key = value`` line each, in the table's order.

    Args:
        table: A flat table of strings, integers, floats, booleans and lists of them.
        comment: Lines written first, each as a ``#`` comment.

    Raises:
        TypeError: A value of another type (a bug in the caller).
    """
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    lines += [f"{_toml_key(key)} = {_toml_value(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"
