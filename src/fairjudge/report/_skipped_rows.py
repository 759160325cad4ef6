"""The input rows a run set aside, drawn again by ``fairjudge report`` as the run drew them.

A run given ``skip_invalid`` (``--skip-invalid``) lists the rows it set aside in its
``--json`` (``skipped_rows``) and, for a comparison, a calibration or a scoring run,
on its page's failures card. Its ``--out`` header records them
(:attr:`fairjudge.io.OutHeader.skipped_rows`); :func:`with_skipped_rows` puts them
back on a page read from the file, with the card's own words (the page modules'
failures sections), so the report of the file is the run's. A file that records
none (no row was set aside, or it was written before headers recorded them) is
drawn as it was.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fairjudge.io import OutHeader
from fairjudge.report._page import Page, Section

__all__ = ["with_skipped_rows"]


@dataclass(frozen=True, slots=True)
class _SetAside:
    """What a scoring page's failures card reads of its report: no failure, these rows."""

    skipped: tuple[dict[str, Any], ...]
    failures: Counter[str] = field(default_factory=Counter)


def _card(page: Page, header: OutHeader, rows: Sequence[dict[str, Any]]) -> Section | None:
    """The failures card's rows-set-aside part, in the words of the page that drew it."""
    if page.kind == "score" or (page.kind == "calibrate" and header.rubric is not None):
        from fairjudge.report._page_calibrate import score_failures_section

        return score_failures_section(_SetAside(tuple(rows)))  # type: ignore[arg-type]
    if page.kind in ("compare", "calibrate"):
        from fairjudge.report._page_compare import failures_section

        return failures_section(None, rows)
    return None  # the other pages list them in their summary only, as the run's


def with_skipped_rows(page: Page, header: OutHeader | None) -> Page:
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
