"""A jury's kappa against the humans, undefined: ``n/a`` and why, never ``nan``.

When the panel (or a member) and the humans gave every item one label, chance
agreement is 1 and Cohen's kappa has no value. ``--json`` has it ``null`` and the page
``n/a``; the terminal's "panel vs humans (S1 / kappa)" cell and the members table's
"vs humans S1 / kappa" column printed ``1.000 / nan``. They now print ``n/a`` with the
reason, in calibrate's words; a defined kappa prints as before.
"""

from __future__ import annotations

import re

from rich.console import Console

from fairjudge import Item, Outcome
from fairjudge.evaluation import EvalSettings, evaluate_jury
from fairjudge.judges import CallableJudge, Jury, JuryMember
from fairjudge.report._jury import jury_report, render_jury
from fairjudge.report._markdown import markdown_of

SETTINGS = EvalSettings(n_resamples=100, seed=1)
WHY = (
    "undefined: both raters gave every item the label '2', so chance agreement is 1 and "
    "kappa, agreement beyond chance, has no value"
)


def longer(question: str, answer_a: str, answer_b: str) -> str:
    return "A" if len(answer_a) > len(answer_b) else "B"  # always answer 2 here


def _report(humans: list[str]) -> object:
    items = [Item(f"q{i}", "short", "a longer answer", id=str(i), human=Outcome(h))
             for i, h in enumerate(humans)]  # fmt: skip
    panel = Jury([JuryMember(f"m{k}", CallableJudge(longer)) for k in range(2)])
    result = evaluate_jury(panel, items, SETTINGS, aggregation="majority")
    return jury_report(result, title="undefined kappa")


def _text(report: object) -> str:
    console = Console(width=400, record=True, color_system=None)
    render_jury(report, console)  # type: ignore[arg-type]
    return console.export_text()


def test_an_undefined_kappa_prints_na_with_why_in_both_tables() -> None:
    report = _report(["2"] * 12)
    human = report.diagnostics.human  # type: ignore[attr-defined]
    assert human.to_dict()["kappa"] is None
    text = _text(report)
    assert not re.search(r"\bnan\b", text)
    cell = f"1.000 / n/a ({WHY})"
    panel_row = next(x for x in text.splitlines() if "panel vs humans (S1 / kappa)" in x)
    assert cell in panel_row
    member_rows = [x for x in text.splitlines() if re.match(r"│ #\d ", x) and cell in x]
    assert len(member_rows) == 2  # each member against the humans, in the members table
    assert not re.search(r"\bnan\b", markdown_of(report))  # the page's n/a, unchanged


def test_a_defined_kappa_prints_as_before() -> None:
    report = _report(["2"] * 9 + ["1"] * 3)
    kappa = report.diagnostics.human.kappa  # type: ignore[attr-defined]
    assert kappa == 0.0  # one rater gave one label: chance agreement 3/4, a defined 0
    row = next(x for x in _text(report).splitlines() if "panel vs humans" in x)
    assert "0.750 / 0.000 " in row + " "
