"""The audit's page in headless Chromium: the report card a reader sees, and what it resists.

The audits run on Python audit judges with planted biases (tests/report/audit_judges.py:
no model, no server), except the command-line test, which runs ``audit --html --out``
against the scripted server on 127.0.0.1 as the audit's own CLI tests do. Hostile
text sits in every place the page shows a user's text: the answers (and so the padded
example), the question, the category, the judge's name, a parse failure's reply and a
call error's message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairjudge.audit import AuditReport, AuditSettings, audit, builtin_items
from fairjudge.audit._audit_items import AuditItem
from fairjudge.cli import app
from fairjudge.report import visible
from fairjudge.report._page import page_html
from fairjudge.report._page_audit import audit_page, audit_payload
from fairjudge.report._page_audit_model import FLAGS
from fairjudge.report._pages import out_file_page
from tests.audit.conftest import audit_server, plant  # noqa: F401  (a fixture, used by name)
from tests.audit.planted import Planted
from tests.report import pages
from tests.report.audit_judges import ERROR_TEXT, PARSE_TEXT, PlantedAuditJudge
from tests.report.conftest import ARTIFACTS, OpenReport
from tests.server import JudgeServer

SCRIPT = "<script>window.__pwned = 1</script>"
ONERROR = '<img src=x onerror="window.__pwned = 1">'
BIDI = "safe\u202egnp.exe"
SETTINGS = AuditSettings(n_resamples=200)


def hostile_items() -> list[AuditItem]:
    """Hostile pairs first (the padded example is the first item's), then the suite."""
    return [
        AuditItem(f"Which is right {SCRIPT}?", f"This one {ONERROR}. It is short.",
                  other=f"That one {BIDI}.", id="hostile-1", category=f"cat {SCRIPT}"),
        AuditItem("Reply without a verdict [parse]?", "Yes.", other="No.", id="hostile-parse",
                  category=f"cat {BIDI}"),
        AuditItem("A call that fails [error]?", "Up.", other="Down.", id="hostile-error"),
        *builtin_items(),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def report() -> AuditReport:
    judge = PlantedAuditJudge(name=f"python/planted {ONERROR}", first_share=0.4)
    return audit(judge, hostile_items(), settings=SETTINGS)


@pytest.fixture(scope="module")
def page_file(report: AuditReport, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit") / "audit.html"
    path.write_text(page_html(audit_page(report, calls_made=12)), "utf-8")
    return path


def _spec(path: Path) -> dict[str, Any]:
    spec: dict[str, Any] = pages.embedded(path, "fj-explorer-spec")
    return spec


def test_audit_page_in_chromium(
    open_report: OpenReport, page_file: Path, report: AuditReport
) -> None:
    payload = audit_payload(report, 12)
    assert pages.embedded(page_file, "fj-summary") == payload  # the --json, exact
    for width in pages.WIDTHS:
        opened = pages.open_at(open_report, page_file, width)
        pages.assert_sound(opened)
        assert pages.verdict(opened) == visible(payload["headline"])
        assert payload["headline"].startswith("Severe ")
        page = opened.page
        assert page.evaluate("() => window.__pwned") is None
        text = page.inner_text("body")
        assert ONERROR in text  # the judge's name and the answer, shown as text
        assert SCRIPT in text  # the question and the category
        assert "safe⟨U+202E⟩gnp.exe" in text
        assert "\u202e" not in text
        # Every run experiment has its forest plot, one row per effect, coloured by verdict.
        ran = [e for e in report.experiments if e.skipped is None]
        rows = page.locator("svg .fj-prow")
        assert rows.count() == sum(len(e.effects) + len(e.residual) for e in ran)
        assert page.locator("svg .fj-prow.fj-v-severe").count() == sum(
            e.verdict == "severe" for x in ran for e in (*x.effects, *x.residual)
        )
        # The padded example: the concise answer whole and unmarked, the additions marked.
        padded = page.locator(".fj-marked").nth(1)
        assert padded.locator("mark").count() > 2
        unmarked = padded.evaluate(
            "p => [...p.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join('')"
        )
        assert f"This one {ONERROR}. It is short." in unmarked
        # The position card's three measures, and the verdict rule one click away.
        assert page.locator("#fj-position-table-1 tbody tr").count() == 3
        rule = page.locator("details.fj-details").first
        assert not rule.evaluate("d => d.open")
        rule.locator("summary").click()
        assert "negligible: under 0.05" in rule.inner_text()


def test_readme_picture_of_a_plain_audit(open_report: OpenReport, tmp_path: Path) -> None:
    # The README's picture: the built-in suite, a judge with planted position and
    # verbosity biases, no hostile text (that page is checked above, not pictured). The
    # command line audits model judges only, and the embedded one takes tens of minutes
    # on the suite, hence the planted judge; every one of its calls was made, none stored.
    plain = audit(PlantedAuditJudge(name="python/planted-judge", first_share=0.3),
                  settings=SETTINGS)  # fmt: skip
    path = tmp_path / "audit.html"
    path.write_text(page_html(audit_page(plain, calls_made=plain.n_calls)), "utf-8")
    saved = pages.screenshots(open_report, path, "audit", docs=True)
    assert [p.name for p in saved[:2]] == ["audit-390.png", "audit-1440.png"]


def test_every_filter_counts_what_the_records_hold(
    open_report: OpenReport, page_file: Path, report: AuditReport
) -> None:
    found = pages.records(page_file)
    spec = _spec(page_file)
    position = next(e for e in report.experiments if e.bias == "position")
    assert len(found) == position.n_items == len(hostile_items())
    expected = pages.expected_counts(found, spec)
    assert set(expected) == {k for k, _ in FLAGS}
    assert expected["failed"] == 2  # the [parse] and [error] pairs
    flip = next(e for e in position.effects if e.name == "flip rate")
    assert flip.estimate is not None
    assert expected["followed"] == round(flip.estimate * flip.n)
    opened = pages.open_at(open_report, page_file, pages.DESKTOP)
    assert pages.shown_counts(opened) == expected
    for facet in ("category", "outcome"):
        assert pages.shown_facets(opened, facet) == dict(pages.expected_facets(found, facet))
    page = opened.page
    page.check('.fj-filter[data-filter="failed"]')
    assert opened.count() == 2
    for row, text in ((0, PARSE_TEXT), (1, visible(ERROR_TEXT))):  # the reply, the error
        page.locator("#fj-list li").nth(row).click()
        assert text in (page.text_content("#fj-detail") or "")
    assert page.evaluate("() => window.__pwned") is None


def test_keys_and_permalinks_open_a_pair_and_its_hostile_text_stays_text(
    open_report: OpenReport, page_file: Path
) -> None:
    opened = pages.open_at(open_report, page_file, pages.DESKTOP)
    assert pages.explorer_keys(opened) == "#item=hostile-error"  # the list's third pair
    detail = opened.page.text_content("#fj-detail") or ""
    assert visible(ERROR_TEXT) in detail  # the call error's message, as text
    again = pages.open_at(open_report, page_file, pages.PHONE, fragment="#item=hostile-1")
    detail = again.page.text_content("#fj-detail") or ""
    assert f"This one {ONERROR}. It is short." in detail
    assert "That one safe⟨U+202E⟩gnp.exe." in detail
    assert again.page.evaluate("() => window.__pwned") is None
    assert pages.sideways_scroll(again) == 0


def test_an_effect_that_cannot_be_estimated_shows_its_reason_and_no_point(
    open_report: OpenReport, tmp_path: Path
) -> None:
    one = audit(PlantedAuditJudge(), [AuditItem("q?", "a.", other="b.", id="only")],
                experiments=["position"], settings=SETTINGS)  # fmt: skip
    flip = next(e for e in one.experiments[0].effects if e.name == "flip rate")
    assert flip.verdict == "not estimable"
    assert flip.ci.reason is not None
    path = tmp_path / "one.html"
    path.write_text(page_html(audit_page(one, calls_made=2)), "utf-8")
    opened = pages.open_at(open_report, path, pages.PHONE)
    pages.assert_sound(opened)
    row = opened.page.locator("svg .fj-prow.fj-noci").filter(has_text="flip rate")
    assert row.count() == 1
    assert row.locator("circle").count() == 0
    assert row.locator("line.fj-ci").count() == 0
    drawn = "".join(row.locator("text").all_text_contents()).replace(" ", "")
    assert ("not estimable: " + flip.ci.reason).replace(" ", "") in drawn


def test_ten_thousand_pairs_load_and_filter(open_report: OpenReport, tmp_path: Path) -> None:
    items = [AuditItem(f"Question {i}: what is {i} + {i}?", f"It is {2 * i}.",
                       other=f"It is {2 * i + 1}, surely.", id=f"q{i}", category=f"c{i % 7}")
             for i in range(10_000)]  # fmt: skip
    big = audit(PlantedAuditJudge(first_share=0.3), items, experiments=["position"],
                settings=AuditSettings(n_resamples=100))  # fmt: skip
    path = tmp_path / "audit-10000.html"
    path.write_text(page_html(audit_page(big, calls_made=20_000)), "utf-8")
    seconds = pages.time_to_interactive(open_report, path)
    size = path.stat().st_size
    note = f"audit page, 10,000 pairs: {size / 1e6:.1f} MB, interactive in {seconds:.2f} s"
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "audit-10000.txt").write_text(note + "\n")  # for the closing note
    print(note)
    opened = pages.open_at(open_report, path, pages.PHONE)
    pages.assert_sound(opened)
    assert opened.count() == 10_000
    found = pages.records(path)
    assert pages.shown_counts(opened) == pages.expected_counts(found, _spec(path))
    assert opened.page.locator(".fj-list li").count() == 50


runner = CliRunner()


def test_audit_html_and_the_report_of_its_out_file_show_the_json(
    audit_server: JudgeServer,  # noqa: F811  (the fixture imported above)
    open_report: OpenReport,
    tmp_path: Path,
) -> None:
    plant(audit_server, Planted(first_share=0.5))
    out, html = tmp_path / "audit.jsonl", tmp_path / "audit.html"
    args = ["audit", "--judge", "openai/scripted-judge", "--base-url", audit_server.base_url,
            "--store", str(tmp_path / "store.sqlite"), "--quiet", "--bootstrap", "200",
            "--limit", "6", "--experiments", "position,verbosity", "--out", str(out),
            "--html", str(html), "--json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert pages.embedded(html, "fj-summary") == payload
    opened = pages.open_at(open_report, html, pages.PHONE)
    pages.assert_sound(opened)
    assert pages.verdict(opened) == visible(payload["headline"])
    facts = opened.page.inner_text("#fj-run")
    assert "openai/scripted-judge" in facts
    assert f"{payload['calls_made']} made" in facts
    drawn = out_file_page(out, "audit")  # what `fairjudge report FILE` draws
    assert dict(drawn.summary) == payload
    assert drawn.headline.verdict == payload["headline"]
    again = tmp_path / "again.html"
    result = runner.invoke(app, ["report", str(out), "-o", str(again)])
    assert result.exit_code == 0, result.stderr
    assert pages.embedded(again, "fj-summary") == payload
    assert pages.embedded(again, "fj-records") == pages.embedded(html, "fj-records")
    reopened = pages.open_at(open_report, again, pages.DESKTOP)
    pages.assert_sound(reopened)
    assert pages.verdict(reopened) == visible(payload["headline"])


def test_html_is_checked_writable_before_any_call(
    audit_server: JudgeServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    plant(audit_server, Planted())
    args = ["audit", "--judge", "openai/scripted-judge", "--base-url", audit_server.base_url,
            "--store", str(tmp_path / "store.sqlite"), "--quiet", "--limit", "2",
            "--html", str(tmp_path)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert f"--html {tmp_path}: is a folder" in result.stderr
    assert audit_server.count("requests") == 0
    same = tmp_path / "same.out"
    result = runner.invoke(app, [*args[:-2], "--out", str(same), "--html", str(same)])
    assert result.exit_code == 2
    assert "--out and --html both name" in result.stderr
    assert audit_server.count("requests") == 0
