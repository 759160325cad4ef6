"""Reading comparison files (JSONL, CSV, Parquet) into validated :class:`Item` objects.

Nothing is judged until the whole file has validated: a judge call costs money,
and a typo on row 900 should not be found after 899 rows were paid for. Every
problem is reported with the file, the line (JSONL) or row (CSV/Parquet, counting
the header as line 1) and what would fix it. With ``skip_invalid`` the bad rows are
set aside and listed instead.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairjudge._errors import InputError, MissingExtraError
from fairjudge._items import Item
from fairjudge._types import Outcome

__all__ = ["Columns", "LoadedItems", "load_items", "read_rows"]

_HUMAN = {"1": Outcome.ONE, "2": Outcome.TWO, "tie": Outcome.TIE, "0": Outcome.TIE}


@dataclass(frozen=True, slots=True)
class Columns:
    """Which input columns hold which field; override to read other schemas."""

    question: str = "question"
    answer_1: str = "answer_1"
    answer_2: str = "answer_2"
    id: str = "id"
    reference: str = "reference"
    category: str = "category"
    human: str = "human"
    human_score: str = "human_score"
    model_1: str = "model_1"
    model_2: str = "model_2"


@dataclass(frozen=True, slots=True)
class LoadedItems:
    """Validated items, plus the rows set aside with ``skip_invalid``."""

    items: list[Item]
    skipped: list[InputError] = field(default_factory=list)
    path: str = ""


def _rows_jsonl(path: Path, text: str) -> Iterator[tuple[int, Mapping[str, Any] | InputError]]:
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
        if not isinstance(obj, dict):
            yield (
                lineno,
                InputError(
                    f"expected a JSON object, got {type(obj).__name__}", path=str(path), line=lineno
                ),
            )
            continue
        yield lineno, obj


def _rows_csv(text: str) -> Iterator[tuple[int, Mapping[str, Any] | InputError]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    for row in reader:
        yield reader.line_num, row


def _rows_parquet(path: Path) -> Iterator[tuple[int, Mapping[str, Any] | InputError]]:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingExtraError("reading Parquet files", "parquet", "pyarrow") from exc
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several unrelated types for bad files
        raise InputError(f"cannot read Parquet file: {exc}", path=str(path)) from exc
    yield from enumerate(table.to_pylist(), start=2)


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


def _text_field(
    row: Mapping[str, Any], column: str, *, required: bool, empty_ok: bool, where: dict[str, Any]
) -> str | None:
    if column not in row or row[column] is None:
        if required:
            raise InputError(f"missing column {column!r}", **where)
        return None
    value = row[column]
    if not isinstance(value, str):
        raise InputError(
            f"{column!r} must be a string, got {type(value).__name__} {value!r}", **where
        )
    if not empty_ok and not value.strip():
        raise InputError(f"{column!r} is empty", **where)
    return value


def _required(row: Mapping[str, Any], column: str, *, empty_ok: bool, where: dict[str, Any]) -> str:
    value = _text_field(row, column, required=True, empty_ok=empty_ok, where=where)
    if value is None:  # unreachable: required fields raise instead
        raise InputError(f"missing column {column!r}", **where)
    return value


def _item(row: Mapping[str, Any], cols: Columns, where: dict[str, Any]) -> Item:
    question = _required(row, cols.question, empty_ok=False, where=where)
    ans1 = _required(row, cols.answer_1, empty_ok=True, where=where)
    ans2 = _required(row, cols.answer_2, empty_ok=True, where=where)
    raw_id = row.get(cols.id)
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int | None):
        raise InputError(f"{cols.id!r} must be a string or integer, got {raw_id!r}", **where)
    human_raw = row.get(cols.human)
    human = None
    if human_raw not in (None, ""):
        human = _HUMAN.get(str(human_raw).strip().lower())
        if human is None:
            raise InputError(f"{cols.human!r} must be 1, 2 or tie, got {human_raw!r}", **where)
    score_raw = row.get(cols.human_score)
    human_score = None
    if score_raw not in (None, ""):
        try:
            human_score = float(score_raw)
        except (TypeError, ValueError):
            raise InputError(
                f"{cols.human_score!r} must be a number, got {score_raw!r}", **where
            ) from None
        if human_score != human_score or human_score in (float("inf"), float("-inf")):
            raise InputError(f"{cols.human_score!r} must be finite, got {score_raw!r}", **where)
    optional = {
        name: _text_field(row, getattr(cols, name), required=False, empty_ok=True, where=where)
        for name in ("reference", "category", "model_1", "model_2")
    }
    return Item(
        question=question,
        answer_1=ans1,
        answer_2=ans2,
        id=str(raw_id) if raw_id not in (None, "") else None,
        human=human,
        human_score=human_score,
        **optional,
    )


def read_rows(path: str | Path) -> Iterator[tuple[int, Mapping[str, Any] | InputError]]:
    """Yield ``(line, row)`` from a JSONL, CSV or Parquet file; bad rows come as errors.

    Raises:
        InputError: The file is missing, a directory, empty, not UTF-8, or of an
            unknown type.
        MissingExtraError: A Parquet file without ``pyarrow`` installed.
    """
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", path=str(p))
    if p.is_dir():
        raise InputError("is a directory, not a file", path=str(p))
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        return _rows_parquet(p)
    text = _read_text(p)
    if not text.strip():
        raise InputError("file is empty; expected one item per line", path=str(p))
    if suffix == ".csv":
        return _rows_csv(text)
    if suffix in (".jsonl", ".ndjson", ".json"):
        return _rows_jsonl(p, text)
    raise InputError(
        f"unknown file type {suffix or '(none)'!r}; use .jsonl, .csv or .parquet", path=str(p)
    )


def load_items(
    path: str | Path, *, columns: Columns | None = None, skip_invalid: bool = False
) -> LoadedItems:
    """Read and validate a comparison file.

    The format follows the extension: ``.jsonl``/``.ndjson``/``.json`` (one object per
    line), ``.csv``, ``.parquet``. Required columns are ``question``, ``answer_1`` and
    ``answer_2`` (renamed with ``columns``); ``id``, ``reference``, ``category``,
    ``human`` (``1``/``2``/``tie``), ``model_1`` and ``model_2`` are optional. Items
    without an id get their line number as id.

    Raises:
        InputError: The file is missing, empty, not UTF-8, or a row is invalid
            (unless ``skip_invalid``); the message names the file and line.
        MissingExtraError: A Parquet file without ``pyarrow`` installed.
    """
    p = Path(path)
    cols = columns or Columns()
    rows = read_rows(p)
    items: list[Item] = []
    skipped: list[InputError] = []
    seen_ids: dict[str, int] = {}
    for lineno, row in rows:
        where: dict[str, Any] = {"path": str(p), "line": lineno}
        try:
            if isinstance(row, InputError):
                raise row
            item = _item(row, cols, where)
            if item.id is None:
                item = Item(**{**_fields(item), "id": str(lineno)})
            assert item.id is not None
            if item.id in seen_ids:
                raise InputError(
                    f"duplicate id {item.id!r} (first seen on line {seen_ids[item.id]})", **where
                )
            seen_ids[item.id] = lineno
        except InputError as exc:
            if not skip_invalid:
                raise
            skipped.append(exc)
            continue
        items.append(item)
    if not items:
        raise InputError("no valid items" if skipped else "file holds no items", path=str(p))
    return LoadedItems(items=items, skipped=skipped, path=str(p))


def _fields(item: Item) -> dict[str, Any]:
    return {name: getattr(item, name) for name in Item.__slots__}
