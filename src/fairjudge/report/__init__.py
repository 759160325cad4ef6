"""One result model per command, rendered as a terminal table, JSON or an HTML page.

Each report is built once from a result (:func:`comparison_report`, ...), and every
rendering reads that one model, so the table and the JSON cannot disagree. Text
that came from a user or an exception is escaped before rich sees it, and every
value on the HTML page is escaped (:mod:`fairjudge.report._page`). In both, its
invisible characters (bidi overrides, zero-width characters, control codes) are
shown as markers such as ``⟨U+202E⟩`` (:mod:`fairjudge.report._text`); the JSON
keeps the exact values.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import package_surface

if TYPE_CHECKING:
    from fairjudge.report._audit import calibration_payload, render_audit, render_calibration
    from fairjudge.report._comparison import ComparisonReport, comparison_report, render_comparison
    from fairjudge.report._jury import (
        JuryReport,
        jury_report,
        render_jury,
        render_score_jury,
        score_jury_report,
    )
    from fairjudge.report._label_server import LabelServer
    from fairjudge.report._markdown import (
        comparison_markdown,
        markdown_of,
        page_markdown,
        ranking_markdown,
        via_scores_markdown,
    )
    from fairjudge.report._page import page_html
    from fairjudge.report._page_audit import audit_page, audit_payload
    from fairjudge.report._page_compare import compare_page
    from fairjudge.report._page_panel import jury_html, score_jury_html
    from fairjudge.report._page_rank import rank_page
    from fairjudge.report._page_score import score_page
    from fairjudge.report._page_via_scores import via_scores_page
    from fairjudge.report._pages import PAGES, out_file_header, out_file_page
    from fairjudge.report._ranking import RankingReport, render_ranking
    from fairjudge.report._scores import (
        ScoreReport,
        render_score_calibration,
        render_scores,
        render_via_scores,
        score_report,
    )
    from fairjudge.report._text import print_failures, visible

__all__ = [
    "PAGES",
    "ComparisonReport",
    "JuryReport",
    "LabelServer",
    "RankingReport",
    "ScoreReport",
    "audit_page",
    "audit_payload",
    "calibration_payload",
    "compare_page",
    "comparison_markdown",
    "comparison_report",
    "jury_html",
    "jury_report",
    "markdown_of",
    "out_file_header",
    "out_file_page",
    "page_html",
    "page_markdown",
    "print_failures",
    "rank_page",
    "ranking_markdown",
    "render_audit",
    "render_calibration",
    "render_comparison",
    "render_jury",
    "render_ranking",
    "render_score_calibration",
    "render_score_jury",
    "render_scores",
    "render_via_scores",
    "score_jury_html",
    "score_jury_report",
    "score_page",
    "score_report",
    "via_scores_markdown",
    "via_scores_page",
    "visible",
]

# Every name loads on first use (PEP 562): a command imports only the report it shows.
_LAZY = {
    "render_audit": "fairjudge.report._audit",
    "calibration_payload": "fairjudge.report._audit",
    "render_calibration": "fairjudge.report._audit",
    "ComparisonReport": "fairjudge.report._comparison",
    "comparison_report": "fairjudge.report._comparison",
    "render_comparison": "fairjudge.report._comparison",
    "JuryReport": "fairjudge.report._jury",
    "jury_report": "fairjudge.report._jury",
    "render_jury": "fairjudge.report._jury",
    "LabelServer": "fairjudge.report._label_server",
    "comparison_markdown": "fairjudge.report._markdown",
    "markdown_of": "fairjudge.report._markdown",
    "page_markdown": "fairjudge.report._markdown",
    "ranking_markdown": "fairjudge.report._markdown",
    "via_scores_markdown": "fairjudge.report._markdown",
    "page_html": "fairjudge.report._page",
    "audit_page": "fairjudge.report._page_audit",
    "audit_payload": "fairjudge.report._page_audit",
    "compare_page": "fairjudge.report._page_compare",
    "rank_page": "fairjudge.report._page_rank",
    "jury_html": "fairjudge.report._page_panel",
    "score_jury_html": "fairjudge.report._page_panel",
    "score_page": "fairjudge.report._page_score",
    "via_scores_page": "fairjudge.report._page_via_scores",
    "PAGES": "fairjudge.report._pages",
    "out_file_header": "fairjudge.report._pages",
    "out_file_page": "fairjudge.report._pages",
    "RankingReport": "fairjudge.report._ranking",
    "render_ranking": "fairjudge.report._ranking",
    "render_score_jury": "fairjudge.report._jury",
    "score_jury_report": "fairjudge.report._jury",
    "ScoreReport": "fairjudge.report._scores",
    "render_score_calibration": "fairjudge.report._scores",
    "render_scores": "fairjudge.report._scores",
    "render_via_scores": "fairjudge.report._scores",
    "score_report": "fairjudge.report._scores",
    "print_failures": "fairjudge.report._text",
    "visible": "fairjudge.report._text",
}

package_surface(globals(), _LAZY)
