"""The HTML report: one self-contained file that opens from disk and loads nothing.

What makes it safe (autoescaping, the embedded JSON, the Content-Security-Policy)
is every page's, in :mod:`fairjudge.report._document`.

- :func:`comparison_html`: ``compare`` and ``calibrate`` (and ``fairjudge report``).
- :func:`ranking_html`: ``rank``'s leaderboard.
- :func:`write_html`: written whole or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fairjudge._items import Judgment
from fairjudge._version import __version__
from fairjudge.evaluation import PairwiseResult
from fairjudge.io import write_atomic
from fairjudge.report._comparison import ComparisonReport
from fairjudge.report._document import (
    asset,
    content_security_policy,
    environment,
    page_script,
    script_json,
)
from fairjudge.report._html_items import item_records
from fairjudge.report._html_model import View, comparison_view, ranking_view
from fairjudge.report._ranking import RankingReport
from fairjudge.report._text import visible_all
from fairjudge.runner import RunSummary

__all__ = ["comparison_html", "ranking_html", "write_html"]


def _render(view: View, summary: Mapping[str, Any], judgments: Sequence[Judgment]) -> str:
    from markupsafe import Markup  # jinja2's own dependency

    script = page_script("report.js")
    template = environment().get_template("report.html.j2")
    return template.render(
        view=visible_all(view),  # every string the template shows, in one place
        csp=content_security_policy(script),
        version=__version__,
        n_items=len(judgments),
        css=Markup(asset("report.css")),
        js=Markup(script),
        summary_json=Markup(script_json(dict(summary))),
        items_json=Markup(script_json({"items": item_records(judgments)})),
    )


def comparison_html(
    report: ComparisonReport,
    *,
    calibration: Mapping[str, Any] | None = None,
    summary: Mapping[str, Any] | None = None,
) -> str:
    """The HTML page of a comparison (``compare``, ``calibrate``, ``fairjudge report``).

    Args:
        report: The comparison report; the headline and figures are its own.
        calibration: ``calibrate``'s report (:func:`fairjudge.audit.calibration_report`),
            shown as a card with the gate's verdict.
        summary: The JSON embedded in the page (``<script id="fj-summary">``); by
            default the report's own :meth:`~ComparisonReport.to_dict`, which
            ``compare --json`` prints.
    """
    view = comparison_view(report, calibration=calibration)
    data = summary if summary is not None else report.to_dict()
    return _render(view, data, report.result.judgments)


def ranking_html(
    report: RankingReport,
    *,
    title: str,
    result: PairwiseResult | None = None,
    run: RunSummary | None = None,
) -> str:
    """The HTML page of a leaderboard, with the judged pairs when a judge ran.

    Args:
        report: The ranking report.
        title: What was ranked, e.g. the input file's name.
        result: The judged pairs (``None`` when the input held judged battles).
        run: The judge calls' counts and cost, for model judges.
    """
    view = ranking_view(report, title=title, result=result, run=run)
    judgments = result.judgments if result is not None else ()
    return _render(view, report.to_dict(), judgments)


def write_html(path: Path, html: str) -> None:
    """Write the page atomically: never half a report."""
    write_atomic(path, (html,))
