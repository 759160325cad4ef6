"""Reading the rows of a comparison or ranking file (JSONL, JSON, CSV, Parquet), and their problems.

This module finds the rows, with the line each came from, streaming and bounded; what
a row means is the caller's. Whole-file mistakes are one :class:`InputError` naming
the source and line, and a load that stops names up to :data:`SHOWN_PROBLEMS` bad
rows at once, so a file is fixed in one pass. ``-`` reads standard input.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
import shlex
import stat
import sys
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain, zip_longest
from pathlib import Path
from typing import IO, Any, NoReturn

from fairjudge._errors import InputError, MissingExtraError
from fairjudge.io._untrusted import (
    SURROGATE,
    BadJSON,
    check_depth,
    check_unicode,
    loads,
    open_regular,
    why,
)

__all__ = [
    "SHOWN_PROBLEMS",
    "BadJSON",
    "Row",
    "Source",
    "bare",
    "csv_records",
    "invalid_rows",
    "loads",
    "nothing_valid",
    "open_source",
    "read_records",
    "read_rows",
]


_BARE_CR = re.compile(r"(?<=\r)(?!\n)")  # after a "\r" that no "\n" follows


def csv_records(
    lines: Iterable[tuple[int, str]], delimiter: str, name: str
) -> Iterator[tuple[int, list[str] | InputError]]:
    """Each non-empty CSV record, or the error reading it, with the line it starts on.

    A quote left open runs to the end of the file, which the reader returns as one
    field: that record is reported as the unterminated quote it is, at the quote's line.
    """
    taken: list[tuple[int, str]] = []  # (line, piece) fed to the reader for this record
    ended: list[bool] = []  # the input ran out

    def pieces() -> Iterator[str]:
        extra = 0  # lone "\r" breaks so far: each starts a line, as in a spreadsheet
        for lineno, text in lines:
            parts = [part for part in _BARE_CR.split(text) if part]
            for index, part in enumerate(parts):
                taken.append((lineno + extra + index, part))
                yield part
            extra += len(parts) - 1
        ended.append(True)

    reader = csv.reader(pieces(), delimiter=delimiter)
    while True:
        taken.clear()
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield taken[0][0], InputError(f"invalid CSV ({exc})", path=name, line=taken[0][0])
            continue
        # The reader asks for more input only inside a quoted field, so a record that
        # reached the end of the input is one whose quote never closed.
        opened = _open_quote(taken, delimiter) if ended else None
        if opened is not None:
            message = (
                "invalid CSV: the quoted field opened on this line never closes, so the rest "
                'of the file was read into it; close the quote (a quote inside a field is "")'
            )
            yield opened, InputError(message, path=name, line=opened)
        elif record:
            yield taken[0][0], record


def _open_quote(pieces: Iterable[tuple[int, str]], delimiter: str) -> int | None:
    """The line of the quote still open at the end of a CSV record's text, if one is."""
    opened, at_start = None, True
    for lineno, text in pieces:
        quoted_next = False  # the previous character was a quote inside a quoted field
        for char in text:
            if opened is not None:
                if quoted_next:
                    quoted_next = False
                    if char != '"':  # that quote closed the field
                        opened, at_start = None, char in (delimiter, "\r", "\n")
                elif char == '"':
                    quoted_next = True
            elif char == '"' and at_start:
                opened = lineno
            else:
                at_start = char in (delimiter, "\r", "\n")
        if quoted_next:  # a quote at the very end of the text closes the field
            opened = None
    return opened


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


MAX_LINE_BYTES = 64 * 2**20  # the longest line read; also the largest CSV field
MAX_ARRAY_BYTES = 256 * 2**20  # the largest JSON array, which is parsed whole
STDIN = "<stdin>"  # standard input (the path "-") in messages

Row = tuple[int, Mapping[str, Any] | InputError]
"""A row and the line it came from, or the error that row is."""

_SPACE = " \t\r\n"  # JSON's whitespace; str.strip() would also take U+2028, U+0085, ...


