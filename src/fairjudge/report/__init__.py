"""One result model per command, rendered as a terminal table, JSON or an HTML page.

Each report is built once from a result (:func:`comparison_report`, ...), and every
rendering reads that one model, so the table and the JSON cannot disagree. Text
that came from a user or an exception is escaped before rich sees it, and every
value on the HTML page is escaped (:mod:`fairjudge.report._html`). In both, its
invisible characters (bidi overrides, zero-width characters, control codes) are
shown as markers such as ``⟨U+202E⟩`` (:mod:`fairjudge.report._text`); the JSON
keeps the exact values.
"""

from typing import TYPE_CHECKING

from fairjudge._lazy import lazy_attributes, module_dir

if TYPE_CHECKING:
    from fairjudge.report._audit import render_audit
    from fairjudge.report._calibration import calibration_payload, render_calibration
    from fairjudge.report._comparison import ComparisonReport, comparison_report, render_comparison
    from fairjudge.report._html import comparison_html, ranking_html, write_html
    from fairjudge.report._html_load import load_results
    from fairjudge.report._jury import JuryReport, jury_report, render_jury
    from fairjudge.report._ranking import RankingReport, render_ranking
    from fairjudge.report._score_jury import (
        JuryScoreReport,
        render_score_jury,
        score_jury_report,
    )
    from fairjudge.report._scores import (
        ScoreReport,
        render_score_calibration,
        render_scores,
        render_via_scores,
        score_report,
    )
    from fairjudge.report._text import ci_text, failure_lines, print_failures
    from fairjudge.report._trend import render_trend

# Every name loads on first use (PEP 562): a command imports only the report it shows.
__getattr__ = lazy_attributes(
    __name__,
    {
        "fairjudge.report._audit": "render_audit",
        "fairjudge.report._calibration": "calibration_payload render_calibration",
        "fairjudge.report._comparison": "ComparisonReport comparison_report render_comparison",
        "fairjudge.report._html": "comparison_html ranking_html write_html",
        "fairjudge.report._html_load": "load_results",
        "fairjudge.report._jury": "JuryReport jury_report render_jury",
        "fairjudge.report._ranking": "RankingReport render_ranking",
        "fairjudge.report._score_jury": "JuryScoreReport render_score_jury score_jury_report",
        "fairjudge.report._scores": (
            "ScoreReport render_score_calibration render_scores render_via_scores score_report"
        ),
        "fairjudge.report._text": "ci_text failure_lines print_failures",
        "fairjudge.report._trend": "render_trend",
    },
)

__all__ = [
    "ComparisonReport",
    "JuryReport",
    "JuryScoreReport",
    "RankingReport",
    "ScoreReport",
    "calibration_payload",
    "ci_text",
    "comparison_html",
    "comparison_report",
    "failure_lines",
    "jury_report",
    "load_results",
    "print_failures",
    "ranking_html",
    "render_audit",
    "render_calibration",
    "render_comparison",
    "render_jury",
    "render_ranking",
    "render_score_calibration",
    "render_score_jury",
    "render_scores",
    "render_trend",
    "render_via_scores",
    "score_jury_report",
    "score_report",
    "write_html",
]


__dir__ = module_dir(globals(), __all__)
