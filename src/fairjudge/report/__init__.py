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

from fairjudge._lazy import lazy_attributes, module_dir, publish

if TYPE_CHECKING:
    from fairjudge.report._audit import render_audit as render_audit
    from fairjudge.report._calibration import calibration_payload as calibration_payload
    from fairjudge.report._calibration import render_calibration as render_calibration
    from fairjudge.report._comparison import ComparisonReport, comparison_report
    from fairjudge.report._comparison import render_comparison as render_comparison
    from fairjudge.report._html import comparison_html as comparison_html
    from fairjudge.report._html import ranking_html as ranking_html
    from fairjudge.report._html import write_html
    from fairjudge.report._html_load import load_results
    from fairjudge.report._jury import JuryReport
    from fairjudge.report._jury import jury_report as jury_report
    from fairjudge.report._jury import render_jury as render_jury
    from fairjudge.report._label_server import LabelServer as LabelServer
    from fairjudge.report._markdown_kinds import comparison_markdown as comparison_markdown
    from fairjudge.report._markdown_kinds import markdown_of as markdown_of
    from fairjudge.report._markdown_kinds import page_markdown as page_markdown
    from fairjudge.report._markdown_kinds import ranking_markdown as ranking_markdown
    from fairjudge.report._markdown_kinds import via_scores_markdown as via_scores_markdown
    from fairjudge.report._page import page_html as page_html
    from fairjudge.report._page_audit import audit_page as audit_page
    from fairjudge.report._page_audit import audit_payload as audit_payload
    from fairjudge.report._page_panel import jury_html as jury_html
    from fairjudge.report._page_panel import score_jury_html as score_jury_html
    from fairjudge.report._page_score import score_page as score_page
    from fairjudge.report._pages import PAGES as PAGES
    from fairjudge.report._pages import out_file_header as out_file_header
    from fairjudge.report._pages import out_file_page as out_file_page
    from fairjudge.report._ranking import RankingReport
    from fairjudge.report._ranking import render_ranking as render_ranking
    from fairjudge.report._score_jury import render_score_jury as render_score_jury
    from fairjudge.report._score_jury import score_jury_report as score_jury_report
    from fairjudge.report._scores import ScoreReport
    from fairjudge.report._scores import render_score_calibration as render_score_calibration
    from fairjudge.report._scores import render_scores as render_scores
    from fairjudge.report._scores import render_via_scores as render_via_scores
    from fairjudge.report._scores import score_report as score_report
    from fairjudge.report._text import print_failures as print_failures
    from fairjudge.report._text import visible as visible

# Every name loads on first use (PEP 562): a command imports only the report it shows.
# Where each lazy name lives, for __getattr__; the TYPE_CHECKING imports above name the
# same for the type checker (tests/test_lazy.py keeps the two lists equal).
_LAZY = {
    "render_audit": "fairjudge.report._audit",
    "calibration_payload": "fairjudge.report._calibration",
    "render_calibration": "fairjudge.report._calibration",
    "ComparisonReport": "fairjudge.report._comparison",
    "comparison_report": "fairjudge.report._comparison",
    "render_comparison": "fairjudge.report._comparison",
    "comparison_html": "fairjudge.report._html",
    "ranking_html": "fairjudge.report._html",
    "write_html": "fairjudge.report._html",
    "load_results": "fairjudge.report._html_load",
    "JuryReport": "fairjudge.report._jury",
    "jury_report": "fairjudge.report._jury",
    "render_jury": "fairjudge.report._jury",
    "LabelServer": "fairjudge.report._label_server",
    "comparison_markdown": "fairjudge.report._markdown_kinds",
    "markdown_of": "fairjudge.report._markdown_kinds",
    "page_markdown": "fairjudge.report._markdown_kinds",
    "ranking_markdown": "fairjudge.report._markdown_kinds",
    "via_scores_markdown": "fairjudge.report._markdown_kinds",
    "page_html": "fairjudge.report._page",
    "audit_page": "fairjudge.report._page_audit",
    "audit_payload": "fairjudge.report._page_audit",
    "jury_html": "fairjudge.report._page_panel",
    "score_jury_html": "fairjudge.report._page_panel",
    "score_page": "fairjudge.report._page_score",
    "PAGES": "fairjudge.report._pages",
    "out_file_header": "fairjudge.report._pages",
    "out_file_page": "fairjudge.report._pages",
    "RankingReport": "fairjudge.report._ranking",
    "render_ranking": "fairjudge.report._ranking",
    "render_score_jury": "fairjudge.report._score_jury",
    "score_jury_report": "fairjudge.report._score_jury",
    "ScoreReport": "fairjudge.report._scores",
    "render_score_calibration": "fairjudge.report._scores",
    "render_scores": "fairjudge.report._scores",
    "render_via_scores": "fairjudge.report._scores",
    "score_report": "fairjudge.report._scores",
    "print_failures": "fairjudge.report._text",
    "visible": "fairjudge.report._text",
}
__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "ComparisonReport",
    "JuryReport",
    "RankingReport",
    "ScoreReport",
    "comparison_report",
    "load_results",
    "write_html",
]


__dir__ = module_dir(globals(), __all__)

publish(globals())  # each public name reports this namespace (see fairjudge._lazy.publish)