@dataclass(frozen=True, slots=True)
class Source:
    """The rows of a file, and for tabular files the header, checked once up front."""

    rows: Iterator[Row]
    header: list[str] | None = None
    header_line: int | None = None
    tabular: bool = False  # CSV/Parquet text cells carry a conversation as a JSON string
    name: str = ""  # the path, or STDIN


class _Lines:
    """A byte stream's lines, split at newlines only, each bounded and decoded as UTF-8."""

    def __init__(self, stream: IO[bytes], name: str, *, owned: bool) -> None:
        self.stream, self.name = stream, name
        self.line = self.offset = 0  # lines and bytes read so far
        # The rows hold their _Lines, started or not: once they are dropped, even in a
        # reference cycle, the file (never standard input) closes.
        self.close: Callable[[], object] = (
            weakref.finalize(self, stream.close) if owned else lambda: None
        )

    def __iter__(self) -> Iterator[tuple[int, str]]:
        while raw := self._read():
            text = self._decode(raw)
            yield self.line, text

    def _read(self) -> bytes:
        try:
            raw = self.stream.readline(MAX_LINE_BYTES + 1)
        except OSError as exc:
            raise InputError(f"cannot read: {exc}", path=self.name, line=self.line + 1) from exc
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            message = (
                f"line is longer than {MAX_LINE_BYTES // 2**20} MiB, the most read as one line;"
                " is this the right file? (a JSON array on one line: split it with jq -c '.[]')"
            )
            raise InputError(message, path=self.name, line=self.line + 1)
        return raw

    def _decode(self, raw: bytes) -> str:
        start, self.offset = self.offset, self.offset + len(raw)
        self.line += 1
        if self.line == 1 and raw.startswith(codecs.BOM_UTF8):
            raw, start = raw[len(codecs.BOM_UTF8) :], start + len(codecs.BOM_UTF8)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            byte, at, fix = raw[exc.start], start + exc.start, "re-encode it as UTF-8"
            message = f"file is not UTF-8 (invalid byte 0x{byte:02x} at byte offset {at}); {fix}"
            if self.line == 1 and raw.startswith(b"PAR1"):
                fix = "save it to a file" if self.name == STDIN else "rename it to end"
                message = f"this is a Parquet file; {fix} in .parquet"
            raise InputError(message, path=self.name, line=self.line) from None


def _rows_jsonl(lines: Iterable[tuple[int, str]], name: str) -> Iterator[Row]:
    for lineno, line in lines:
        if not line.strip(_SPACE):
            continue
        try:  # without its line break: an unterminated string should not end in one
            obj = loads(line.removesuffix("\n").removesuffix("\r"))
        except BadJSON as exc:
            yield lineno, InputError(f"invalid JSON ({exc})", path=name, line=lineno)
            continue
        yield lineno, _object(obj, name, lineno)


def _object(
    obj: Any, name: str, line: int, *, check: bool = False
) -> Mapping[str, Any] | InputError:
    try:
        if check:
            check_unicode(obj)
    except BadJSON as exc:
        return InputError(f"invalid JSON ({exc})", path=name, line=line)
    if isinstance(obj, dict):
        return obj
    kind = type(obj).__name__
    return InputError(f"expected a JSON object, got {kind}", path=name, line=line)


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _is_array(text: str) -> bool:
    """Whether the text is one JSON array rather than JSON Lines.

    A JSONL row that is a list on one line is a row mistake unless it holds objects;
    several lines that parse as one value are an array, and so are lines that start
    ``[`` and do not parse, unless the next line parses alone (only that row is bad).
    """
    lines = [line for line in text.split("\n") if line.strip(_SPACE)]
    if not lines or not lines[0].lstrip(_SPACE).startswith("["):
        return False
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError) as exc:  # bad syntax, too deep, too long a number
        if len(lines) == 1:  # one line too deep to parse is one row, with its own problem
            return isinstance(exc, json.JSONDecodeError)
        return lines[0].strip(_SPACE) == "[" or not (_parses(lines[0]) or _parses(lines[1]))
    return len(lines) > 1 or not whole or any(isinstance(x, dict) for x in whole)


