"""The HTML report: one self-contained file that opens from disk and loads nothing.

The page is rendered by jinja2 with autoescaping on, so every value is escaped; the
only text marked safe is the package's own CSS and JavaScript and the item data,
which :func:`~fairjudge.report._html_items.script_json` escapes for a ``<script>``
element. A Content-Security-Policy in the page forbids every load from anywhere
(``default-src 'none'``), lets inline styles and ``data:`` images through, and runs
only the one script whose SHA-256 it names: a ``<script>`` that slipped into the
page by any route would not run.

- :func:`comparison_html`: ``compare`` and ``calibrate`` (and ``fairjudge report``).
- :func:`ranking_html`: ``rank``'s leaderboard.
- :func:`write_html`: written whole or not at all.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairjudge._items import Judgment
from fairjudge._version import __version__
from fairjudge.evaluation import PairwiseResult
from fairjudge.io import write_atomic
from fairjudge.report._comparison import ComparisonReport
from fairjudge.report._html_items import item_records, script_json
from fairjudge.report._html_model import View, comparison_view, ranking_view
from fairjudge.report._ranking import RankingReport
from fairjudge.report._text import visible_all
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    import jinja2

__all__ = ["comparison_html", "ranking_html", "write_html"]


def _asset(name: str) -> str:
    return resources.files("fairjudge.report").joinpath("templates", name).read_text("utf-8")


@cache
def _environment() -> jinja2.Environment:
    import jinja2  # only the HTML report needs it: keep it off every command's start-up

    return jinja2.Environment(
        loader=jinja2.PackageLoader("fairjudge.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def content_security_policy(script: str) -> str:
    """The page's policy: nothing loads; inline CSS, ``data:`` images and ``script`` run."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}'; "
        "style-src 'unsafe-inline'; "
        "img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def _render(view: View, summary: Mapping[str, Any], judgments: Sequence[Judgment]) -> str:
    from markupsafe import Markup  # jinja2's own dependency

    script = _asset("report.js")
    if "</script" in script.lower():  # the script's text would end its own element
        raise AssertionError("report.js must not contain '</script'")
    template = _environment().get_template("report.html.j2")
    return template.render(
        view=visible_all(view),  # every string the template shows, in one place
        csp=content_security_policy(script),
        version=__version__,
        n_items=len(judgments),
        css=Markup(_asset("report.css")),
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
