"""Which page draws which ``--out`` file, for ``fairjudge report``.

The page kit's kinds are listed in :data:`PAGES`, each with the loader that reads
its file; a kind no page draws is refused, naming what to do instead.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import cast

from fairjudge._errors import InputError
from fairjudge.io import OutHeader, read_header, read_records
from fairjudge.report._page import Page

__all__ = ["PAGES", "PageLoader", "out_file_header", "out_file_page"]

PageLoader = Callable[..., Page]
"""``(path, *, seed, level, n_resamples) -> Page``: a page from a ``--out`` file."""

PAGES: dict[str, str] = {
    "score": "fairjudge.report._page_score:score_page_from_file",
    "audit": "fairjudge.report._page_audit:audit_page_from_file",
    "jury": "fairjudge.report._page_panel:jury_page_from_file",
    "score-jury": "fairjudge.report._page_panel:score_jury_page_from_file",
}
"""Each kind the page kit draws, and the function that loads its ``--out`` file."""

_ELSEWHERE = {
    "rank": "its pairs pool many models; `fairjudge rank FILE html=PAGE` ranks it again "
    "and writes the leaderboard's page",
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


def _loader(kind: str, path: Path) -> PageLoader:
    target = PAGES.get(kind)
    if target is None:
        how = _ELSEWHERE.get(kind, "no page draws this kind of file")
        raise InputError(f"a {kind} file (written by `fairjudge {kind} out`): {how}",
                         path=str(path), params=_PARAMS)  # fmt: skip
    module_name, _, name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        loader = getattr(module, name)
    except (ModuleNotFoundError, AttributeError):
        raise InputError(
            f"a {kind} file: this fairjudge has no page for {kind} runs yet ({target} is "
            f"missing); the `fairjudge {kind}` command's tables and JSON show the run",
            path=str(path),
        ) from None
    return cast(PageLoader, loader)


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
    return _loader(kind, path)(path, seed=seed, level=level, n_resamples=n_resamples)
