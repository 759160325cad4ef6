"""A scoring sheet: a pointwise file whose ``human_<dimension>`` columns a person fills in.

The pointwise counterpart of :mod:`fairjudge.io._labels`: each score is written into
the file as it is given, by the same durable rewrite, and answers are shown blind
(no ``system`` column) in a seeded, recorded order.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairjudge._call import Conversation
from fairjudge._errors import ConfigError, InputError
from fairjudge.io._labels import (
    _seed,
    _Sheet,
    read_sheet_rows,
)
from fairjudge.io._rows import open_source
from fairjudge.io._scores import HUMAN_PREFIX, load_score_items

__all__ = ["ScoreLabelItem", "ScoreSheet", "is_pointwise_file", "shown_order"]


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
        loaded = load_score_items(path, dimensions=dimensions, scale=scale).items
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
