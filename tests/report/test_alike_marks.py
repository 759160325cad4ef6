"""Pages and Markdown show the "all alike" mark the terminal and ``--json`` show.

A figure whose questions all gave the same value has a point interval no resample
could move (``ConfidenceInterval.cannot_vary``): the score page's shift since a
baseline and the audit's card, verdict rules and headline say so, and no verdict
(a system "higher", a "fell by") is read from it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import fairjudge
from fairjudge.audit import AuditReport, AuditSettings, Effect, audit
from fairjudge.evaluation import ScoreRun
from fairjudge.report import score_page
from fairjudge.report._markdown import page_markdown
from fairjudge.report._page import page_html
from fairjudge.report._page_audit import audit_page
from fairjudge.report._page_audit_model import rule_text, verdict_sentence
from fairjudge.stats import ConfidenceInterval
from tests.report import pages
from tests.report.audit_judges import PlantedAuditJudge
from tests.report.conftest import OpenReport

MARK = "(all alike, the bootstrap cannot vary)"
ANSWERS = Path(fairjudge.__file__).parent / "examples" / "score_answers.jsonl"


def _table_rows(markdown: str, caption: str) -> list[str]:
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if caption in line)
    rows = []
    for line in lines[start + 1 :]:
        if rows and not line.startswith("|"):
            break
        if line.startswith("|"):
            rows.append(line)
    return rows[2:]  # past the header and its rule


def test_the_score_pages_shift_since_an_identical_baseline_is_marked() -> None:
    from fairjudge.examples.judges import scorer

    before = fairjudge.score(str(ANSWERS), scorer)
    now = fairjudge.score(str(ANSWERS), scorer, baseline=ScoreRun.from_result(before.result))
    report = now.report
    trend = report.trend
    assert trend is not None
    page = score_page(report)
    markdown = page_markdown(page)
    rows = _table_rows(markdown, "Shift since the baseline")
    assert len(rows) == len(trend.dimensions) == 3
    for row, d in zip(rows, trend.dimensions, strict=True):
        assert f"+0.00 \\[0.00, 0.00\\] {MARK}" in row  # the shift cell, marked
        assert "cannot tell from noise" in row
        assert d.to_dict()["reading"] in row.replace("\\", "")
    assert "since the baseline" not in " ".join(page.headline.warnings)  # nothing "fell"


def _alike_report() -> AuditReport:
    """A position audit whose effects were all alike on every question."""
    real = audit(PlantedAuditJudge(first_share=0.4), experiments=["position"],
                 settings=AuditSettings(n_resamples=100))  # fmt: skip
    why = "all 40 questions have a mean of 2, so every resample gives it"
    ci = ConfidenceInterval.alike_point(2.0, 0.95, why)
    alike = Effect.of("score gap", 2.0, ci, null=0.0, unit="points", scale=4.0, n=40)
    (position,) = [e for e in real.experiments if e.skipped is None]
    experiments = tuple(
        replace(e, effects=(alike,), residual=()) if e is position else e for e in real.experiments
    )
    return replace(real, experiments=experiments)


def test_an_alike_effects_rule_says_why_not_that_it_is_small() -> None:
    report = _alike_report()
    (effect,) = next(e for e in report.experiments if e.skipped is None).effects
    assert effect.verdict == "uncertain"
    rule = rule_text(effect)
    assert rule.startswith(f"uncertain: +2.000 is 0.500 of the scale (4) from no bias (0); its "
                           f"95% interval is [2.000, 2.000] {MARK}; every question gave the "
                           "same value, so the bootstrap could not vary")  # fmt: skip
    assert "the estimate is small" not in rule


def test_the_audits_headline_card_and_markdown_say_all_alike() -> None:
    report = _alike_report()
    sentence = verdict_sentence(report)
    assert sentence == (
        "No notable or severe bias shown, but 1 of 1 effects are uncertain: 1 of them all "
        "alike (every question gave the same value, so the bootstrap could not vary and no "
        "verdict is read from them)."
    )
    markdown = page_markdown(audit_page(report, calls_made=0))
    card = [r for r in _table_rows(markdown, "Verdict per experiment") if "| position |" in r]
    assert card == [f"| position | uncertain | worst: score gap {MARK} |"]
    assert sentence in markdown


def test_a_measured_uncertain_effect_keeps_its_sentence() -> None:
    measured = Effect.of("gap", 0.1, ConfidenceInterval(-0.01, 0.2), null=0.0, unit="share", n=40)
    report = _alike_report()
    experiments = tuple(
        replace(e, effects=(measured,)) if e.skipped is None else e for e in report.experiments
    )
    sentence = verdict_sentence(replace(report, experiments=experiments))
    assert sentence.endswith("effects are uncertain: their intervals cannot tell them from none.")
    assert rule_text(measured).endswith(
        "covers no bias: the data cannot tell the effect from none."
    )


def test_the_audit_page_shows_the_mark_in_chromium(open_report: OpenReport, tmp_path: Path) -> None:
    report = _alike_report()
    path = tmp_path / "audit.html"
    path.write_text(page_html(audit_page(report, calls_made=0)), "utf-8")
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, path, width)
        pages.assert_sound(opened)
        assert pages.verdict(opened) == verdict_sentence(report)
        card = opened.page.eval_on_selector(
            "#fj-card-table", "t => Array.from(t.tBodies[0].rows, r => r.textContent)"
        )
        assert any("uncertain" in row and f"worst: score gap {MARK}" in row for row in card)
        rules = opened.page.eval_on_selector_all(
            "details", "ds => ds.map(d => d.textContent).join(' ')"
        )
        assert "every question gave the same value, so the bootstrap could not vary" in rules
