"""A file of the other kind: one hint line naming what reads it.

A file of pairs given where single answers are read (``fairjudge score``), or a
file of single answers where pairs are read (``compare``), failed on every row with
a missing column and no word on why: the user had the right file for another
command. When every row fails the same way and each row has the other kind's
columns, the error gains a line naming the command that reads such a file. A file
with some good rows, or rows failing in different ways, is a broken file of this
kind, and gets no hint.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fairjudge._errors import InputError
from fairjudge.io._rows import bare

__all__ = ["PAIRS", "SINGLE_ANSWERS", "FileKind", "hinted", "of_other_kind"]

FileKind = tuple[Callable[[Mapping[str, Any]], bool], str]
"""How a row of the other kind looks, and the hint line for a file of them."""


def _pairs(row: Mapping[str, Any]) -> bool:
    return "answer_1" in row and "answer_2" in row


def _single(row: Mapping[str, Any]) -> bool:
    return "answer" in row and "answer_1" not in row and "answer_2" not in row


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
    return len({bare(e).split(";")[0] for _, e in failed}) == 1  # one failure, row after row


def hinted(error: InputError, kind: FileKind) -> InputError:
    """``error`` with ``kind``'s hint line under it."""
    return InputError(f"{bare(error)}\n{kind[1]}", path=error.path, line=error.line,
                      params=error.params)  # fmt: skip
