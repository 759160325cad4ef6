"""Reading the rows of a comparison or ranking file: JSONL, JSON, CSV or Parquet.

What a row means is the caller's business (:mod:`fairjudge._io` makes items of them,
rankings read answers or battles); this module finds the rows, with the line each
came from, and turns whole-file mistakes into one clear :class:`InputError`: a file
that is not UTF-8, a JSON array named ``.jsonl``. Spreadsheets in many locales save
``;``- or tab-separated "CSV"; a header that uses one of those and no comma is read
with that separator.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._errors import InputError, MissingExtraError

__all__ = ["Row", "Source", "open_source", "read_rows"]

Row = tuple[int, Mapping[str, Any] | InputError]
"""A row and the line it came from, or the error that row is."""


@dataclass(frozen=True, slots=True)
class Source:
    """The rows of a file, and for tabular files the header, checked once up front."""

    rows: Iterator[Row]
    header: list[str] | None = None
    header_line: int | None = None
    tabular: bool = False  # CSV/Parquet text cells carry a conversation as a JSON string


def _rows_jsonl(path: Path, text: str) -> Iterator[Row]:
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield (
                lineno,
                InputError(
                    f"invalid JSON ({exc.msg} at column {exc.colno})", path=str(path), line=lineno
                ),
            )
            continue
        yield lineno, _object(obj, path, lineno)


def _object(obj: Any, path: Path, line: int) -> Mapping[str, Any] | InputError:
    if isinstance(obj, dict):
        return obj
    kind = type(obj).__name__
    return InputError(f"expected a JSON object, got {kind}", path=str(path), line=line)


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True


def _is_array(text: str) -> bool:
    """Whether the text is one JSON array rather than JSON Lines.

    A JSONL row that is a list on one line is a row mistake, reported as that row,
    unless it holds objects; several lines that parse as one value are an array, and
    so are lines that start ``[`` and do not parse, unless the next line parses alone
    (then only the first row is bad).
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not lines[0].lstrip().startswith("["):
        return False
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        if lines[0].strip() == "[" or len(lines) == 1:
            return True
        return not _parses(lines[0]) and not _parses(lines[1])
    return len(lines) > 1 or not whole or any(isinstance(x, dict) for x in whole)


def _rows_array(path: Path, text: str) -> Iterator[Row]:
    try:
        json.loads(text)  # validate all of it first: the walk below trusts the syntax
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON array ({exc.msg} at column {exc.colno})", path=str(path), line=exc.lineno
        ) from exc
    return _walk_array(path, text)


def _walk_array(path: Path, text: str) -> Iterator[Row]:
    # Decode element by element to know the line each one starts on, for messages.
    decoder = json.JSONDecoder()
    pos = _skip(text, text.index("[") + 1)
    line, counted = 1, 0
    while text[pos] != "]":
        line, counted = line + text.count("\n", counted, pos), pos
        obj, pos = decoder.raw_decode(text, pos)
        yield line, _object(obj, path, line)
        pos = _skip(text, pos)


def _skip(text: str, pos: int) -> int:
    """The position after the whitespace and comma between two array elements."""
    while text[pos] in " \t\r\n,":
        pos += 1
    return pos


def _csv_source(text: str) -> Source:
    # Spreadsheets in many locales save ';'- or tab-separated "CSV": a header with one of
    # those and no comma names its separator, so read it instead of failing on column 1.
    first = text.split("\n", 1)[0]
    counts = {sep: first.count(sep) for sep in ";\t"}
    delimiter = ","
    if "," not in first and max(counts.values()) > 0:
        delimiter = max(counts, key=counts.__getitem__)
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = list(reader.fieldnames or [])

    def rows() -> Iterator[Row]:
        for row in reader:
            yield reader.line_num, row

    return Source(rows(), header, reader.line_num, tabular=True)


def _parquet_source(path: Path) -> Source:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingExtraError("reading Parquet files", "parquet", "pyarrow") from exc
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several unrelated types for bad files
        raise InputError(f"cannot read Parquet file: {exc}", path=str(path)) from exc
    header = [str(name) for name in table.column_names]
    return Source(enumerate(table.to_pylist(), start=2), header, tabular=True)


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"file is not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "re-encode it as UTF-8",
            path=str(path),
            line=line,
        ) from exc


def open_source(p: Path) -> Source:
    """The rows of ``p``, with the header of a CSV or Parquet file; see :func:`read_rows`.

    Raises:
        InputError: As :func:`read_rows`.
        MissingExtraError: As :func:`read_rows`.
    """
    if not p.exists():
        raise InputError("no such file", path=str(p))
    if p.is_dir():
        raise InputError("is a directory, not a file", path=str(p))
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        return _parquet_source(p)
    text = _read_text(p)
    if not text.strip():
        raise InputError("file is empty; expected one item per line", path=str(p))
    if suffix == ".csv":
        return _csv_source(text)
    if suffix not in (".jsonl", ".ndjson", ".json"):
        raise InputError(
            f"unknown file type {suffix or '(none)'!r}; use .jsonl, .csv or .parquet", path=str(p)
        )
    if not _is_array(text):
        return Source(_rows_jsonl(p, text))
    if suffix == ".json":
        return Source(_rows_array(p, text))
    fixed = shlex.quote(f"{p.stem}.lines.jsonl")
    raise InputError(
        "file is a JSON array, but fairjudge reads JSON Lines (one object per line); "
        f"convert it with: jq -c '.[]' {shlex.quote(p.name)} > {fixed} "
        "(or name it .json, which may hold an array)",
        path=str(p),
    )


def read_rows(path: str | Path) -> Iterator[tuple[int, Mapping[str, Any] | InputError]]:
    """Yield ``(line, row)`` from a JSONL, JSON, CSV or Parquet file; bad rows come as errors.

    ``.json`` files hold JSON Lines or one JSON array of objects; CSV files are
    comma-separated unless their header uses ``;`` or tabs and no comma.

    Raises:
        InputError: The file is missing, a directory, empty, not UTF-8, of an
            unknown type, or a JSON array named ``.jsonl``/``.ndjson``.
        MissingExtraError: A Parquet file without ``pyarrow`` installed.
    """
    return open_source(Path(path)).rows
