"""Which page draws which ``--out`` file, for ``fairjudge report``.

Each page's module says which kinds it draws (its ``OUT_FILE_PAGES``: a kind and the
function that loads its file); :data:`PAGES` gathers them, one per kind of ``--out``
file (:data:`fairjudge.io.OutKind`), so every file a command writes can be drawn.

A page is summarised again with the run's own seed, level and resamples, as its
header records them (:func:`_bootstrap`), so a colleague's ``report`` of the file
shows the figures the run showed; one given here overrides it, and says so. The rows
the run set aside (``skip_invalid``), which its header records, go back on the page
as the run drew them (:func:`with_skipped_rows`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import fairjudge.report._page as kit
from fairjudge._errors import ConfigError, InputError
from fairjudge.io import OutHeader, read_header, read_records, shown
from fairjudge.report._page_audit import OUT_FILE_PAGES as _AUDIT
from fairjudge.report._page_calibrate import OUT_FILE_PAGES as _CALIBRATE
from fairjudge.report._page_calibrate import draws_pointwise, score_failures_section
from fairjudge.report._page_compare import OUT_FILE_PAGES as _COMPARE
from fairjudge.report._page_compare import failures_section
from fairjudge.report._page_load import DRAWS
from fairjudge.report._page_panel import OUT_FILE_PAGES as _PANELS
from fairjudge.report._page_rank import OUT_FILE_PAGES as _RANK
from fairjudge.report._page_score import OUT_FILE_PAGES as _SCORE
from fairjudge.report._page_score import score_calibrate_page_from_file
from fairjudge.report._page_via_scores import OUT_FILE_PAGES as _VIA_SCORES

__all__ = ["PAGES", "out_file_header", "out_file_page"]

PAGES: dict[str, kit.PageLoader] = {
    **_COMPARE, **_CALIBRATE, **_VIA_SCORES, **_RANK, **_SCORE, **_AUDIT, **_PANELS,
}  # fmt: skip
"""Each kind a page draws, and the function that loads its ``--out`` file.

One line per page module: a module joins by being imported here, and says itself
which kinds it draws.
"""

_ON_HUMAN_SCORES: kit.PageLoader = score_calibrate_page_from_file
"""The page of a ``calibrate`` file of scores against human scores (a rubric in its header)."""

_PARAMS = ("out", "html")

DEFAULTS: dict[str, int | float] = {"seed": 0, "level": 0.95, "n_resamples": 2000}
"""What a file whose header records no seed, level or resamples is summarised with:
the commands' defaults (a file written before headers recorded them)."""

_TELLS = frozenset({"calibrate"})
"""Kinds whose loader takes ``notify`` too: what of the run's page it cannot draw again."""

_AS_RECORDED = frozenset({"audit"})
"""Kinds whose file holds every interval the run computed: nothing is resampled."""

_FIT_ROUNDS = "n_resamples_fit"
"""A ``rank`` file's leaderboard bootstrap rounds: what ``rank --bootstrap`` set, and so
what ``report --bootstrap`` sets on a rank file (its default is ``rank``'s, 1000). The
judged pairs keep the run's own resamples (``settings.n_resamples``)."""
_FIT_DEFAULT = 1000


def out_file_header(path: Path) -> OutHeader | None:
    """The header record of a ``--out`` file; ``None`` for a file written before headers.

    Raises:
        InputError: The file cannot be read, or its first record is a malformed header.
    """
    with _damage_told(path):
        for number, record in read_records(path):
            return read_header(record, path=str(path), line=number)
    return None


_REWRITE = "the file is damaged or cut short; write it again with the command's out"


@contextmanager
def _damage_told(path: Path) -> Iterator[None]:
    """A line that is not JSON, said to be damage, with the fix: write the file again.

    An ``--out`` file is written whole by its command, so a line that does not parse
    is a file cut short (a copy stopped half way) or edited; the first line is its
    header, and said to be.

    Raises:
        InputError: A line of the file is not JSON; the message names the line and the fix.
    """
    try:
        yield
    except InputError as exc:
        said = str(exc).removeprefix(f"{exc.path}:{exc.line}: ")
        if exc.path != str(path) or exc.line is None or not said.startswith("not JSON ("):
            raise
        what = "the header (line 1) is " if exc.line == 1 else ""
        raise InputError(f"{what}{said}; {_REWRITE}", path=exc.path, line=exc.line,
                         params="out") from None  # fmt: skip


