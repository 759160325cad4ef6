"""The view of a ``jury`` run: a panel whose members read verdicts.

Made from the :class:`~fairjudge.report._jury.JuryReport` the table and ``--json``
render, so the page's numbers are theirs: the headline is ``jury``'s verdict line
(or the adaptive stop's) with model 1's win rate by the panel and, under it, the
known truth: the sentences the table prints under the verdict.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fairjudge.report._adaptive import ci_mark, stop_facts, stop_verdict, stop_warnings
from fairjudge.report._comparison import FAILURES_CARD, labelled_truth, verdict_line
from fairjudge.report._jury import JuryReport
from fairjudge.report._page import Headline
from fairjudge.report._page_panel_view import (
    FigureSet,
    Matrix,
    PanelFacts,
    PanelView,
    effective_figure,
    failure_rows,
    figure,
    jury_records,
    jury_spec,
    missing,
    rate_figure,
    roster_lines,
)
from fairjudge.report._panel import member_label
from fairjudge.report._text import ci_text

__all__ = ["jury_view"]

_NO_ITEM = "no item was resolved by every member"


def _headline(report: JuryReport) -> Headline:
    r = report.result
    w = r.win_rate
    warnings: list[str] = []
    if r.stopped is not None:
        warnings.append(f"Partial result: {r.stopped}")
    if report.adaptive is not None:
        warnings += stop_warnings(report.adaptive)
    verdict = stop_verdict(report.adaptive) or verdict_line(
        w, failed=bool(report.failures), stopped=r.stopped, n_items=r.n_items,
        subject="the panel", failures_at=FAILURES_CARD,
    )  # fmt: skip
    if w is None:
        return Headline(verdict, warnings=tuple(warnings))
    mark = ci_mark(report.adaptive)
    note = f"{round(w.ci.level * 100)}% CI; n = {w.n} items; W/T/L {w.wins}/{w.ties}/{w.losses}"
    note = f"{note}; {mark}" if mark else note
    # The known truth belongs with the conclusion it checks, in the headline's card.
    pairs = [(j.item, j.outcome) for j in r.judgments]
    truth = labelled_truth(pairs, w, "The panel's result")
    return Headline(
        verdict=verdict,
        label=f"Win rate of model 1 by the panel ({r.aggregation} of {len(r.names)} members)",
        estimate=f"{w.estimate:.3f}" if w.ci.estimable else "not estimated",
        ci=ci_text(w.ci) if w.ci.estimable else f"({w.ci.reason})",
        note=" ".join([f"{note}.", *truth]) if truth else note,
        warnings=tuple(warnings),
    )


def _matrix(report: JuryReport) -> Matrix:
    diag = report.diagnostics
    cells = tuple(tuple(None if math.isnan(x) else x for x in row) for row in diag.agreement)
    return Matrix(
        title="Share of items on which two members gave the same vote",
        labels=tuple(member_label(k) for k in range(len(report.result.names))),
        cells=cells,
        low=0.0,
        high=1.0,
        reason=_NO_ITEM,
        note=f"Over the {diag.n_complete} items every member resolved; 1 on the diagonal.",
    )


def _member_plots(report: JuryReport) -> tuple[FigureSet, ...]:
    members = report.diagnostics.members
    labels = [f"{member_label(k)} {m.name}" for k, m in enumerate(members)]
    position = tuple(
        rate_figure(label, m.position_consistency, "no resolved item was shown in both orders")
        for label, m in zip(labels, members, strict=True)
    )
    rest = tuple(
        rate_figure(label, m.agreement_with_panel, _NO_ITEM)
        for label, m in zip(labels, members, strict=True)
    )
    human = []
    for label, m in zip(labels, members, strict=True):
        h = m.human
        if h is None:
            human.append(missing(label, "the items carry no human labels"))
            continue
        kappa = "n/a" if math.isnan(h.kappa) else f"{h.kappa:.3f}"
        note = f"{h.s1.count} of {h.s1.n} agree; Cohen's kappa {kappa}"
        human.append(figure(label, h.s1.estimate, h.s1.ci, note))
    unit = (0.0, 1.0)
    return (
        FigureSet("Position consistency: share of items whose verdict survived the swap",
                  position, unit, 1.0, "1: always consistent"),
        FigureSet("Agreement with the rest of the panel (leave-one-out)", rest, unit, None, "",
                  "A member's vote against the others' aggregate under the same rule: a "
                  "dissenter shows up low."),
        FigureSet("Agreement with the human labels (S1: ties included)", tuple(human), unit),
    )  # fmt: skip


def _panel_plots(report: JuryReport) -> tuple[FigureSet, ...]:
    diag, n = report.diagnostics, len(report.result.names)
    fleiss = diag.fleiss
    if isinstance(fleiss, str):
        kappa = missing("Fleiss' kappa of the members' votes", fleiss)
    else:
        note = f"{fleiss.n_items} items, {fleiss.n_raters} members"
        kappa = figure("Fleiss' kappa of the members' votes", fleiss.kappa, fleiss.ci, note)
    effective = effective_figure("Effective number of judges", diag.effective)
    return (
        FigureSet("How much the members agree", (kappa,), (-1.0, 1.0), 0.0, "0: chance"),
        FigureSet(
            f"Effective number of independent judges, against the panel's {n}",
            (effective,), (0.0, n + 0.5), float(n), f"panel size: {n}",
            "Three copies of one judge count as one; n members that never agree "
            "beyond chance count as n.",
        ),
    )  # fmt: skip


def _facts(report: JuryReport) -> PanelFacts:
    r, diag, run = report.result, report.diagnostics, report.run
    s = r.settings
    extra = [
        ("aggregation", r.aggregation),
        ("rule", f"{s.rule.value}, {s.rounds} round(s)"),
        ("bootstrap", f"{s.n_resamples} resamples, {round(s.level * 100)}% intervals"),
        ("items", f"{r.n_items - r.n_unresolved} of {r.n_items} resolved by every member"),
        ("failed calls", str(sum(m.failed for m in diag.members))),
    ]
    if r.stopped is not None:
        extra.append(("stopped", r.stopped))
    if report.adaptive is not None:
        extra += stop_facts(report.adaptive)
    return PanelFacts(
        members=", ".join(r.names),
        template_or_rubric=s.template,
        seed=s.seed,
        # Without a run summary (Python members, a file read back), every call recorded
        # and not served from the store was made.
        calls_made=run.made if run is not None else sum(m.calls - m.cached for m in diag.members),
        calls_cached=run.cached if run is not None else sum(m.cached for m in diag.members),
        cost=run.cost_usd if run is not None else None,
        extra=tuple(extra),
    )


def jury_view(report: JuryReport, *, summary: Mapping[str, Any] | None = None) -> PanelView:
    """The page of a ``jury`` run.

    Args:
        report: The jury's report.
        summary: The JSON to embed; by default the report's own ``to_dict()``, which
            ``jury --json`` prints.
    """
    r = report.result
    n_complete = report.diagnostics.n_complete
    return PanelView(
        kind="jury",
        title=report.title,
        headline=_headline(report),
        findings=(),  # the known truth is in the headline
        roster=roster_lines(r.names, r.weights),
        matrices=(_matrix(report),),
        member_plots=_member_plots(report),
        panel_plots=_panel_plots(report),
        notes=(
            f"Every figure uses the {n_complete} items every member resolved; an item a "
            "member could not resolve is unresolved for the panel, never guessed.",
        ),
        facts=_facts(report),
        failures=failure_rows(report.failures),
        records=tuple(jury_records(r)),
        spec=jury_spec(),
        summary=dict(summary) if summary is not None else report.to_dict(),
    )
