"""What the top-level functions accept: items as a file, rows or a DataFrame; judges as specs.

In-memory rows (dicts, or a pandas DataFrame's rows) go through the very loader a
file goes through, so they are validated exactly as the command line validates a
file: the rows are written to a private JSON Lines file and read back, and an error
names them as ``<rows>:N`` (N counts rows from 1) instead of that file.
"""

from __future__ import annotations

import importlib
import json
import math
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from fairjudge._errors import ConfigError, InputError, MissingExtraError
from fairjudge.io import check_renamed

__all__ = [
    "ItemsLike", "check_label_column", "file_renames", "import_pandas", "load_rows",
    "read_already", "rows_of",
]  # fmt: skip

ItemsLike = Any
"""A path, a sequence of dicts or item objects, or a pandas DataFrame."""

T = TypeVar("T")
ROWS = "<rows>"


def import_pandas(feature: str) -> Any:
    """pandas, or the error that says how to install it."""
    try:
        return importlib.import_module("pandas")  # no stubs needed: used through Any
    except ImportError as exc:
        raise MissingExtraError(feature, "pandas", "pandas") from exc


def _is_dataframe(obj: object) -> bool:
    """A pandas DataFrame, recognised without importing pandas."""
    kind = type(obj)
    return kind.__name__ == "DataFrame" and kind.__module__.startswith("pandas")


def _cell(value: Any) -> Any:
    """A DataFrame cell as JSON: a missing value is an absent one; numpy scalars unwrap."""
    if isinstance(value, float) and math.isnan(value):
        return None
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item) and not isinstance(value, (list, dict, str)):
        try:
            return _cell(item())
        except (TypeError, ValueError):
            return value
    if value is not None and type(value).__name__ == "NAType":
        return None
    return value


def rows_of(items: Any, *, columns: Mapping[str, str] | None = None) -> list[dict[str, Any]] | None:
    """The rows of in-memory items, renamed by ``columns``; ``None`` for a path.

    Args:
        items: A path, a DataFrame, or a sequence of dicts.
        columns: Your column name -> the README's name (``{"prompt": "question"}``).

    Raises:
        MissingExtraError: A DataFrame, and pandas is not installed (cannot happen in
            practice, but the import is checked where the rows are read).
        ConfigError: ``items`` is a string that is not a path, or holds a row that
            is not a mapping.
        InputError: ``columns`` names a key no row has (:func:`fairjudge.io.check_renamed`).
    """
    if isinstance(items, (str, Path)):
        return None
    rename = dict(columns or {})
    if _is_dataframe(items):
        import_pandas("DataFrame input")
        records = items.astype(object).to_dict("records")
        rows = [{str(k): _cell(v) for k, v in r.items()} for r in records]
    else:
        if isinstance(items, Mapping):  # one row: iterating it would give its keys
            raise ConfigError(
                "items is one dict; pass a list of dicts ([row]), a path or a DataFrame; "
                f"got {dict(items)!r:.80}"
            )
        rows = []
        for i, row in enumerate(items):
            if not isinstance(row, Mapping):
                raise ConfigError(
                    f"items[{i}] must be a dict (or items a path or a DataFrame); got {row!r:.80}"
                )
            rows.append(dict(row))
    if rows:  # a rename ignored would drop what it holds (labels, ids) silently
        keys = list(dict.fromkeys(str(k) for row in rows for k in row))
        named = [(readme, mine) for mine, readme in rename.items() if mine != readme]
        check_renamed(named, keys, of="DataFrame" if _is_dataframe(items) else "rows")
    return [{rename.get(k, k): v for k, v in row.items()} for row in rows]