def _walk_array(name: str, text: str) -> Iterator[Row]:
    """Each element with the line it starts on; bad syntax between them ends the file."""
    decoder, check = json.JSONDecoder(), SURROGATE.search(text) is not None
    pos = _skip(text, text.index("[") + 1)
    line, counted = 1, 0
    more = not text.startswith("]", pos)
    while more:
        line, counted = line + text.count("\n", counted, pos), pos
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:
            at = exc.lineno if isinstance(exc, json.JSONDecodeError) else line
            raise InputError(f"invalid JSON array ({why(exc)})", path=name, line=at) from None
        yield line, _object(obj, name, line, check=check)
        pos = _skip(text, pos)
        more = text.startswith(",", pos)
        if not more and not text.startswith("]", pos):
            _array_syntax(name, text, pos, "Expecting ',' delimiter")
        pos = _skip(text, pos + 1) if more else pos
    if _skip(text, pos + 1) < len(text):
        _array_syntax(name, text, _skip(text, pos + 1), "Extra data")


def _array_syntax(name: str, text: str, pos: int, msg: str) -> NoReturn:
    exc = json.JSONDecodeError(msg, text, pos)
    raise InputError(f"invalid JSON array ({why(exc)})", path=name, line=exc.lineno)


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


def _csv_source(lines: Iterator[tuple[int, str]], first: str, name: str) -> Source:
    # Spreadsheets in many locales save ';'- or tab-separated "CSV": a header with one of
    # those and no comma names its separator, so read it instead of failing on column 1.
    counts = {sep: first.count(sep) for sep in ";\t"}
    delimiter = ","
    if "," not in first and max(counts.values()) > 0:
        delimiter = max(counts, key=counts.__getitem__)
    # The csv module's 128 KiB default refuses long answers; the limit is process-wide.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_LINE_BYTES))
    records = csv_records(lines, delimiter, name)
    header_line, header = next(records)  # `first` holds a non-blank record
    if isinstance(header, InputError):
        raise header

    def rows() -> Iterator[Row]:
        for line, record in records:
            if isinstance(record, InputError):
                yield line, record
            else:  # as csv.DictReader: a short row lacks its last columns, extras are dropped
                yield line, dict(zip_longest(header, record[: len(header)]))

    return Source(rows(), header, header_line, tabular=True, name=name)


def _parquet_source(path: Path, name: str) -> Source:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingExtraError("reading Parquet files", "parquet", "pyarrow") from exc
    try:
        table = pq.read_table(path)
        rows = table.to_pylist()
    except Exception as exc:  # pyarrow raises several unrelated types for bad files
        raise InputError(f"cannot read Parquet file: {exc}", path=name) from exc
    header = [str(col) for col in table.column_names]
    return Source(enumerate(rows, start=2), header, tabular=True, name=name)


def _open(p: Path, name: str, parquet: bool, *, pipes: bool = True) -> IO[bytes]:
    """The regular file or pipe (not Parquet, not ``pipes=False``) at ``p``; never a device."""
    if not pipes:
        return open_regular(p)
    try:
        mode = p.stat().st_mode
        if stat.S_ISDIR(mode):
            raise InputError("is a directory, not a file", path=name)
        if not stat.S_ISREG(mode) and (parquet or not stat.S_ISFIFO(mode)):
            raise InputError("is a device, not a file; pass a file, a pipe or '-'", path=name)
        return p.open("rb")
    except FileNotFoundError:
        raise InputError("no such file", path=name) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=name) from None


def _stdin() -> IO[bytes]:
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None or stream.isatty():
        raise InputError("no input is piped into standard input", path=STDIN)
    return stream  # type: ignore[no-any-return]


