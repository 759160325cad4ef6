"""Reading pointwise scoring files (JSONL, JSON, CSV, Parquet) into validated items.

The same contract as :mod:`fairjudge.io._pairs`: the whole file validates before the
first judge call, and every problem names the file and the line or row.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fairjudge._errors import InputError
from fairjudge._items import ScoreItem
from fairjudge.io._pairs import (
    PAIRS,
    Columns,
    LoadedItems,
    _answer,
    _names,
    _optional,
    _question,
    _shown,
    _string,
    header_hinted,
    numbered,
    parsed_rows,
)
from fairjudge.io._rows import Source, nothing_valid, open_source

__all__ = ["HUMAN_PREFIX", "LoadedScoreItems", "ScoreItem", "load_score_items"]

HUMAN_PREFIX = "human_"
"""A column ``human_<dimension>`` holds a human score for that dimension."""


LoadedScoreItems = LoadedItems[ScoreItem]
"""Validated scoring items, plus the rows set aside with ``skip_invalid``."""


def _human_columns(names: Sequence[str], dimensions: Sequence[str] | None) -> list[str]:
    """The ``human_*`` names that name no dimension."""
    if dimensions is None:
        return []
    prefix = len(HUMAN_PREFIX)
    return [n for n in names if n.startswith(HUMAN_PREFIX) and n[prefix:] not in dimensions]


def _unknown_human(unknown: list[str], dimensions: Sequence[str] | None) -> str:
    dims = ", ".join(dimensions or ())
    return (
        f"column {unknown[0]!r} names no dimension of the rubric (its dimensions: {dims}); "
        "rename it human_<dimension>, or pick the rubric it was labelled with"
    )


def _check_header(source: Source, question: str, answer: str, dims: Sequence[str] | None) -> None:
    if source.header is None:
        return
    where: dict[str, Any] = {"path": source.name, "line": source.header_line}
    for column, param in ((question, "columns.question"), (answer, "columns.answer")):
        if column not in source.header:
            error = InputError(
                f"missing column {column!r}; found columns: {_names(source.header)}; "
                f"to read another column, pass {param}=NAME",
                **where,
                params=param,
            )
            raise header_hinted(error, source.header, PAIRS)
    unknown = _human_columns(source.header, dims)
    if unknown:
        raise InputError(_unknown_human(unknown, dims), **where)


def _human(
    row: Mapping[str, Any],
    dims: Sequence[str] | None,
    scale: tuple[int, int] | None,
    where: dict[str, Any],
) -> dict[str, float]:
    unknown = _human_columns([str(k) for k in row], dims)
    if unknown:
        raise InputError(_unknown_human(unknown, dims), **where)
    human: dict[str, float] = {}
    for key, value in row.items():
        if not str(key).startswith(HUMAN_PREFIX) or value in (None, ""):
            continue
        try:
            if isinstance(value, bool):
                raise TypeError
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"{key!r} must be a number, got {_shown(value)}", **where) from None
        if not math.isfinite(number):
            raise InputError(f"{key!r} must be finite, got {_shown(value)}", **where)
        if scale is not None and not scale[0] <= number <= scale[1]:
            # Off the scale, a score cannot be compared with the judge's: a typo, or
            # labels made for another rubric. A mean of raters (3.5) lies on the scale.
            raise InputError(
                f"{key!r} is {_shown(value)}, outside the rubric's scale {scale[0]}-{scale[1]}; "
                "fix the score, or pick the rubric it was labelled with (rubric)",
                **where,
                params="rubric",
            )
        human[str(key)[len(HUMAN_PREFIX) :]] = number
    return human


def _item(
    row: Mapping[str, Any],
    cols: Columns,
    answer_col: str,
    dims: Sequence[str] | None,
    scale: tuple[int, int] | None,
    where: dict[str, Any],
    tabular: bool,
    allow_empty: bool,
) -> ScoreItem:
    question = _question(row, cols, where, tabular=tabular)
    if row.get(answer_col) is None:
        raise InputError(
            f"missing column {answer_col!r}; this row has keys: {_names(row)}; "
            "to read another key, pass columns.answer=NAME",
            **where,
            params="columns.answer",
        )
    answer = _answer(_string(row[answer_col], answer_col, where), answer_col, where,
                     allow_empty=allow_empty)  # fmt: skip
    raw_id = row.get(cols.id)
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int | None):
        raise InputError(f"{cols.id!r} must be a string or integer, got {_shown(raw_id)}", **where)
    optional = {name: _optional(row, name, where) for name in ("reference", "category", "system")}
    return ScoreItem(
        question=question,
        answer=answer,
        id=str(raw_id) if raw_id not in (None, "") else None,
        human=_human(row, dims, scale, where),
        **{k: (v if v != "" else None) for k, v in optional.items()},
    )


def load_score_items(
    path: str | Path,
    *,
    dimensions: Sequence[str] | None = None,
    scale: tuple[int, int] | None = None,
    skip_invalid: bool = False,
    question_col: str = "question",
    answer_col: str = "answer",
    allow_empty: bool = False,
) -> LoadedScoreItems:
    """Read and validate a pointwise scoring file.

    Args:
        path: ``.jsonl``/``.ndjson``/``.json``/``.csv``/``.parquet``, or ``-`` for stdin.
        dimensions: The rubric's dimensions: a ``human_<name>`` column for any other
            name is an error. ``None`` accepts any.
        scale: The rubric's lowest and highest score: a human score outside it is
            an error (one between two levels, a mean of raters, is kept). ``None``
            accepts any finite number.
        skip_invalid: Set bad rows aside (listed in ``skipped``) instead of stopping.
        question_col: The column holding the question or conversation.
        answer_col: The column holding the answer.
        allow_empty: Keep empty or blank answers; by default each is an invalid row.

    Raises:
        InputError: The file cannot be read, lacks a required column, or a row is
            invalid (unless ``skip_invalid``; then only when every row is), ``(id,
            system)`` repeats, or only some rows name a system; the message names the
            file and the line.
        MissingExtraError: A Parquet file without ``pyarrow`` installed.
    """
    cols = Columns(question=question_col)
    source = open_source(Path(path))
    name = source.name
    _check_header(source, question_col, answer_col, dimensions)
    items: list[ScoreItem] = []
    lines: list[int] = []
    skipped: list[InputError] = []
    seen: dict[tuple[str, str | None], int] = {}

    def parse(row: Mapping[str, Any], where: dict[str, Any], lineno: int) -> ScoreItem:
        item = _item(row, cols, answer_col, dimensions, scale, where, source.tabular, allow_empty)
        return numbered(item, lineno, seen, where, item.system)

    for lineno, item in parsed_rows(source, parse, skip_invalid, skipped, PAIRS):
        items.append(item)
        lines.append(lineno)
    if not items:
        raise nothing_valid(name, skipped)
    _check_systems(items, lines, name)
    return LoadedItems(items=items, skipped=skipped, path=name)


def _check_systems(items: Sequence[ScoreItem], lines: Sequence[int], name: str) -> None:
    named = [item.system is not None for item in items]
    if any(named) and not all(named):
        line = lines[named.index(False)]
        raise InputError(
            "this row names no system, but others do; with several systems every row "
            "needs a 'system'",
            path=name,
            line=line,
        )