@contextmanager
def _as_file(rows: Sequence[Mapping[str, Any]]) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="fairjudge-") as folder:
        path = Path(folder) / "rows.jsonl"
        with path.open("w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        yield path


def file_renames(
    items: Any, columns: Mapping[str, str] | None, readable: Sequence[str]
) -> dict[str, str]:
    """For a path, ``columns`` as the file reader takes them: the README's name -> yours.

    Rows and DataFrames are renamed by :func:`rows_of`; a file is read with the
    reader's column options, so only the names in ``readable`` can be renamed there.

    Raises:
        ConfigError: ``columns`` renames a field the file reader cannot read under
            another name.
    """
    if not isinstance(items, (str, Path)) or not columns:
        return {}
    renames = {readme: mine for mine, readme in columns.items()}
    other = sorted(set(renames) - set(readable))
    if other:
        raise ConfigError(
            f"columns: a file's {other[0]!r} column cannot be renamed (a file's columns "
            f"that can: {', '.join(readable) or 'none, for this input'}); rename it in the "
            "file, or pass the rows",
            params="columns",
        )
    return renames


def load_rows(
    items: Any,
    load: Callable[[Path], T],
    *,
    columns: Mapping[str, str] | None = None,
) -> tuple[T, str]:
    """Load items with ``load`` (a file loader), from a path or from in-memory rows.

    Returns:
        What ``load`` returns, and the source's name for the record.

    Raises:
        InputError: As ``load`` raises it; for rows, named ``<rows>:N``.
    """
    rows = rows_of(items, columns=columns)
    if rows is None:
        return load(Path(items)), str(items)
    if not rows:
        raise ConfigError("items is empty; need at least one item")
    with _as_file(rows) as path:
        try:
            return _named_rows(load(path), str(path)), ROWS
        except InputError as exc:
            raise InputError(str(exc).replace(str(path), ROWS)) from None


def _named_rows(loaded: T, spooled: str) -> T:
    """What was read from the spooled rows, its skipped rows named ``<rows>`` as errors are.

    The private file is deleted once read, so a skipped row's ``source`` names the
    rows instead (``<rows>``, line N counting rows from 1), as an error does.
    """
    from fairjudge.io import LoadedItems

    if not isinstance(loaded, LoadedItems):
        return loaded

    def named(e: InputError) -> InputError:
        if e.path != spooled:
            return e
        where = f"{e.path}:{e.line}: " if e.line is not None else f"{e.path}: "
        bare = str(e).removeprefix(where).replace(spooled, ROWS)
        return InputError(bare, path=ROWS, line=e.line, params=e.params)

    skipped = [named(e) for e in loaded.skipped]
    return replace(loaded, skipped=skipped, path=ROWS)


def read_already(
    items: Any, kind: type, source: str | None, **reading: object
) -> tuple[list[Any], str, list[dict[str, Any]]] | None:
    """Items already read (a :class:`~fairjudge.io.LoadedItems`, or item objects of ``kind``).

    ``reading``: how the caller asked for the items to be read (``skip_invalid``,
    ``allow_empty``), which items read already cannot honour. (``columns`` may still
    name a column the caller reads back, as ``calibrate``'s label column.)

    Returns:
        The items, their source's name and the skipped rows; ``None`` for anything else.

    Raises:
        ConfigError: The items were read already and a reading option was given.
    """
    from fairjudge.io import LoadedItems

    if isinstance(items, LoadedItems):
        ready = list(items.items), source or items.path or ROWS, items.skipped_records()
    elif isinstance(items, (list, tuple)) and items and all(isinstance(i, kind) for i in items):
        ready = list(items), source or ROWS, []
    else:
        return None
    given = tuple(name for name, value in reading.items() if value)
    if given:
        raise ConfigError(
            f"{', '.join(given)}: the items were read already, so these have no effect; "
            "give them to the loader that read the items, or pass the file",
            params=given,
        )
    return ready


def check_label_column(items: Any, human: str, read: Sequence[Any]) -> None:
    """Refuse a label column (``columns`` naming ``human``) that the input lacks.

    Its labels would read as absent: items that all carry a ``human_score`` were
    calibrated on that alone, and the agreement asked for read 'not estimated'.
    Standard input cannot be read twice, so only a file's columns (or the rows'
    keys) are checked.

    Args:
        items: What the caller passed: a path, rows, a DataFrame, or items read already
            (whose file, if it is one, is looked at).
        human: The column the labels were to be read from.
        read: The items as read.

    Raises:
        InputError: No item has a label, every one a ``human_score``, and the input's
            columns lack ``human``.
    """
    if human == "human" or any(it.human is not None for it in read):
        return
    if not all(it.human_score is not None for it in read):
        return  # check_labels refuses the unlabelled items, naming the column
    names, of, path = _column_names(items)
    if names is not None:
        check_renamed([("human", human)], names, of=of, path=path)


def _column_names(items: Any) -> tuple[list[str] | None, str, str | None]:
    """The input's column names (``None``: unknown), what they are of, and its file's path.

    A file's header, or a JSON Lines file's first row's keys; the keys of in-memory rows.
    """
    from fairjudge.io import LoadedItems, open_source

    if isinstance(items, LoadedItems):
        items = items.path
    if isinstance(items, (str, Path)):
        file = Path(items)
        if str(items) in ("", "-") or not file.is_file():  # stdin or a pipe: read once only
            return None, "", None
        source = open_source(file, pipes=False)
        names = source.header
        if names is None:  # JSON Lines: the first row's keys
            first = next(iter(source.rows), None)
            names = list(first[1]) if first is not None and isinstance(first[1], dict) else None
        return names, "file", str(items)
    if _is_dataframe(items):
        return [str(c) for c in items.columns], "DataFrame", None
    if isinstance(items, (list, tuple)) and items and all(isinstance(r, Mapping) for r in items):
        keys = dict.fromkeys(str(k) for row in items for k in row)
        return list(keys), "rows", None
    return None, "", None
