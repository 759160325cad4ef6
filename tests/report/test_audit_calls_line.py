"""The audit's calls line never says the store answered calls a budget stopped (QA 38 #8).

``audit --max-calls 0`` said "calls: 0 asked for; 0 made now, all from the store" and
then "2 not run": a stopped audit's count of calls asked for covers only the
experiments that finished, so the rest of the calls are not "from the store".
"""

from __future__ import annotations

import io

from rich.console import Console

from fairjudge.audit import AuditReport, ExperimentResult
from fairjudge.report import render_audit

STOP = "the --max-calls 0 budget is spent: 0 calls made in this session, 2 not run"


def _line(report: AuditReport, made: int) -> str:
    out = io.StringIO()
    render_audit(report, Console(file=out, width=500), calls_made=made)
    (line,) = [x for x in out.getvalue().splitlines() if x.startswith("calls: ")]
    return line.split(". Verdicts")[0]


def _report(stopped: str | None, *experiments: ExperimentResult) -> AuditReport:
    return AuditReport(("j",), experiments, 1, "built-in suite", stopped=stopped)


def test_a_stopped_audit_does_not_credit_the_store() -> None:
    stopped = ExperimentResult("position", "j", skipped=f"stopped: {STOP}")
    line = _line(_report(STOP, stopped), 0)
    assert "from the store" not in line
    assert line == (
        "calls: 0 asked for by the experiments that finished; 0 made now, the stopped one's "
        "included"
    )


def test_a_whole_audit_says_as_before() -> None:
    done = ExperimentResult("position", "j", n_items=1, n_calls=2)
    assert _line(_report(None, done), 0) == "calls: 2 asked for; 0 made now, all from the store"
    assert _line(_report(None, done), 2) == "calls: 2 asked for; all made now"
    assert _line(_report(None, done), 1) == "calls: 2 asked for; 1 made now, 1 from the store"
    none = ExperimentResult("position", "j", skipped="not requested")
    assert _line(_report(None, none), 0) == "calls: 0 asked for; none made"
