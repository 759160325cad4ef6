"""Each kind of run as a :class:`~fairjudge.report._markdown.MarkdownSummary`.

A summary is filled from the view the run's HTML page draws (the comparison and
ranking views of :mod:`fairjudge.report._html_model`, the page kit's
:class:`~fairjudge.report._page.Page`), so the headline, the figures and the
``--json`` numbers are the ones every other rendering shows. ``calibrate``'s
conclusion is its gate, as the terminal prints it (the gate's first line), with
each check beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from fairjudge.report._comparison import ComparisonReport
from fairjudge.report._html_model import Headline, View, comparison_view, ranking_view
from fairjudge.report._jury import JuryReport
from fairjudge.report._markdown import MarkdownSummary, markdown_text, verdict_counts
from fairjudge.report._page import FigureTable, Page, PlotBlock
from fairjudge.report._score_jury import JuryScoreReport
from fairjudge.report._scores import ScoreReport

if TYPE_CHECKING:
    from fairjudge.evaluation import PairwiseResult
    from fairjudge.report._ranking import RankingReport
    from fairjudge.runner import RunSummary

__all__ = [
    "comparison_markdown",
    "markdown_of",
    "page_markdown",
    "ranking_markdown",
]


def _view_summary(view: View, summary: Mapping[str, Any]) -> MarkdownSummary:
    """A comparison's or ranking's view: its headline, and its figures as the table."""
    rows = tuple((f.label, f.text, f.note) for f in view.figures)
    rows += tuple((label, text, "") for label, text in view.calibration)
    return MarkdownSummary(
        kind=view.kind, title=view.title, headline=view.headline,
        counts=verdict_counts(summary), columns=("figure", "value [CI]", "counts"),
        rows=rows, caption="Figures, each with its confidence interval", notes=view.gap,
    )  # fmt: skip


def _gate_headline(calibration: Mapping[str, Any], headline: Headline) -> Headline:
    """``calibrate``'s conclusion: the gate's outcome line the terminal prints, its checks."""
    gate = calibration.get("gate")
    if gate is None:
        return headline
    head, *checks = gate.summary().splitlines()
    return replace(
        headline, verdict=head, label="; ".join(" ".join(c.split()) for c in checks),
        estimate="", ci="", note="",
    )  # fmt: skip


def comparison_markdown(
    report: ComparisonReport, *, calibration: Mapping[str, Any] | None = None
) -> str:
    """The Markdown of a ``compare`` report, or of ``calibrate``'s with its ``calibration``.

    The verdict counts are the comparison's ``--json`` counts, for ``calibrate`` too
    (its own ``--json`` folds parse failures and call errors into ``n_unresolved``;
    here each is counted on its own, from the same judgments).

    Args:
        report: The comparison report.
        calibration: ``calibrate``'s report: the gate becomes the conclusion.
    """
    view = comparison_view(report, calibration=calibration)
    md = _view_summary(view, report.to_dict())
    if calibration is not None:  # its terminal prints the gate, not the comparison's lines
        md = replace(md, headline=_gate_headline(calibration, md.headline), notes=())
    return markdown_text(md)


def ranking_markdown(
    report: RankingReport, *, title: str, result: PairwiseResult | None, run: RunSummary | None
) -> str:
    """The Markdown of a ``rank`` report: the leader line, one row per model."""
    view = ranking_view(report, title=title, result=result, run=run)
    md = _view_summary(view, report.to_dict())
    return markdown_text(replace(md, columns=("model", "rating [CI]", "rank and W/T/L")))


def _first_table(page: Page) -> FigureTable | None:
    for section in page.sections:
        for block in section.blocks:
            if isinstance(block, FigureTable):
                return block
            if isinstance(block, PlotBlock):
                return block.table
    return None


def page_markdown(page: Page) -> str:
    """The Markdown of a page-kit page (score, audit, jury, score-jury): its first table."""
    table = _first_table(page)
    md = MarkdownSummary(
        kind=page.kind, title=page.title, headline=page.headline,
        counts=verdict_counts(page.summary),
        columns=table.columns if table is not None else (),
        rows=table.rows if table is not None else (),
        caption=table.caption if table is not None else "",
    )  # fmt: skip
    return markdown_text(md)


def markdown_of(report: object) -> str:
    """The Markdown of a report that ``show`` prints (compare, score, jury, score-jury).

    Raises:
        TypeError: A report of another kind: its command builds its Markdown itself.
    """
    if isinstance(report, ComparisonReport):
        return comparison_markdown(report)
    if isinstance(report, ScoreReport):
        from fairjudge.report._page_score import score_page

        return page_markdown(score_page(report))
    if isinstance(report, JuryReport):
        from fairjudge.report._page_panel import jury_page

        return page_markdown(jury_page(report))
    if isinstance(report, JuryScoreReport):
        from fairjudge.report._page_panel import score_jury_page

        return page_markdown(score_jury_page(report))
    raise TypeError(f"no Markdown summary for a {type(report).__name__}")
