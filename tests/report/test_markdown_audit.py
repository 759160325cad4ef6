"""``audit --markdown``: a process against the scripted server, and the report card's page.

The summary's bold line is the audit's headline (the sentence the page and ``--json``
carry; the terminal prints the card itself); its counts are the ``--json`` numbers,
failed calls apart.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fairjudge.audit import AuditSettings, audit
from fairjudge.report._markdown import page_markdown
from fairjudge.report._page_audit import audit_page, audit_payload
from tests.audit.conftest import audit_server, plant  # noqa: F401  (a fixture, used by name)
from tests.audit.planted import Planted
from tests.cli_process import run_process
from tests.report._markdown_read import counts, read
from tests.report.audit_judges import PlantedAuditJudge
from tests.report.test_page_audit import hostile_items
from tests.server import JudgeServer


def test_audit_summary_is_its_headline_and_json_counts(
    audit_server: JudgeServer,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    plant(audit_server, Planted(first_share=0.5))
    args = ["audit", "--judge", "openai/scripted-judge", "--base-url", audit_server.base_url,
            "--store", str(tmp_path / "store.sqlite"), "--quiet", "--bootstrap", "200",
            "--limit", "6", "--experiments", "position,verbosity"]  # fmt: skip
    env = {**os.environ, "COLUMNS": "1000"}
    shown, saved = tmp_path / "shown.md", tmp_path / "saved.md"
    terminal = run_process([*args, "--markdown", str(shown)], env=env)
    assert terminal.returncode == 0, terminal.stderr
    as_json = run_process([*args, "--json", "--markdown", str(saved)], env=env)
    assert as_json.returncode == 0, as_json.stderr
    payload = json.loads(as_json.stdout)
    md = shown.read_text("utf-8")
    seen = read(md)
    # The terminal prints the card, not a sentence: the conclusion is the one the
    # page and --json carry as "headline".
    assert seen.bold == [payload["headline"]]
    table = counts(md)
    assert table["items"] == str(payload["n_items"])
    assert table["calls"] == str(payload["n_calls"])
    assert table["calls without a reading (parse failures and call errors)"] == str(
        payload["n_failed"]
    )
    # The second run's calls come from the store: the same figures, the same summary.
    assert counts(saved.read_text("utf-8")) == table
    card = seen.tables[1]
    assert card[0] == ["bias", "verdict", "note"]
    assert [row[0] for row in card[1:]] == ["position", "verbosity", "framing", "self-preference"]
    assert card[1][1] == "severe"  # the planted position bias: every first call says A
    assert [row[1] for row in card[3:]] == ["skipped", "skipped"]  # not asked for


def test_failed_audit_calls_are_counted_and_hostile_text_stays_text() -> None:
    judge = PlantedAuditJudge(name="python/planted <script>|x", first_share=0.4)
    report = audit(judge, hostile_items(), settings=AuditSettings(n_resamples=200))
    payload = audit_payload(report, 0)
    md = page_markdown(audit_page(report, calls_made=0, summary=payload))
    seen = read(md)
    assert seen.bold == [payload["headline"]]
    assert payload["n_failed"] > 0  # the [parse] and [error] items' calls
    assert counts(md)["calls without a reading (parse failures and call errors)"] == str(
        payload["n_failed"]
    )
    assert "<script>" not in md
    assert not seen.token_types & {"link_open", "html_inline", "html_block", "code_inline"}
