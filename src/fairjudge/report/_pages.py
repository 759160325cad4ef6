"""Which page draws which ``--out`` file, for ``fairjudge report``.

Each page's module says which kinds it draws (its ``OUT_FILE_PAGES``: a kind and the
function that loads its file); :data:`PAGES` gathers them, one per kind of ``--out``
file (:data:`fairjudge.io.OutKind`), so every file a command writes can be drawn.
"""

from __future__ import annotations

from pathlib import Path

from fairjudge._errors import InputError
from fairjudge.io import OutHeader, read_header, read_records
from fairjudge.report._page import Page, PageLoader
from fairjudge.report._page_audit import OUT_FILE_PAGES as _AUDIT
from fairjudge.report._page_compare import OUT_FILE_PAGES as _COMPARE
from fairjudge.report._page_panel import OUT_FILE_PAGES as _PANELS
from fairjudge.report._page_rank import OUT_FILE_PAGES as _RANK
from fairjudge.report._page_score import OUT_FILE_PAGES as _SCORE
from fairjudge.report._page_via_scores import OUT_FILE_PAGES as _VIA_SCORES

__all__ = ["PAGES", "out_file_header", "out_file_page"]

PAGES: dict[str, PageLoader] = {
    **_COMPARE, **_VIA_SCORES, **_RANK, **_SCORE, **_AUDIT, **_PANELS,
}  # fmt: skip
"""Each kind a page draws, and the function that loads its ``--out`` file.

One line per page module: a module joins by being imported here, and says itself
which kinds it draws.
"""

_PARAMS = ("out", "html")


def out_file_header(path: Path) -> OutHeader | None:
    """The header record of a ``--out`` file; ``None`` for a file written before headers.

    Raises:
        InputError: The file cannot be read, or its first record is a malformed header.
    """
    for number, record in read_records(path):
        return read_header(record, path=str(path), line=number)
    return None


def _headerless_kind(path: Path) -> str:
    """A file written before headers: ``rank`` when it holds battles, else ``compare``."""
    for _, record in read_records(path):
        battle = isinstance(record, dict) and {"model_a", "winner"} <= record.keys()
        return "rank" if battle else "compare"
    return "compare"


def out_file_page(
    path: Path,
    kind: str | None,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
) -> Page:
    """The page of a ``--out`` file of ``kind``, read and summarised again.

    Args:
        path: The ``--out`` file.
        kind: Its header's kind (one of :data:`PAGES`); ``None`` for a file written
            before headers, drawn as the ``rank`` file or ``compare`` file its
            records are.
        seed: The bootstrap seed (the commands' default is 0).
        level: The confidence level.
        n_resamples: Bootstrap resamples.

    Raises:
        InputError: No page draws ``kind``, or the file is not a readable ``--out``
            file of that kind.
    """
    kind = kind if kind is not None else _headerless_kind(path)
    loader = PAGES.get(kind)
    if loader is None:
        names = [f"`{k} out`" for k in PAGES]
        reads = f"{', '.join(names[:-1])} and {names[-1]}"
        raise InputError(f"a {kind} file (written by `fairjudge {kind} out`): no page draws "
                         f"this kind of file; `fairjudge report` reads {reads} files",
                         path=str(path), params=_PARAMS)  # fmt: skip
    return loader(path, seed=seed, level=level, n_resamples=n_resamples)
