"""Labelling sheets: a user's file whose human columns a person fills in, one label at a time.

A comparison file's ``human`` column (:class:`LabelSheet`) or a pointwise file's
``human_<dimension>`` columns (:class:`ScoreSheet`). Every label is written into the
file the moment it is given (an atomic, durable rewrite), a pair's always about model
1 and model 2 whichever side was shown, in a seeded order recorded beside the file, so
``calibrate`` reads it directly and a crash loses nothing. Answers to score are shown
blind (no ``system`` column).
"""

from __future__ import annotations

import csv
import io as _io
import os
import random
import secrets
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from fairjudge._call import Conversation
from fairjudge._errors import ConfigError, InputError
from fairjudge._items import Item, ScoreItem
from fairjudge._types import Outcome
from fairjudge.io._out_file import strict_dumps
from fairjudge.io._pairs import Columns, read_pairs
from fairjudge.io._rows import open_source
from fairjudge.io._scores import HUMAN_PREFIX, load_score_items
from fairjudge.io._scores import _human_columns as human_columns
from fairjudge.io._scores import _unknown_human as unknown_human
from fairjudge.io._untrusted import loads, read_text

__all__ = [
    "LABEL_SUFFIXES",
    "LabelItem",
    "LabelSheet",
    "ScoreLabelItem",
    "ScoreSheet",
    "SheetChangedError",
    "SheetRows",
    "Side",
    "is_pointwise_file",
    "order_path",
    "read_sheet_rows",
    "shown_order",
    "shown_swapped",
    "write_rows_durably",
    "write_sheet",
]

LABEL_SUFFIXES = (".jsonl", ".ndjson", ".csv")
"""The formats a sheet is written back in: a row's other fields are kept as they were."""
ORDER_SCHEMA = 1
Side = Literal["left", "right", "tie"]
"""A label as the labeller gave it: about the answer shown on the left or the right."""
_STORED = {Outcome.ONE: "1", Outcome.TWO: "2", Outcome.TIE: "tie"}


@dataclass(frozen=True, slots=True)
class LabelItem:
    """One pair as the page shows it.

    Attributes:
        key: The item's id (its line number when the file has no ``id``).
        line: The line (JSONL) or row (CSV, the header being line 1) it came from.
        question: The prompt, or the conversation the answers continue.
        left: The answer shown on the left.
        right: The answer shown on the right.
        swapped: Whether ``left`` is model 2's answer.
    """

    key: str
    line: int
    question: str | Conversation
    left: str
    right: str
    swapped: bool


def shown_swapped(seed: int, key: str) -> bool:
    """Whether item ``key`` shows model 2's answer on the left, under ``seed``.

    One coin per item, seeded by the seed and the id (not by position), so the order
    survives a resumed session and a reordered file alike.
    """
    return random.Random(f"fairjudge-label/{seed}/{key}").random() < 0.5