def _battles(path: Path) -> bool:
    """Whether a file with no header is a battles file (``rank``'s input), not an ``--out``."""
    for _, record in read_records(path):
        columns = {"model_a", "model_b", "winner"}
        return isinstance(record, dict) and columns <= record.keys() and "calls" not in record
    return False


def _headerless_kind(path: Path) -> str:
    """A file written before headers: ``rank`` when it holds battles, else ``compare``."""
    for _, record in read_records(path):
        battle = isinstance(record, dict) and {"model_a", "winner"} <= record.keys()
        return "rank" if battle else "compare"
    return "compare"


def _recorded(settings: Mapping[str, Any], name: str, path: Path) -> int | float | None:
    """The header's ``settings[name]``, checked as the run's own (the file is untrusted)."""
    value = settings.get(name)
    if value is None:
        return None
    if name == "level":  # a share in (0, 1)
        good = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1
    else:  # a whole number: a seed from 0, resamples from 1
        least = 1 if name.startswith("n_resamples") else 0
        good = isinstance(value, int) and not isinstance(value, bool) and value >= least
    if not good:  # library words: the parameter that overrides it (the CLI shows its flag)
        param = "n_resamples" if name.startswith("n_resamples") else name
        noun = {"seed": "seed", "level": "level"}.get(name, "resample count")
        raise InputError(f"header: settings.{name} is not a {noun} a run could have used; got "
                         f"{shown(value)} (give {param} to draw the file anyway)",
                         path=str(path), params=(param,))  # fmt: skip
    return float(value) if name == "level" else int(value)


def _check_given(given: Mapping[str, int | float | None]) -> None:
    """Refuse a seed below 0, a level outside (0, 1) or fewer than one resample given.

    Checked before :func:`_bootstrap` tells any value given, so a bad one is refused
    alone rather than first announced as the page's ("redrawn at level 1.5").

    Raises:
        ConfigError: A value given is out of range; the message names its parameter.
    """
    seed, level, n_resamples = given["seed"], given["level"], given["n_resamples"]
    if seed is not None and seed < 0:
        raise ConfigError(f"seed must be >= 0; got {seed!r}", params="seed")
    if level is not None and not 0 < level < 1:
        raise ConfigError(f"level must be in (0, 1); got {level!r}", params="level")
    if n_resamples is not None and n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1; got {n_resamples!r}", params="n_resamples")


_SAID = {
    "seed": "at seed {}",
    "level": "at level {}",
    "n_resamples": "with {} resamples",
    _FIT_ROUNDS: "with {} bootstrap rounds of the leaderboard",
}
_WAS = {
    "seed": "the run's was {}",
    "level": "the run's was {}",
    "n_resamples": "the run's had {}",
    _FIT_ROUNDS: "the run's had {}",
}


def _bootstrap(
    path: Path, header: OutHeader | None, kind: str, given: Mapping[str, int | float | None],
    notify: Callable[[str], None] | None,
) -> dict[str, Any]:  # fmt: skip
    """The seed, level and resamples to summarise with: each given, else the run's own.

    The run's are its header's settings; a file whose header records none (an
    older file, or one written before headers) gets :data:`DEFAULTS`. On a ``rank``
    file the resamples given are the leaderboard's bootstrap rounds
    (:data:`_FIT_ROUNDS`, as ``rank --bootstrap``), the judged pairs keeping the
    run's. A value given that is not the run's is told to ``notify``, as is one an
    ``audit`` file cannot use (it holds the run's intervals: nothing is resampled).
    """
    settings = header.settings if header is not None else {}
    defaults = dict(DEFAULTS)
    if kind == "rank":  # --bootstrap is the leaderboard's rounds, as rank's own flag
        given = {**given, _FIT_ROUNDS: given.get("n_resamples"), "n_resamples": None}
        defaults[_FIT_ROUNDS] = _FIT_DEFAULT
    chosen: dict[str, Any] = {}
    for name, default in defaults.items():
        value = given.get(name)
        if value is None:
            recorded = _recorded(settings, name, path)
            chosen[name] = recorded if recorded is not None else default
            continue
        chosen[name] = value  # given: the header's, even a damaged one, is only told
        recorded = settings.get(name)
        if notify is None or recorded is None or value == recorded:
            continue
        was = _WAS[name].format(shown(recorded))
        if kind in _AS_RECORDED:
            notify(f"{_SAID[name].format(value)} is not applied: an {kind} file holds the "
                   f"intervals its run computed ({was})")  # fmt: skip
        else:
            notify(f"redrawn {_SAID[name].format(value)} ({was})")
    return chosen


