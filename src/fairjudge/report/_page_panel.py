"""The ``jury`` and ``score-jury`` pages: one builder, the reading type the only difference.

:func:`panel_page` lays out a :class:`~fairjudge.report._page_panel_view.PanelView`
on the page kit (:mod:`fairjudge.report._page`), whatever the members read:

1. the headline, with the known truth in its card where the items carry labels;
2. **the panel**: its members (the plots name them ``#1``, ``#2``, ...), how much
   they agree (Fleiss' kappa, or Krippendorff's alpha per dimension) and the
   effective number of independent judges against the panel's size;
3. **member × member**: the agreement matrix as a heatmap, each cell with its
   number (one per dimension for scores);
4. **each member**: its figures with their intervals, one forest plot each;
5. the item explorer, every member's verdicts or scores side by side, filterable to
   the items where the members split.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from fairjudge._words import worded
from fairjudge.report._forest import forest_plot
from fairjudge.report._page import (
    Explorer,
    FigureTable,
    Headline,
    Page,
    PageKind,
    PageLoader,
    Paragraphs,
    PlotBlock,
    Section,
    page_html,
)
from fairjudge.report._page_facts import run_facts
from fairjudge.report._page_panel_jury import jury_view
from fairjudge.report._page_panel_load import load_jury_report, load_score_jury_report
from fairjudge.report._page_panel_scores import score_jury_view
from fairjudge.report._page_panel_view import FigureSet, Matrix, PanelView
from fairjudge.report._page_plots import heatmap

if TYPE_CHECKING:
    from fairjudge.io import OutHeader
    from fairjudge.report._jury import JuryReport
    from fairjudge.report._score_jury import JuryScoreReport

__all__ = [
    "OUT_FILE_PAGES",
    "jury_html",
    "jury_page",
    "jury_page_from_file",
    "panel_page",
    "score_jury_html",
    "score_jury_page",
    "score_jury_page_from_file",
]

_NO_CI = "fj-noci"
_ADAPTIVE = (
    "This run stopped adaptively (stop_when): the page shows the items it judged, with "
    "fixed-sample intervals; the anytime-valid interval is in the run's own output (its "
    "header records it under settings.adaptive)."
)


def _forest(figures: FigureSet) -> PlotBlock:
    plot = forest_plot(
        figures.figures, title=figures.title, domain=figures.domain, ref=figures.ref,
        ref_label=figures.ref_label,
    )  # fmt: skip
    # Two columns, the counts beside the figure: at 390 px a third column squeezes the
    # labels (members' names) to a few letters a line.
    table = FigureTable(
        caption=figures.note or figures.title,
        columns=("figure", "estimate [CI] (counts), or why not estimated"),
        rows=tuple((f.label, f"{f.text} ({f.note})" if f.note else f.text)
                   for f in figures.figures),
        classes={i: _NO_CI for i, f in enumerate(figures.figures) if f.reason is not None},
    )  # fmt: skip
    return PlotBlock(plot, table, tuple(_NO_CI if f.reason else "" for f in figures.figures))


def _heatmap(matrix: Matrix) -> PlotBlock:
    labels = matrix.labels
    reasons = {
        (r, c): matrix.reason
        for r, row in enumerate(matrix.cells)
        for c, value in enumerate(row)
        if value is None
    }
    plot = heatmap(labels, labels, matrix.cells, title=matrix.title,
                   domain=(matrix.low, matrix.high), reasons=reasons)  # fmt: skip
    rows = tuple(
        (label, *(cell.text if cell.reason is None else f"n/a: {cell.reason}" for cell in row))
        for label, row in zip(labels, plot.cells, strict=True)
    )
    table = FigureTable(f"{matrix.title}. {matrix.note}", ("member", *labels), rows)
    return PlotBlock(plot, table)


_SHOWN_FAILURES = 20


def _with_failures(headline: Headline, failures: tuple[tuple[int, str], ...]) -> Headline:
    if not failures:
        return headline
    total = sum(n for n, _ in failures)
    said = f"{total} member call(s) gave no reading (parse failures, call errors); the "
    said += "Failures card below lists why. They are never counted as a verdict or a score."
    return dataclasses.replace(headline, warnings=(*headline.warnings, said))


def _failures(failures: tuple[tuple[int, str], ...]) -> Section:
    # The reason first: a row's first cell wraps anywhere, so a member's long name or a
    # long message cannot widen the table past a phone's width.
    rows = tuple((reason, str(n)) for n, reason in failures[:_SHOWN_FAILURES])
    rest = failures[_SHOWN_FAILURES:]
    if rest:
        more = worded(f"{len(rest)} other reason(s); out=FILE keeps every call's failure", "out")
        rows += ((more, str(sum(n for n, _ in rest))),)
    table = FigureTable("Why members' calls gave no reading, most common first",
                        ("member: reason", "calls"), rows)  # fmt: skip
    return Section("fj-failures", "Failures", (table,))


def panel_page(
    view: PanelView, *, header: OutHeader | None = None, command: Sequence[str] | None = None
) -> Page:
    """Lay out a panel's view on the page kit (the module docstring lists the page).

    Args:
        view: The panel's view (:func:`jury_view` or :func:`score_jury_view`).
        header: The ``--out`` file's header, for a page drawn from a file.
        command: The command line, for a page the command writes itself.
    """
    f = view.facts
    facts = run_facts(
        header, kind=view.kind, command=command, judge_or_members=f.members,
        template_or_rubric=f.template_or_rubric, seed=f.seed, calls_made=f.calls_made,
        calls_cached=f.calls_cached, cost=f.cost, extra=f.extra,
    )  # fmt: skip
    headline = view.headline
    roster = FigureTable("The members: the matrices name each by its number",
                         ("member", "weight"), view.roster)  # fmt: skip
    panel: list[Any] = [roster]
    if view.findings:
        panel.append(Paragraphs(view.findings))
    panel += [_forest(s) for s in view.panel_plots]
    headline = _with_failures(headline, view.failures)
    sections: tuple[Section, ...] = (
        Section("fj-panel", "The panel", tuple(panel)),
        Section("fj-matrix", "Member × member agreement",
                tuple(_heatmap(m) for m in view.matrices)),
        Section("fj-members", "Each member",
                (*(_forest(s) for s in view.member_plots), Paragraphs(view.notes))),
    )  # fmt: skip
    if view.failures:  # first, under the headline that points to it
        sections = (_failures(view.failures), *sections)
    noun = "items" if view.kind == "jury" else "answers"
    return Page(
        kind=cast(PageKind, view.kind),
        title=view.title,
        headline=headline,
        facts=facts,
        sections=sections,
        explorer=Explorer(view.spec, view.records, noun),
        summary=view.summary,
    )


def jury_page(
    report: JuryReport,
    *,
    summary: Mapping[str, Any] | None = None,
    header: OutHeader | None = None,
    command: Sequence[str] | None = None,
) -> Page:
    """The page of a ``jury`` run (``summary``: the JSON to embed, the report's by default)."""
    return panel_page(jury_view(report, summary=summary), header=header, command=command)


def score_jury_page(
    report: JuryScoreReport,
    *,
    summary: Mapping[str, Any] | None = None,
    header: OutHeader | None = None,
    command: Sequence[str] | None = None,
) -> Page:
    """The page of a ``score-jury`` run (``summary``: as :func:`jury_page`'s)."""
    return panel_page(score_jury_view(report, summary=summary), header=header, command=command)


def jury_html(report: JuryReport, *, header: OutHeader | None = None) -> str:
    """The HTML page ``jury --html`` writes (``header``: the run's, for its command line)."""
    return page_html(jury_page(report, header=header))


def score_jury_html(report: JuryScoreReport, *, header: OutHeader | None = None) -> str:
    """The HTML page ``score-jury --html`` writes (``header``: as :func:`jury_html`'s)."""
    return page_html(score_jury_page(report, header=header))


def jury_page_from_file(path: Path, *, seed: int, level: float, n_resamples: int) -> Page:
    """The page of a ``jury --out`` file, every member replayed from its recorded calls.

    Raises:
        InputError: Not a ``jury --out`` file, or one that does not hold a whole run.
    """
    report, header = load_jury_report(path, seed=seed, level=level, n_resamples=n_resamples)
    page = jury_page(report, header=header)
    if header is not None and "adaptive" in header.settings:
        warnings = (*page.headline.warnings, worded(_ADAPTIVE, "stop_when"))
        page = dataclasses.replace(
            page, headline=dataclasses.replace(page.headline, warnings=warnings)
        )
    return page


def score_jury_page_from_file(path: Path, *, seed: int, level: float, n_resamples: int) -> Page:
    """The page of a ``score-jury --out`` file, every member's scores read back.

    Raises:
        InputError: Not a ``score-jury --out`` file, or its rubric cannot be known.
    """
    report, header = load_score_jury_report(path, seed=seed, level=level, n_resamples=n_resamples)
    return score_jury_page(report, header=header)


OUT_FILE_PAGES: dict[str, PageLoader] = {
    "jury": jury_page_from_file,
    "score-jury": score_jury_page_from_file,
}
"""The ``--out`` kinds this module draws, for ``fairjudge report``."""