def order_path(path: Path) -> Path:
    """Where the seed and the order shown are recorded: ``FILE.label.json``."""
    return path.with_name(path.name + ".label.json")


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a platform without directory handles: the rename is still atomic
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durably(path: Path, text: str) -> None:
    """``text`` into ``path`` through a fsync-ed temporary file and ``os.replace``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_rows_durably(
    path: Path, rows: Iterable[Mapping[str, Any]], header: Sequence[str] | None = None
) -> None:
    """Write ``rows`` as JSON Lines, or as CSV under ``header`` when the path ends ``.csv``.

    A CSV cell that is not a string (a conversation, a number) is written as JSON;
    ``None`` as an empty cell.
    """
    if path.suffix.lower() == ".csv":
        buffer = _io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(header or []), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(v) for k, v in row.items()})
        text = buffer.getvalue()
    else:
        text = "".join(strict_dumps(dict(row), ensure_ascii=False) + "\n" for row in rows)
    _write_durably(path, text)


class SheetChangedError(OSError):
    """The file being labelled changed on disk since the sheet read it.

    A sheet writes the whole file from the rows it read, so writing now would erase
    what changed: another ``fairjudge label`` session's labels, or an editor's rows.
    """


FileStamp = tuple[int, int, int] | None


def file_stamp(path: Path) -> FileStamp:
    """What tells a file apart from an edited or replaced one: inode, size, mtime."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def write_sheet(
    path: Path, rows: Iterable[Mapping[str, Any]], header: Sequence[str] | None, read: FileStamp
) -> FileStamp:
    """:func:`write_rows_durably`, unless the file is no longer the one read (stamp ``read``).

    Returns:
        The stamp of the file written, for the next write's check.

    Raises:
        SheetChangedError: The file changed since; nothing is written.
    """
    if file_stamp(path) != read:
        raise SheetChangedError(
            f"{path.name} changed on disk since this page read it (another `fairjudge "
            "label` on the same file, or an editor), and writing it would erase that. "
            f"Stop this page and run `fairjudge label {path.name}` again: it continues "
            "from the file"
        )
    write_rows_durably(path, rows, header)
    return file_stamp(path)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else strict_dumps(value, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class SheetRows:
    """A JSONL or CSV file's rows as read, their lines, and the CSV header (``None``: JSONL)."""

    rows: list[dict[str, Any]]
    lines: list[int]
    header: list[str] | None


def read_sheet_rows(path: Path) -> SheetRows:
    """Every row of a JSONL or CSV file as read, with its line, and the CSV header.

    Raises:
        InputError: Standard input, a missing file, another format (naming the file
            and what to convert it to), or a row that cannot be read (naming the file
            and line).
    """
    if str(path) == "-":
        raise InputError(
            "standard input ('-') is not supported: a label sheet is a file, read and "
            "written back in place; give its path",
            path="<stdin>",
        )
    if not path.exists() and not path.is_symlink():
        open_source(path, pipes=False)  # refuses it: no such file (its words for every reader)
    if path.suffix.lower() not in LABEL_SUFFIXES:
        raise InputError(
            f"labels are written back into JSON Lines (.jsonl) or CSV files, not "
            f"{path.suffix or 'a file without an extension'}; convert the file to .jsonl",
            path=str(path),
        )
    source = open_source(path, pipes=False)
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    for lineno, row in source.rows:
        if isinstance(row, InputError):
            raise row
        if not isinstance(row, Mapping):  # pragma: no cover - the reader yields objects
            raise InputError("not a JSON object", path=str(path), line=lineno)
        rows.append(dict(row))
        lines.append(lineno)
    return SheetRows(rows, lines, list(source.header) if source.header is not None else None)


class _Sheet:
    """What a comparison sheet and a score sheet share: a file open for a human.

    The rows as read, written back whole (:func:`write_sheet`) before each change
    returns, and the seed of the order shown, recorded beside the file.
    """

    def __init__(
        self, path: Path, rows: list[dict[str, Any]], header: list[str] | None, seed: int
    ) -> None:
        self.path = path
        self.seed = seed
        self._rows = rows
        self._header = header
        self._stamp = file_stamp(path)

    def _write_cell(self, index: int, column: str, value: Any) -> None:
        """Set row ``index``'s ``column`` (``None``: clear it) and write the file.

        A cleared CSV cell stays, empty, so the header keeps its columns; a cleared
        JSONL key goes.
        """
        row = self._rows[index]
        if value is None:
            if self._header is not None:
                row[column] = ""
            else:
                row.pop(column, None)
        else:
            row[column] = value
        self._stamp = write_sheet(self.path, self._rows, self._header, self._stamp)

    def _write_order(self, shown: Mapping[str, Any]) -> None:
        """Record the seed, and ``shown`` (the order as shown), beside the file."""
        record = {"schema_version": ORDER_SCHEMA, "file": self.path.name, "seed": self.seed}
        record.update(shown)
        _write_durably(order_path(self.path), strict_dumps(record, indent=1) + "\n")


class LabelSheet(_Sheet):
    """A comparison file open for labelling: its items as shown, and their labels.

    Build one with :meth:`open`. Every :meth:`set_shown` writes the file before it
    returns.
    """

    def __init__(
        self, path: Path, items: list[LabelItem], labels: list[Outcome | None],
        rows: list[dict[str, Any]], header: list[str] | None, seed: int, human: str,
    ) -> None:  # fmt: skip
        super().__init__(path, rows, header, seed)
        self.items = items
        self.labels = labels
        self._human = human

    @staticmethod
    def read_items(path: Path, *, columns: Columns | None = None) -> list[Item]:
        """The file's pairs, checked as a sheet: every row is shown and written back.

        No row problem offers ``skip_invalid`` or ``allow_empty``: a sheet sets no row
        aside and takes no empty answer. ``fairjudge label`` and ``label-merge`` read
        pairs here.

        Raises:
            InputError: As :func:`~fairjudge.io.load_items`, naming the file and line.
        """
        try:
            return read_pairs(path, columns=columns, may_lack=("human",)).items  # written here
        except InputError as exc:
            raise _every_row_is_shown(exc) from None

    @classmethod
    def open(
        cls, path: str | Path, *, seed: int | None = None, columns: Columns | None = None
    ) -> LabelSheet:
        """Read and validate ``path``; record (or read back) the seed of its order.

        Args:
            path: A JSONL or CSV comparison file (``question``, ``answer_1``,
                ``answer_2``; ``id`` and ``human`` optional).
            seed: The seed of the order shown. ``None``: the recorded one, or a fresh
                one recorded now.
            columns: Other column names, as for :func:`~fairjudge.io.load_items`.

        Raises:
            InputError: The file cannot be read, is of another format, or has an
                invalid row (naming the file and line); its order file is unreadable.
            ConfigError: ``seed`` differs from the seed this file was labelled with,
                or ``columns.human`` names another field of the file (the labels
                would overwrite it).
        """
        path = Path(path)
        cols = columns or Columns()
        _refuse_own_column(cols)
        read = read_sheet_rows(path)
        loaded = LabelSheet.read_items(path, columns=cols)
        if len(loaded) != len(read.rows):  # pragma: no cover - the same reader twice
            raise InputError("the file changed while it was read", path=str(path))
        seed = _seed(path, seed)
        header = read.header
        items: list[LabelItem] = []
        for item, row_line in zip(loaded, read.lines, strict=True):
            key = str(item.id)
            swap = shown_swapped(seed, key)
            left, right = (item.answer_2, item.answer_1) if swap else (item.answer_1, item.answer_2)
            items.append(LabelItem(key, row_line, item.question, left, right, swap))
        if header is not None and cols.human not in header:
            header = [*header, cols.human]
        labels = [i.human for i in loaded]
        sheet = cls(path, items, labels, read.rows, header, seed, cols.human)
        sheet._record_order()
        return sheet

    def shown(self, index: int) -> Side | None:
        """Item ``index``'s label as the page shows it (left/right), or ``None``."""
        label = self.labels[index]
        if label is None or label is Outcome.TIE:
            return None if label is None else "tie"
        is_one = label is Outcome.ONE
        return "right" if is_one == self.items[index].swapped else "left"

    def set_shown(self, index: int, side: Side | None) -> Outcome | None:
        """Store the label ``side`` (or clear it with ``None``) for item ``index``.

        The side is mapped back to model 1 / model 2 before it is written, and the
        file is written (durably) before this returns.

        Returns:
            The label stored, in the file's orientation.

        Raises:
            IndexError: No such item.
        """
        item = self.items[index]
        outcome: Outcome | None
        if side is None or side == "tie":
            outcome = None if side is None else Outcome.TIE
        else:
            outcome = Outcome.ONE if (side == "left") != item.swapped else Outcome.TWO
        self._write_cell(index, self._human, None if outcome is None else _STORED[outcome])
        self.labels[index] = outcome
        return outcome

    @property
    def done(self) -> int:
        """How many items hold a label."""
        return sum(label is not None for label in self.labels)

    def _record_order(self) -> None:
        self._write_order({"shown_swapped": {item.key: item.swapped for item in self.items}})


_NO_SUCH_OPTION = {
    "skip_invalid": ", or pass skip_invalid=True to set them aside",
    "allow_empty": ", or pass allow_empty=True to judge empty answers as they are",
}
"""The loader's remedies a sheet has no option for, by the parameter each names."""


def _every_row_is_shown(exc: InputError) -> InputError:
    """``exc`` without the loader's ``skip_invalid`` and ``allow_empty`` remedies.

    Every row of a file to label is shown and written back, so a bad row cannot be set
    aside, and neither ``label`` nor ``label-merge`` takes empty answers; the only fix
    is the file.
    """
    offered = [p for p in _NO_SUCH_OPTION if p in exc.params]
    if not offered:
        return exc
    text = str(exc)
    for param in offered:
        text = text.replace(_NO_SUCH_OPTION[param], "")
    where = f"{exc.path}:{exc.line}: " if exc.line is not None else f"{exc.path}: "
    if exc.path is not None:
        text = text.removeprefix(where)
    params = tuple(p for p in exc.params if p not in offered)
    return InputError(text, path=exc.path, line=exc.line, params=params)


def _seed(path: Path, seed: int | None) -> int:
    """The seed recorded beside ``path``, checked against ``seed``; or a new one."""
    where = order_path(path)
    if not where.exists():
        return secrets.randbelow(2**31) if seed is None else seed
    try:
        recorded = loads(read_text(where))["seed"]
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(
            f"cannot read the recorded order ({exc}); delete it to start a new order",
            path=str(where),
        ) from None
    if not isinstance(recorded, int) or isinstance(recorded, bool):
        raise InputError(f"'seed' must be an integer, got {recorded!r}", path=str(where))
    if seed is not None and seed != recorded:
        raise ConfigError(
            f"seed={seed} differs from the seed {recorded} this file was labelled with "
            f"(recorded in {where.name}); leave it out to continue, or delete that file "
            "to draw a new order",
            params=("seed",),
        )
    return recorded


def _refuse_own_column(columns: Columns) -> None:
    """Refuse a label column that is one of the file's fields: the labels would replace it."""
    human = columns.human
    taken = {getattr(Columns(), name) for name in Columns.__dataclass_fields__} - {"human"}
    if human in taken:
        raise ConfigError(
            f"columns.human {human} is the file's {human} column, which the labels would "
            "overwrite; give the labels a column of their own (default: human)",
            params="columns.human",
        )


@dataclass(frozen=True, slots=True)
class ScoreLabelItem:
    """One answer to score, as the page shows it (no system name).

    Attributes:
        key: The item's id, with its system when the file names systems.
        line: The line (JSONL) or row (CSV) it came from.
        question: The prompt, or the conversation the answer continues.
        answer: The answer to score.
    """

    key: str
    line: int
    question: str | Conversation
    answer: str


def shown_order(seed: int, keys: Sequence[str]) -> list[int]:
    """The order the items are shown in: one seeded number per item key, sorted."""
    draws = [random.Random(f"fairjudge-label/{seed}/{key}").random() for key in keys]
    return sorted(range(len(keys)), key=lambda i: (draws[i], i))


def is_pointwise_file(path: Path, pair: tuple[str, str] = ("answer_1", "answer_2")) -> bool:
    """Whether a file's columns are pointwise: ``answer``, and neither column of ``pair``.

    ``pair`` names the two answers' columns of pairwise input (``answer_1``,
    ``answer_2`` unless the caller renames them). A file that cannot be read is not
    pointwise: its loader names the problem.
    """
    try:
        source = open_source(path, pipes=False)
        names = set(source.header or [])
        if source.header is None:
            first = next(iter(source.rows), None)
            if first is not None and isinstance(first[1], Mapping):
                names = set(first[1])
    except InputError:
        return False  # the loader names the problem
    return "answer" in names and not set(pair) & names


class ScoreSheet(_Sheet):
    """A pointwise file open for scoring against a rubric's dimensions.

    Build one with :meth:`open`; every :meth:`set_score` writes the file before it
    returns. ``order[k]`` is the item shown ``k``-th.
    """

    def __init__(
        self, path: Path, items: list[ScoreLabelItem], scores: list[dict[str, float]],
        rows: list[dict[str, Any]], header: list[str] | None, seed: int,
        dimensions: tuple[str, ...], scale: tuple[int, int],
    ) -> None:  # fmt: skip
        super().__init__(path, rows, header, seed)
        self.items = items
        self.scores = scores
        self.dimensions = dimensions
        self.scale = scale
        self.order = shown_order(seed, [item.key for item in items])

    @staticmethod
    def read_items(
        path: Path, *, dimensions: Sequence[str], scale: tuple[int, int],
        rows: SheetRows | None = None,
    ) -> list[ScoreItem]:  # fmt: skip
        """The file's answers, checked as a sheet: every row is shown and written back.

        A ``human_`` column of another rubric is said once, at the first row holding
        it (a file's column, not forty rows' problem), and no row problem offers
        ``skip_invalid``: a sheet sets no row aside. ``fairjudge label`` and
        ``label-merge`` read score sheets here. ``rows``: what
        :func:`read_sheet_rows` read already.

        Raises:
            InputError: As :func:`~fairjudge.io.load_score_items`, naming the file and line.
        """
        read = read_sheet_rows(path) if rows is None else rows
        names = dict.fromkeys(str(key) for row in read.rows for key in row)
        unknown = human_columns(list(names), dimensions)
        if unknown:
            held = (n for row, n in zip(read.rows, read.lines, strict=True) if unknown[0] in row)
            line = next(held)
            raise InputError(unknown_human(unknown, dimensions), path=str(path), line=line)
        try:
            return load_score_items(path, dimensions=dimensions, scale=scale).items
        except InputError as exc:
            raise _every_row_is_shown(exc) from None

    @classmethod
    def open(
        cls, path: str | Path, *, dimensions: Sequence[str], scale: tuple[int, int],
        seed: int | None = None,
    ) -> ScoreSheet:  # fmt: skip
        """Read and validate ``path`` for a rubric; record (or read back) the seed.

        Args:
            path: A JSONL or CSV file: ``question``, ``answer``; ``id``, ``system`` and
                ``human_<dimension>`` optional.
            dimensions: The rubric's dimensions, in the order the page asks them.
            scale: The rubric's lowest and highest score.
            seed: The seed of the order shown; ``None``: the recorded one, or a new one.

        Raises:
            InputError: The file cannot be read, is of another format, has an invalid
                row or a ``human_`` column of another rubric (naming the file and line).
            ConfigError: ``seed`` differs from the recorded one.
        """
        path = Path(path)
        read = read_sheet_rows(path)
        loaded = ScoreSheet.read_items(path, dimensions=dimensions, scale=scale, rows=read)
        if len(loaded) != len(read.rows):  # pragma: no cover - the same reader twice
            raise InputError("the file changed while it was read", path=str(path))
        items = [
            ScoreLabelItem(_key(item.id, item.system), line, item.question, item.answer)
            for item, line in zip(loaded, read.lines, strict=True)
        ]
        header = read.header
        if header is not None:
            header = header + [
                HUMAN_PREFIX + d for d in dimensions if HUMAN_PREFIX + d not in header
            ]
        scores = [dict(item.human) for item in loaded]
        sheet = cls(path, items, scores, read.rows, header, _seed(path, seed),
                    tuple(dimensions), scale)  # fmt: skip
        sheet._record_order()
        return sheet

    def set_score(self, index: int, dimension: str, score: int | None) -> None:
        """Store ``score`` (or clear it with ``None``) for item ``index``'s ``dimension``.

        Raises:
            IndexError: No such item.
            ConfigError: A dimension the rubric lacks, or a score off its scale.
        """
        if dimension not in self.dimensions:
            raise ConfigError(f"dimension={dimension!r} is not one of {list(self.dimensions)}")
        low, high = self.scale
        if score is not None and not low <= score <= high:
            raise ConfigError(f"score={score} is off the rubric's scale {low}-{high}")
        self._write_cell(index, HUMAN_PREFIX + dimension, score)
        if score is None:
            self.scores[index].pop(dimension, None)
        else:
            self.scores[index][dimension] = float(score)

    def complete(self, index: int) -> bool:
        """Whether item ``index`` has a score on every dimension."""
        return all(d in self.scores[index] for d in self.dimensions)

    @property
    def done(self) -> int:
        """How many items are scored on every dimension."""
        return sum(self.complete(i) for i in range(len(self.items)))

    def _record_order(self) -> None:
        self._write_order({"shown_order": [self.items[i].key for i in self.order]})


def _key(item_id: str | None, system: str | None) -> str:
    return str(item_id) if system is None else f"{item_id}/{system}"
