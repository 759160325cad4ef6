r"""The records of a CSV text, each with the line it starts on, or the error it is.

:mod:`fairjudge.io._rows` reads the file and its header; this module splits the
records, as a spreadsheet does: lines also break at a lone ``\r``, a record spanning
lines is named by the line it starts on, and a quote left open, which would swallow
the rest of the file into one field, is reported at the line where it opened.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator

from fairjudge._errors import InputError

__all__ = ["csv_records"]

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