def open_source(p: Path, *, pipes: bool = True) -> Source:
    """The rows of ``p``, with the header of a CSV or Parquet file; see :func:`read_rows`.

    ``pipes=False``: a regular file only, for a file a user is handed (a baseline).

    Raises:
        InputError: As :func:`read_rows`.
        MissingExtraError: As :func:`read_rows`.
    """
    stdin = str(p) == "-"
    name, suffix = (STDIN, "") if stdin else (str(p), p.suffix.lower())
    stream = _stdin() if stdin else _open(p, name, suffix == ".parquet", pipes=pipes)
    if suffix == ".parquet":
        stream.close()
        return _parquet_source(p, name)
    if not stdin and suffix not in (".jsonl", ".ndjson", ".json", ".csv"):
        stream.close()
        raise InputError(
            f"unknown file type {suffix or '(none)'!r}; use .jsonl, .csv or .parquet", path=name
        )
    lines = _Lines(stream, name, owned=not stdin)
    try:
        return _text_source(lines, name, suffix)
    except BaseException:
        lines.close()
        raise


def _text_source(lines: _Lines, name: str, suffix: str) -> Source:
    numbered = iter(lines)
    first = next(((n, text) for n, text in numbered if text.strip(_SPACE)), None)
    if first is None:
        raise InputError("file is empty; expected one item per line", path=name)
    lineno, text = first
    start = text.lstrip(_SPACE)[:1]
    if suffix == ".csv" or (not suffix and start not in ("{", "[")):
        return _csv_source(chain([first], numbered), text, name)
    if start != "[":
        return Source(_rows_jsonl(chain([first], numbered), name), name=name)
    parts = ["\n" * (lineno - 1), text]
    for _, more in numbered:
        if lines.offset > MAX_ARRAY_BYTES:
            limit = MAX_ARRAY_BYTES // 2**20
            message = f"a JSON array over {limit} MiB; convert it to JSON Lines: jq -c '.[]'"
            raise InputError(message, path=name)
        parts.append(more)
    whole = "".join(parts)
    if not _is_array(whole):
        return Source(_rows_jsonl(enumerate(whole.split("\n"), start=1), name), name=name)
    if suffix not in (".jsonl", ".ndjson"):
        return Source(_walk_array(name, whole), name=name)
    p = Path(name)
    fixed = shlex.quote(f"{p.stem}.lines.jsonl")
    raise InputError(
        "file is a JSON array, but fairjudge reads JSON Lines (one object per line); "
        f"convert it with: jq -c '.[]' {shlex.quote(p.name)} > {fixed} "
        "(or name it .json, which may hold an array)",
        path=name,
    )


def read_rows(path: str | Path) -> Iterator[tuple[int, Mapping[str, Any] | InputError]]:
    """Yield ``(line, row)`` from a JSONL, JSON, CSV or Parquet file; bad rows come as errors.

    ``.json`` files hold JSON Lines or one JSON array of objects; ``-`` reads standard
    input. Limits, and what a line is: see the module docstring.

    Raises:
        InputError: The file is missing, a device, empty, not UTF-8, of an unknown
            type, a JSON array named ``.jsonl``, or too large; on the call or later.
        MissingExtraError: A Parquet file without ``pyarrow`` installed.
    """
    return open_source(Path(path)).rows


def read_records(path: str | Path) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` for each non-blank line of a JSON Lines file a user may be handed.

    For recordings and results (``replay:``, ``jury --out``, ``compare --out``): a
    regular file only, lines bounded and decoded as for every input, each parsed by
    :func:`loads` and nested no deeper than :data:`fairjudge.io._untrusted.MAX_DEPTH`.

    Raises:
        InputError: The file cannot be read or is not a regular file, a line is over
            the limit or not UTF-8, or a line is not JSON; names the file and line.
    """
    name = str(path)
    lines = _Lines(open_regular(path), name, owned=True)
    try:
        for lineno, text in lines:
            if not text.strip(_SPACE):
                continue
            try:
                value = loads(text.removesuffix("\n").removesuffix("\r"))
                check_depth(value)
            except ValueError as exc:  # BadJSON, or nested too deeply
                raise InputError(f"not JSON ({exc})", path=name, line=lineno) from None
            yield lineno, value
    finally:
        lines.close()
