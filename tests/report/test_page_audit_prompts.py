"""The audit page's run facts name the prompts the experiments that ran read (QA 38 #16).

They listed "rubrics basic, strict, anti-verbose" whatever ran: a position-only audit
read none of them (and the verbosity experiment's concise template was never named).
"""

from __future__ import annotations

from fairjudge.audit import AuditReport, AuditSettings, ExperimentResult
from fairjudge.report import audit_page, page_html
from fairjudge.report._page_audit_model import prompts_used


def _report(*ran: str, settings: AuditSettings | None = None) -> AuditReport:
    biases = ("position", "verbosity", "framing", "self-preference")
    experiments = tuple(
        ExperimentResult(b, "j", n_items=1, n_calls=2)
        if b in ran
        else ExperimentResult(b, "j", skipped="not requested")
        for b in biases
    )
    return AuditReport(("j",), experiments, 1, "built-in suite", settings or AuditSettings())


def test_only_what_ran_is_named() -> None:
    assert prompts_used(_report("position")) == "default (pairwise)"
    assert prompts_used(_report("verbosity")) == (
        "default, concise (pairwise); rubrics basic, anti-verbose"
    )
    assert prompts_used(_report("framing")) == "rubrics basic, strict"
    assert prompts_used(_report("self-preference")) == "rubrics basic"
    assert prompts_used(_report()) == "none: no experiment ran"
    every = _report("position", "verbosity", "framing", "self-preference",
                    settings=AuditSettings(framing_templates=("default", "concise")))  # fmt: skip
    assert prompts_used(every) == (
        "default, concise (pairwise); rubrics basic, anti-verbose, strict"
    )


def test_the_page_of_a_position_audit_names_no_rubric() -> None:
    page = page_html(audit_page(_report("position")))
    assert "<dd>default (pairwise)</dd>" in page
    assert "rubrics basic, strict, anti-verbose" not in page  # the old run facts