def out_file_page(
    path: Path,
    kind: str | None,
    *,
    seed: int | None = None,
    level: float | None = None,
    n_resamples: int | None = None,
    notify: Callable[[str], None] | None = None,
) -> kit.Page:
    """The page of a ``--out`` file of ``kind``, read and summarised again.

    Args:
        path: The ``--out`` file.
        kind: Its header's kind (one of :data:`PAGES`); ``None`` for a file written
            before headers, drawn as the ``rank`` file or ``compare`` file its
            records are.
        seed: The bootstrap seed; ``None``: the run's, as its header records it
            (0 for a file whose header does not: :data:`DEFAULTS`).
        level: The confidence level; ``None``: the run's (else 0.95).
        n_resamples: Bootstrap resamples; ``None``: the run's (else 2000).
        notify: Told each value given that is not the run's (``redrawn at level
            0.9 (the run's was 0.95)``), so a page that differs from the run's says why.

    Raises:
        InputError: No page draws ``kind``, the file is not a readable ``--out``
            file of that kind, or its header records a seed, level or resamples no
            run could have used.
    """
    with _damage_told(path):
        return _page(path, kind, {"seed": seed, "level": level, "n_resamples": n_resamples},
                     notify)  # fmt: skip


def _page(
    path: Path, kind: str | None, given: Mapping[str, int | float | None],
    notify: Callable[[str], None] | None,
) -> kit.Page:  # fmt: skip
    """:func:`out_file_page`'s work: the loader of ``kind``, given the values checked."""
    if kind is None and _battles(path):
        raise InputError(f"a battles file (model_a, model_b, winner), not a file written by "
                         f"out: `fairjudge rank {path} html page.html` ranks it and draws its "
                         f"page", path=str(path), params=("out", "html"))  # fmt: skip
    kind = kind if kind is not None else _headerless_kind(path)
    loader = PAGES.get(kind)
    if loader is None:
        raise InputError(f"a {kind} file (written by `fairjudge {kind} out`): no page draws "
                         f"this kind of file; {DRAWS}", path=str(path),
                         params=_PARAMS)  # fmt: skip
    _check_given(given)  # before any note: a value refused is never said to be redrawn
    header = out_file_header(path)  # read once: the loader, the settings, the rows set aside
    if kind == "calibrate" and draws_pointwise(header):
        loader = _ON_HUMAN_SCORES
    told = {"notify": notify} if kind in _TELLS else {}
    page = loader(path, **_bootstrap(path, header, kind, given, notify), **told)
    return with_skipped_rows(page, header)  # rows the run set aside


@dataclass(frozen=True, slots=True)
class _SetAside:
    """What a scoring page's failures card reads of its report: no failure, these rows."""

    skipped: tuple[dict[str, Any], ...]
    failures: Counter[str] = field(default_factory=Counter)


def _card(page: kit.Page, header: OutHeader, rows: Sequence[dict[str, Any]]) -> kit.Section | None:
    """The failures card's rows-set-aside part, in the words of the page that drew it."""
    if page.kind == "score" or (page.kind == "calibrate" and header.rubric is not None):
        return score_failures_section(_SetAside(tuple(rows)))  # type: ignore[arg-type]
    if page.kind in ("compare", "calibrate"):
        return failures_section(None, rows)
    return None  # the other pages list them in their summary only, as the run's


def with_skipped_rows(page: kit.Page, header: OutHeader | None) -> kit.Page:
    """``page`` with the rows its run set aside, as the ``--out`` ``header`` records them.

    The summary's ``skipped_rows`` (the run's ``--json``; a comparison via scores
    redrawn has the key only then) lists them, and the
    failures card (made when the page has none, as the run's page had) ends with
    them, as the run's page did.
    """
    rows = [dict(r) for r in header.skipped_rows] if header is not None else []
    if header is None or not rows:
        return page
    summary: Mapping[str, Any] = page.summary
    if "skipped_rows" in summary or page.kind == "compare-via-scores":  # its run's --json has it
        summary = {**summary, "skipped_rows": rows}
    card = _card(page, header, rows)
    sections = list(page.sections)
    if card is not None:
        at = next((i for i, s in enumerate(sections) if s.id == card.id), None)
        if at is None:
            sections.append(card)
        else:
            sections[at] = replace(sections[at], blocks=(*sections[at].blocks, *card.blocks))
    return replace(page, sections=tuple(sections), summary=summary)
