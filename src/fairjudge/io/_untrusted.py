"""Reading files a user may have been handed by someone else, safely.

Jury files, recordings, rubrics and templates travel between people, so reading one
gives its contents or one :class:`~fairjudge.InputError` naming the file: only
regular files, bounded in size and nesting, UTF-8. :func:`loads` is the one JSON
parser every input reader uses.
"""

from __future__ import annotations

import json
import os
import re
import reprlib
import stat
import sys
import tomllib
from pathlib import Path
from typing import IO, Any

from fairjudge._errors import InputError

__all__ = [
    "MAX_DEPTH",
    "MAX_TEXT_BYTES",
    "SURROGATE",
    "BadJSON",
    "BadTOML",
    "check_depth",
    "check_unicode",
    "loads",
    "loads_toml",
    "open_regular",
    "read_text",
    "read_toml",
    "shown",
    "why",
]

MAX_TEXT_BYTES = 16 * 2**20
"""The largest file read whole (a jury file, a rubric, a template): 16 MiB."""

MAX_DEPTH = 64
"""The deepest nesting of arrays and tables (objects) accepted in a file read here."""

SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
"""The JSON escapes that can write a lone surrogate (``"\\ud800"``, which no encoding writes)."""
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 80, 80


def shown(value: object) -> str:
    """``repr(value)`` cut short for a message: safe for huge or deeply nested values."""
    return _REPR.repr(value)


class BadJSON(ValueError):
    """Text that cannot be read as JSON; ``str()`` says why and, if known, where."""


def loads(text: str) -> Any:
    """:func:`json.loads`, each failure a :class:`BadJSON`; a lone surrogate is one too."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BadJSON(why(exc)) from None
    if SURROGATE.search(text):
        check_unicode(value)
    return value


def why(exc: ValueError | RecursionError) -> str:
    """Why :func:`json.loads` failed, in a few words, with the column where it knows it."""
    if isinstance(exc, json.JSONDecodeError):
        # Some messages end in "at" ("Unterminated string starting at"); say it once.
        return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"
    if isinstance(exc, RecursionError):
        return f"nested too deeply; Python reads fewer than {sys.getrecursionlimit()} levels"
    return str(exc).split(";")[0]  # an integer with too many digits; drop the sys.* advice


def check_unicode(value: Any) -> None:
    """Refuse a lone surrogate anywhere in a parsed JSON value (:class:`BadJSON`)."""
    stack = [value]
    while stack:  # iterative: a value that json parsed may still be too deep to recurse
        top = stack.pop()
        if isinstance(top, dict | list):
            stack += [*top, *top.values()] if isinstance(top, dict) else top
        elif isinstance(top, str) and not top.isascii():
            try:
                top.encode("utf-8")
            except UnicodeEncodeError as exc:
                code = ord(top[exc.start])
                raise BadJSON(f"lone surrogate \\u{code:04x} in a string is not text") from None


class BadTOML(ValueError):
    """Text that cannot be read as TOML; ``str()`` says why and, if known, where."""


def open_regular(path: str | Path) -> IO[bytes]:
    """Open a regular file for reading; anything else is refused unread.

    The file is opened with ``O_NONBLOCK`` and checked on the open descriptor, so a
    named pipe is refused without waiting for a writer, and a path swapped for a
    device between a check and the open is still refused.

    Raises:
        InputError: No such file, not a regular file (directory, device, pipe,
            socket), or it cannot be opened; names the file.
    """
    name = str(path)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError("cannot read it: no such file", path=name) from None
    except OSError as exc:
        raise InputError(f"cannot read it: {exc.strerror or exc}", path=name) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"cannot read it: {_kind(mode)}, not a regular file", path=name)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "it is a directory"
    if stat.S_ISFIFO(mode):
        return "it is a named pipe"
    if stat.S_ISSOCK(mode):
        return "it is a socket"
    return "it is a device"


def read_text(path: str | Path, *, limit: int = MAX_TEXT_BYTES) -> str:
    """The whole text of a regular UTF-8 file of at most ``limit`` bytes.

    A UTF-8 byte-order mark is dropped.

    Raises:
        InputError: As :func:`open_regular`; or the file is larger than ``limit``,
            or not UTF-8 (the message names the first bad byte's offset and line).
    """
    name = str(path)
    with open_regular(path) as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read it: {exc.strerror or exc}", path=name) from None
    if len(data) > limit:
        raise InputError(
            f"is larger than {limit // 2**20} MiB, far more than a file of this kind holds; "
            "is this the right file?",
            path=name,
        )
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"is not UTF-8 (invalid byte 0x{data[exc.start]:02x} at byte offset {exc.start}, "
            f"line {line}); re-encode it as UTF-8",
            path=name,
        ) from None


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Refuse a value whose lists and dicts nest deeper than ``limit``.

    Iterative, so it cannot itself run out of stack.

    Raises:
        ValueError: The value nests deeper than ``limit``.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        top, depth = stack.pop()
        if isinstance(top, dict | list):
            if depth >= limit:
                raise ValueError(f"nested more than {limit} levels deep")
            children = top.values() if isinstance(top, dict) else top
            stack.extend((child, depth + 1) for child in children)


def loads_toml(text: str) -> dict[str, Any]:
    """:func:`tomllib.loads`, every failure a :class:`BadTOML`, depth bounded.

    Raises:
        BadTOML: Invalid TOML, or nested too deeply (more than :data:`MAX_DEPTH`).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadTOML(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise BadTOML(
            f"not valid TOML: nested too deeply (Python reads fewer than "
            f"{sys.getrecursionlimit()} levels)"
        ) from None
    try:
        check_depth(data)
    except ValueError as exc:
        raise BadTOML(f"not valid TOML here: {exc}") from None
    return data


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a regular UTF-8 TOML file whole, bounded as :func:`read_text`.

    Raises:
        InputError: As :func:`read_text`, or the text is not TOML (or nests
            deeper than :data:`MAX_DEPTH`); names the file.
    """
    text = read_text(path)
    try:
        return loads_toml(text)
    except BadTOML as exc:
        raise InputError(str(exc), path=str(path)) from None
