"""Reading comparison files (JSONL, JSON, CSV, Parquet) into validated items.

Nothing is judged until the whole file has validated, since a judge call costs
money; every problem names the file, the line or row and the fix (``skip_invalid``
sets bad rows aside and lists them). A question is a string or a conversation.
A file of the other kind (single answers where pairs are read, or pairs where single
answers are read: every row failing the same way, each with the other kind's
columns; for CSV and Parquet, a header lacking a required column and holding the
other kind's) gets a hint line naming the command that reads it (:data:`FileKind`).
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from fairjudge._call import ROLES, Conversation, Message
from fairjudge._errors import InputError, worded
from fairjudge._items import Item, ScoreItem
from fairjudge._types import Outcome
from fairjudge.io._rows import BadJSON, Source, loads, open_source, read_rows
from fairjudge.io._rows import bare as _bare
from fairjudge.io._rows import invalid_rows as _invalid_rows
from fairjudge.io._rows import nothing_valid as _nothing_valid

__all__ = [
    "PAIRS",
    "SINGLE_ANSWERS",
    "Columns",
    "FileKind",
    "LoadedItems",
    "check_renamed",
    "header_hinted",
    "hinted",
    "load_items",
    "of_other_kind",
    "read_rows",
]

_HUMAN = {"1": Outcome.ONE, "2": Outcome.TWO, "tie": Outcome.TIE, "0": Outcome.TIE}
# The parameter that renames each required column, named in "missing column" messages.
_PARAMS = {
    "question": "columns.question",
    "answer_1": "columns.answer_1",
    "answer_2": "columns.answer_2",
}
# The optional columns (what each holds): a default name may be absent, a name given may not.
_OPTIONAL = {
    "id": "the ids", "reference": "the references", "category": "the categories",
    "human": "the labels (1/2/tie)", "human_score": "the human scores",
    "model_1": "model 1's names", "model_2": "model 2's names",
}  # fmt: skip
# What each field's column holds, as a refusal of a column named for it says.
_HOLDS = {
    **_OPTIONAL, "question": "the questions", "answer": "the answers",
    "answer_1": "the first answers", "answer_2": "the second answers",
}  # fmt: skip
_SHOWN_NAMES = 20  # keys listed for a row missing a column; wide rows would drown the message
# Values quoted in messages are cut short: a row may hold megabytes, or lists nested
# deeper than repr() can recurse.
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 3, 80, 80


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


_DEFAULT = Columns()


T = TypeVar("T")
_Keyed = TypeVar("_Keyed", Item, ScoreItem)


@dataclass(frozen=True, slots=True)
class LoadedItems(Generic[T]):
    """Validated items, plus the rows set aside with ``skip_invalid``.

    Generic in the kind of item: pairwise :class:`Item` for ``compare``, a scoring
    item for ``score``; the skipped rows are reported the same way for both.
    """

    items: list[T]
    skipped: list[InputError] = field(default_factory=list)
    path: str = ""

    def skipped_records(self) -> list[dict[str, str | int | None]]:
        """The skipped rows as JSON-ready records, in file order.

        Each message is worded where it is made (:func:`fairjudge._errors.worded`): a
        notebook reads ``allow_empty=True``, the command line ``--allow-empty``, in
        ``--json``, ``--out`` and the page alike.

        Returns:
            One ``{"source": str, "line": int | None, "message": str}`` per skipped
            row: the file (``<stdin>`` for standard input), its line, and the problem
            without the ``source:line:`` prefix.
        """
        return [
            {"source": e.path or self.path, "line": e.line, "message": _worded_row(e)}
            for e in self.skipped
        ]


def _worded_row(error: InputError) -> str:
    """A skipped row's problem in its reader's words; the file it names, word for word."""
    text = _bare(error)
    if not error.params:
        return text
    path = error.path
    parts = text.split(path) if path else [text]
    return (path or "").join(worded(part, *error.params) for part in parts)


def _shown(value: object) -> str:
    """``repr(value)``, cut short for a message."""
    return _REPR.repr(value)


def _names(names: Iterable[object]) -> str:
    shown = [_shown(n) for n in names]
    more = f", ... ({len(shown) - _SHOWN_NAMES} more)" if len(shown) > _SHOWN_NAMES else ""
    return ", ".join(shown[:_SHOWN_NAMES]) + more if shown else "none"


def _check_header(source: Source, cols: Columns) -> None:
    if source.header is None:
        return
    missing = [name for name in _PARAMS if getattr(cols, name) not in source.header]
    if not missing:
        return
    columns = [getattr(cols, name) for name in missing]
    also = f" (and {_names(columns[1:])})" if len(columns) > 1 else ""
    hint = (
        f"to read another column, pass {_PARAMS[missing[0]]}=NAME"
        if len(missing) == 1
        else f"to read other columns, pass {', '.join(_PARAMS[name] for name in missing)}"
    )
    error = InputError(
        f"missing column {columns[0]!r}{also}; found columns: {_names(source.header)}; {hint}",
        path=source.name,
        line=source.header_line,
        params=tuple(_PARAMS[name] for name in missing),
    )
    raise header_hinted(error, source.header, SINGLE_ANSWERS)


def _string(value: Any, column: str, where: dict[str, Any]) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"{column!r} must be a string, got {type(value).__name__} {_shown(value)}", **where
        )
    return value


def _optional(row: Mapping[str, Any], column: str, where: dict[str, Any]) -> str | None:
    value = row.get(column)
    return None if value is None else _string(value, column, where)


def _present(row: Mapping[str, Any], cols: Columns, name: str, where: dict[str, Any]) -> Any:
    column = getattr(cols, name)
    if column in row and row[column] is not None:
        return row[column]
    if column in row:  # a JSON null, or a CSV row with fewer fields than its header
        raise InputError(f"missing column {column!r} (this row has no value for it)", **where)
    raise InputError(
        f"missing column {column!r}; this row has keys: {_names(row)}; "
        f"to read another key, pass {_PARAMS[name]}=NAME",
        **where,
        params=_PARAMS[name],
    )


def _required(row: Mapping[str, Any], cols: Columns, name: str, where: dict[str, Any]) -> str:
    return _string(_present(row, cols, name, where), getattr(cols, name), where)


def _answer(value: str, column: str, where: dict[str, Any], *, allow_empty: bool) -> str:
    """An answer, refused when empty or blank unless ``allow_empty``.

    An empty answer is most often a lost column or a failed generation; judged, it
    loses every comparison and drags a mean down without a word.
    """
    if not allow_empty and not value.strip():
        raise InputError(
            f"{column!r} is empty; fill it in, or pass allow_empty=True "
            "to judge empty answers as they are",
            **where,
            params="allow_empty",
        )
    return value


def _question(
    row: Mapping[str, Any], cols: Columns, where: dict[str, Any], *, tabular: bool
) -> str | Conversation:
    value, column = _present(row, cols, "question", where), cols.question
    if tabular and isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = loads(value)
        except BadJSON as exc:
            # Prompts like "[INST] ..." start with '[' too: only a cell that names a role
            # was meant as a conversation.
            if '"role"' in value:
                raise InputError(
                    f"{column!r} looks like a JSON list of messages but is not valid JSON ({exc})",
                    **where,
                ) from None
    if isinstance(value, list):
        return _conversation(value, column, where)
    if not isinstance(value, str):
        raise InputError(
            f"{column!r} must be a string or a list of messages, "
            f"got {type(value).__name__} {_shown(value)}",
            **where,
        )
    if not value.strip():
        raise InputError(f"{column!r} is empty", **where)
    return value


def _conversation(value: list[Any], column: str, where: dict[str, Any]) -> Conversation:
    if not value:
        raise InputError(f"{column!r} is an empty list of messages", **where)
    messages: list[Message] = []
    for index, message in enumerate(value):
        at = f"{column!r}[{index}]"
        if not isinstance(message, dict):
            raise InputError(
                f"{at} must be an object with 'role' and 'content', "
                f"got {type(message).__name__} {_shown(message)}",
                **where,
            )
        role, content = message.get("role"), message.get("content")
        if not isinstance(role, str) or role not in ROLES:
            raise InputError(
                f"{at} 'role' must be one of {_names(ROLES)}; got {_shown(role)}", **where
            )
        if not isinstance(content, str):
            raise InputError(
                f"{at} 'content' must be a string, got {type(content).__name__} {_shown(content)}",
                **where,
            )
        messages.append((role, content))
    last = len(messages) - 1
    if messages[last][0] != "user":
        raise InputError(
            f"{column!r}[{last}] is from {messages[last][0]!r}, but a conversation must end "
            "with a 'user' message, which the answers continue",
            **where,
        )
    if not messages[last][1].strip():
        raise InputError(f"{column!r}[{last}] 'content' is empty", **where)
    return tuple(messages)


def _item(
    row: Mapping[str, Any],
    cols: Columns,
    where: dict[str, Any],
    *,
    tabular: bool,
    allow_empty: bool = False,
) -> Item:
    question = _question(row, cols, where, tabular=tabular)
    ans1, ans2 = (
        _answer(_required(row, cols, n, where), getattr(cols, n), where, allow_empty=allow_empty)
        for n in ("answer_1", "answer_2")
    )
    raw_id = row.get(cols.id)
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int | None):
        raise InputError(f"{cols.id!r} must be a string or integer, got {_shown(raw_id)}", **where)
    human_raw = row.get(cols.human)
    human = None
    if human_raw not in (None, ""):
        if isinstance(human_raw, str | int) and not isinstance(human_raw, bool):
            human = _HUMAN.get(str(human_raw).strip().lower())
        if human is None:
            raise InputError(
                f"{cols.human!r} must be 1, 2 or tie, got {_shown(human_raw)}", **where
            )
    score_raw = row.get(cols.human_score)
    human_score = None
    if score_raw not in (None, ""):
        try:
            human_score = float(score_raw)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int past 1e308
            raise InputError(
                f"{cols.human_score!r} must be a number, got {_shown(score_raw)}", **where
            ) from None
        if human_score != human_score or human_score in (float("inf"), float("-inf")):
            raise InputError(
                f"{cols.human_score!r} must be finite, got {_shown(score_raw)}", **where
            )
    optional = {
        name: _optional(row, getattr(cols, name), where)
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


FileKind = tuple[Callable[[Container[str]], bool], str]
"""How a row (its keys) or a table's header of the other kind looks, and the hint
line for a file of them."""


def _pairs(keys: Container[str]) -> bool:
    return "answer_1" in keys and "answer_2" in keys


def _single(keys: Container[str]) -> bool:
    return "answer" in keys and "answer_1" not in keys and "answer_2" not in keys


PAIRS: FileKind = (
    _pairs,
    "hint: each row holds two answers (answer_1, answer_2): a file of pairs, which "
    "`fairjudge compare` (or jury, calibrate; fairjudge.compare in Python) reads",
)
"""Where single answers are read: a file of pairs is the other kind."""

SINGLE_ANSWERS: FileKind = (
    _single,
    "hint: each row holds one answer (an 'answer' column): a file of single answers, "
    "which `fairjudge score` (or score-jury; fairjudge.score in Python) reads",
)
"""Where pairs are read: a file of single answers is the other kind."""


def of_other_kind(failed: Sequence[tuple[bool, InputError]], parsed: int) -> bool:
    """Whether the file is of the other kind, so the hint is true of it.

    No row parsed, and each failed the same way and looks like the other kind
    (``failed``: each failed row's look and error).
    """
    if parsed or not failed or not all(looks for looks, _ in failed):
        return False
    return len({_bare(e).split(";")[0] for _, e in failed}) == 1  # one failure, row after row


def hinted(error: InputError, kind: FileKind) -> InputError:
    """``error`` with ``kind``'s hint line under it."""
    return InputError(f"{_bare(error)}\n{kind[1]}", path=error.path, line=error.line,
                      params=error.params)  # fmt: skip


def header_hinted(error: InputError, header: Sequence[str], kind: FileKind) -> InputError:
    """``error`` (a column a table's header lacks), hinted when the header is ``kind``'s.

    ``kind``'s hint line goes under it when the CSV or Parquet header holds the other
    kind's columns. A table fails on its header before any row is read, so the header
    is what tells its kind, where a JSON file's rows are looked at one by one
    (:func:`of_other_kind`).
    """
    return hinted(error, kind) if kind[0](header) else error


def load_items(
    path: str | Path,
    *,
    columns: Columns | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
) -> LoadedItems[Item]:
    """Read and validate a comparison file.

    The format follows the extension: ``.jsonl``/``.ndjson`` (one object per line),
    ``.json`` (the same, or one array of objects), ``.csv``, ``.parquet``. Required
    columns are ``question`` (a string, or a list of ``{"role", "content"}`` messages
    ending with a ``user`` turn), ``answer_1`` and ``answer_2`` (renamed with
    ``columns``); ``id``, ``reference``, ``category``, ``human`` (``1``/``2``/``tie``),
    ``model_1`` and ``model_2`` are optional. Items without an id get their line
    number as id (for a CSV record spanning lines, the line it starts on). The path
    ``-`` reads standard input: JSON when it starts with ``{`` or ``[``, CSV otherwise.
    An empty or blank answer is an invalid row unless ``allow_empty``.

    Raises:
        InputError: The file is missing, a device, empty, not UTF-8, has a line over
            64 MiB, lacks a required column, lacks an optional one ``columns``
            renames (its default name may be absent), or a row is invalid (unless
            ``skip_invalid``; then only when every row is); the message names the
            file (``<stdin>`` for standard input) and line.
        MissingExtraError: A Parquet file without ``pyarrow`` installed.
    """
    return read_pairs(path, columns=columns, skip_invalid=skip_invalid, allow_empty=allow_empty)


def read_pairs(
    path: str | Path,
    *,
    columns: Columns | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
    may_lack: Container[str] = (),
) -> LoadedItems[Item]:
    """Read pairs as :func:`load_items` does, letting the fields in ``may_lack`` be absent.

    ``may_lack``: the optional fields whose renamed column may be absent (a label sheet
    writes its ``human`` column); the other arguments are :func:`load_items`'.
    """
    cols = columns or Columns()
    source = open_source(Path(path))
    name = source.name
    _check_header(source, cols)
    items: list[Item] = []
    skipped: list[InputError] = []
    seen: dict[tuple[str, str | None], int] = {}

    keys: dict[str, None] = {}  # JSON rows' keys, in order (a table's are its header)

    def parse(row: Mapping[str, Any], where: dict[str, Any], lineno: int) -> Item:
        if source.header is None:
            keys.update(dict.fromkeys(str(k) for k in row))
        item = _item(row, cols, where, tabular=source.tabular, allow_empty=allow_empty)
        return numbered(item, lineno, seen, where)

    for _, item in parsed_rows(source, parse, skip_invalid, skipped, SINGLE_ANSWERS):
        items.append(item)
    if not items:
        raise _nothing_valid(name, skipped)
    named = [(name, getattr(cols, name)) for name in _OPTIONAL if name not in may_lack]
    given = [(name, column) for name, column in named if column != getattr(_DEFAULT, name)]
    names = source.header if source.header is not None else list(keys)
    check_renamed(given, names, path=source.name)
    return LoadedItems(items=items, skipped=skipped, path=name)


def check_renamed(
    named: Iterable[tuple[str, str]], names: Sequence[str], *, of: str = "file",
    path: str | None = None,
) -> None:  # fmt: skip
    """Refuse a column named for a field (``named``: each field and its column) ``names`` lacks.

    The one check for every input a caller renames: a file's optional columns (the
    default names may be absent, so a reader passes only the names given) and in-memory
    rows' keys. A name given is the caller's statement that the input holds it, and
    ignoring it would silently drop what it holds (labels read as absent, ids as line
    numbers).

    Args:
        named: Each field and the column named for it (``columns.human`` -> ``'label'``).
        names: The input's columns (a table's header, a JSON file's or the rows' keys).
        of: What the names are of: ``"file"``, ``"rows"`` or ``"DataFrame"``.
        path: The file, named before the message.

    Raises:
        InputError: A column named is not among ``names``; its parameter is
            ``columns.<field>``.
    """
    for name, column in named:
        if column in names:
            continue
        listed = "their keys" if of == "rows" else "its columns"
        raise InputError(
            f"columns.{name} {column!r} names no column of the {of}; {listed}: "
            f"{_names(names)}; pass columns.{name} with the one holding "
            f"{_HOLDS.get(name, f'the {name!r} values')}",
            path=path,
            params=f"columns.{name}",
        )


def parsed_rows(
    source: Source,
    parse: Callable[[Mapping[str, Any], dict[str, Any], int], T],
    skip_invalid: bool,
    skipped: list[InputError],
    kind: FileKind | None = None,
) -> Iterator[tuple[int, T]]:
    """Each row of ``source`` that ``parse`` accepts, with its line.

    A row that fails to parse (an :class:`InputError`) is added to ``skipped`` and
    passed over with ``skip_invalid``; without it, the rest is still read and the load
    stops at the end with the first few problems, so one run shows what to fix.
    """
    bad: list[InputError] = []
    failed: list[tuple[bool, InputError]] = []  # each row's look (of ``kind``?), its error
    n_parsed = 0
    for lineno, row in source.rows:
        where: dict[str, Any] = {"path": source.name, "line": lineno}
        try:
            if isinstance(row, InputError):
                raise row
            parsed = parse(row, where, lineno)
        except InputError as exc:
            (skipped if skip_invalid else bad).append(exc)
            looks = kind is not None and not isinstance(row, InputError) and kind[0](row)
            failed.append((looks, exc))
            continue
        n_parsed += 1
        if not bad:
            yield lineno, parsed
    other = kind if kind is not None and of_other_kind(failed, n_parsed) else None
    if bad:
        error = _invalid_rows(bad)
        raise hinted(error, other) if other is not None else error
    if other is not None:  # every row set aside (skip_invalid): say what the file is
        raise hinted(_nothing_valid(source.name, skipped), other)


def numbered(
    item: _Keyed, lineno: int, seen: dict[tuple[str, str | None], int], where: dict[str, Any],
    system: str | None = None,
) -> _Keyed:  # fmt: skip
    """``item``, its id its line number when it has none; refused if its id was ``seen``.

    An id repeats only within one ``system`` (pointwise rows of several systems share
    their question's id).
    """
    if item.id is None:
        item = replace(item, id=str(lineno))
    key = (str(item.id), system)
    if key in seen:
        of = f" of system {system!r}" if system is not None else ""
        raise InputError(
            f"duplicate id {_shown(item.id)}{of} (first seen on line {seen[key]})", **where
        )
    seen[key] = lineno
    return item
