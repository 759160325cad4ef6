"""Which page draws which ``--out`` file, for ``fairjudge report``.

Each page's module says which kinds it draws (its ``OUT_FILE_PAGES``: a kind and the
function that loads its file); :data:`PAGES` gathers them. A kind no page draws is
refused, naming what to do instead.
"""

from __future__ import annotations

from pathlib import Path

from fairjudge._errors import InputError
from fairjudge.io import OutHeader, read_header, read_records
from fairjudge.report._page import Page, PageLoader
from fairjudge.report._page_audit import OUT_FILE_PAGES as _AUDIT
from fairjudge.report._page_compare import OUT_FILE_PAGES as _COMPARE
from fairjudge.report._page_load import RANK_FILE
from fairjudge.report._page_panel import OUT_FILE_PAGES as _PANELS
from fairjudge.report._page_score import OUT_FILE_PAGES as _SCORE

__all__ = ["PAGES", "out_file_header", "out_file_page"]

PAGES: dict[str, PageLoader] = {**_COMPARE, **_SCORE, **_AUDIT, **_PANELS}
"""Each kind a page draws, and the function that loads its ``--out`` file.

One line per page module: a module joins by being imported here, and says itself
which kinds it draws.
"""

_ELSEWHERE = {
    "rank": RANK_FILE,
    "compare-via-scores": "no page draws a comparison via scores yet; the run's tables and "
    "JSON show it (`fairjudge compare`, as the header's command line has it)",
}
_PARAMS = ("out", "html")


def out_file_header(path: Path) -> OutHeader | None:
    """The header record of a ``--out`` file; ``None`` for a file written before headers.

    Raises:
        InputError: The file cannot be read, or its first record is a malformed header.
    """
    for number, record in read_records(path):
        return read_header(record, path=str(path), line=number)
    return None


def out_file_page(
    path: Path, kind: str, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> Page:
    """The page of a ``--out`` file of ``kind``, read and summarised again.

    Args:
        path: The ``--out`` file.
        kind: Its header's kind (one of :data:`PAGES`).
        seed: The bootstrap seed (the commands' default is 0).
        level: The confidence level.
        n_resamples: Bootstrap resamples.

    Raises:
        InputError: No page draws ``kind`` (the message names it and what to do), or
            the file is not a readable ``--out`` file of that kind.
    """
    loader = PAGES.get(kind)
    if loader is None:
        how = _ELSEWHERE.get(kind, "no page draws this kind of file")
        names = [f"`{k} out`" for k in PAGES]
        reads = f"{', '.join(names[:-1])} and {names[-1]}"
        raise InputError(f"a {kind} file (written by `fairjudge {kind} out`): {how}; "
                         f"`fairjudge report` reads {reads} files",
                         path=str(path), params=_PARAMS)  # fmt: skip
    return loader(path, seed=seed, level=level, n_resamples=n_resamples)
