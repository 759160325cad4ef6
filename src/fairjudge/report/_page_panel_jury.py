"""The views of the two panels' pages: ``jury`` (verdicts) and ``score-jury`` (scores).

Each is made from the report the table and ``--json`` render
(:class:`~fairjudge.report._jury.JuryReport`, :class:`~fairjudge.report._jury.JuryScoreReport`),
so the page's numbers are theirs. A jury's headline is its verdict line (or the
adaptive stop's) with model 1's win rate by the panel, the known truth under it. A
scoring panel's says in one sentence on which dimensions the members agree, by the
rule of the table's conclusions (the whole interval of the ordinal alpha against
Krippendorff's bar); its member × member matrix of a dimension is the correlation
matrix the effective number of judges is computed from. A score has no position, so
that page says position consistency does not apply instead of drawing an empty plot.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import fairjudge.report._page as kit
from fairjudge._types import never_made
from fairjudge.report._adaptive import ci_mark, stop_facts, stop_verdict, stop_warnings
from fairjudge.report._comparison import (
    FAILURES_ABOVE,
    FAILURES_CARD,
    labelled_truth,
    verdict_line,
)
from fairjudge.report._jury import (
    AGREEMENT_BAR,
    JuryReport,
    JuryScoreReport,
    conclusions,
    reasoning_by_member,
    reasoning_text,
)
from fairjudge.report._page_plots import Figure, not_estimated
from fairjudge.report._panel import (
    FigureSet,
    Matrix,
    PanelFacts,
    PanelView,
    effective_figure,
    failure_rows,
    figure,
    jury_records,
    jury_spec,
    member_label,
    rate_figure,
    roster_lines,
    score_jury_records,
    score_jury_spec,
)
from fairjudge.report._text import ci_text, win_note

if TYPE_CHECKING:
    from fairjudge.stats import CorrelationResult, KrippendorffAlpha

__all__ = ["jury_view", "score_jury_view"]

_NO_ITEM = "no item was resolved by every member"


def _headline(report: JuryReport) -> kit.Headline:
    r = report.result
    w = r.win_rate
    warnings = [n for n in r.mean_reading()[1:] if n is not None]  # a mean of labels, said
    if r.stopped is not None:
        warnings.append(f"Partial result: {r.stopped}")
    if report.adaptive is not None:
        warnings += stop_warnings(report.adaptive)
    verdict = stop_verdict(report.adaptive) or verdict_line(
        w, failed=bool(report.failures), stopped=r.stopped, n_items=r.n_items,
        subject="the panel", failures_at=FAILURES_CARD,
    )  # fmt: skip
    if w is None:
        return kit.Headline(verdict, warnings=tuple(warnings))
    mark = ci_mark(report.adaptive)
    note = f"{win_note(w)}; {mark}" if mark else win_note(w)
    # The known truth belongs with the conclusion it checks, in the headline's card.
    pairs = [(j.item, j.outcome) for j in r.judgments]
    truth = labelled_truth(pairs, w, "The panel's result")
    return kit.Headline(
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
            human.append(not_estimated(label, "the items carry no human labels"))
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
        kappa = not_estimated("Fleiss' kappa of the members' votes", fleiss)
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
    extra += _reasoning_facts(report)
    if report.adaptive is not None:
        extra += stop_facts(report.adaptive)
    stored = sum(m.cached or 0 for m in diag.members)  # a replay's is None: no call
    # Without a run summary (Python members, a file read back), every call recorded
    # was made but those served from the store and those a budget never started.
    unmade = sum(never_made(c.reply.failure) for m in r.members for j in m.judgments
                 for c in j.calls)  # fmt: skip
    made = sum(m.calls for m in diag.members) - stored - unmade
    return PanelFacts(
        members=", ".join(r.names),
        template_or_rubric=s.template,
        seed=s.seed,
        calls_made=run.made if run is not None else made,
        calls_cached=run.cached if run is not None else stored,
        cost=run.cost_usd if run is not None else None,
        extra=tuple(extra),
    )


def jury_view(report: JuryReport) -> PanelView:
    """The page of a ``jury`` run, embedding the report's ``to_dict()`` (``jury --json``)."""
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
        summary=report.to_dict(),
    )


def _side(a: KrippendorffAlpha | str) -> str:
    """Where a dimension's ordinal alpha stands, by the rule of the table's conclusions.

    The whole interval must clear :data:`AGREEMENT_BAR` (agree) or fall below it (do
    not agree); an interval across it is unclear, and no interval, or a point no
    resample could move (``cannot_vary``), is no conclusion.
    """
    if isinstance(a, str) or math.isnan(a.alpha) or not a.ci.estimable or a.ci.cannot_vary:
        return "no conclusion on"
    if a.ci.low >= AGREEMENT_BAR:
        return "agree on"
    return "do not agree on" if a.ci.high < AGREEMENT_BAR else "unclear on"


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _verdict(report: JuryScoreReport) -> str:
    """One sentence: on which dimensions the members agree, and on which they do not."""
    r = report.result
    if all(d.n == 0 for d in r.dimensions):  # no panel score: the table's one conclusion,
        return conclusions(report)[0][0].replace(FAILURES_ABOVE, FAILURES_CARD)  # failures below
    sides: dict[str, list[str]] = {}
    for d in report.diagnostics.dimensions:
        sides.setdefault(_side(d.alpha_ordinal), []).append(d.dimension)
    order = ("agree on", "do not agree on", "unclear on", "no conclusion on")
    parts = [f"{side} {_listed(sides[side])}" for side in order if side in sides]
    return f"The members {'; '.join(parts)} (Krippendorff's ordinal alpha against {AGREEMENT_BAR})."


def _score_headline(report: JuryScoreReport) -> kit.Headline:
    r = report.result
    warnings = [f"Partial result: {r.stopped}"] if r.stopped is not None else []
    warnings += [f"Collapse alarm on {d.name}: {d.collapse.reason}." for d in r.dimensions
                 if d.collapse.collapsed]  # fmt: skip
    truth = [s for _, sentences in conclusions(report) for s in sentences]
    return kit.Headline(
        verdict=_verdict(report),
        label=f"Answers fully scored by the panel ({r.aggregation} of {len(r.names)} members)",
        estimate=f"{r.n_items - r.n_unscored} of {r.n_items}",
        note=" ".join([f"Rubric {r.rubric_tag}, scale {r.rubric.scale_text}.", *truth]),
        warnings=tuple(warnings),
    )


def _alpha(label: str, a: KrippendorffAlpha | str) -> Figure:
    if isinstance(a, str):
        return not_estimated(label, a)
    if math.isnan(a.alpha):
        return not_estimated(label, "every member gave the same score throughout")
    return figure(label, a.alpha, a.ci, f"{a.n_units} answers, {a.n_values} scores", ".3f")


def _rho(label: str, c: CorrelationResult | str | None, why_none: str) -> Figure:
    if c is None:
        return not_estimated(label, why_none)
    if isinstance(c, str):
        return not_estimated(label, c)
    if math.isnan(c.spearman):
        return not_estimated(label, "a side's scores never vary: no rank correlation")
    return figure(label, c.spearman, c.spearman_ci, f"n = {c.n}", ".2f")


def _matrices(report: JuryScoreReport) -> tuple[Matrix, ...]:
    labels = tuple(member_label(k) for k in range(len(report.result.names)))
    out = []
    for d in report.diagnostics.dimensions:
        e = d.effective
        n = len(labels)
        cells: tuple[tuple[float | None, ...], ...] = tuple((None,) * n for _ in range(n))
        reason = e if isinstance(e, str) else "undefined: a member's scores never vary"
        if not isinstance(e, str):
            cells = tuple(tuple(None if math.isnan(x) else x for x in row) for row in e.correlation)
        out.append(
            Matrix(
                title=f"{d.dimension}: correlation of two members' scores",
                labels=labels, cells=cells, low=-1.0, high=1.0, reason=reason,
                note=f"Pearson, over the {d.n_complete} answers every member scored.",
            )
        )  # fmt: skip
    return tuple(out)


def _score_member_plots(report: JuryScoreReport) -> tuple[FigureSet, ...]:
    r, dims = report.result, report.diagnostics.dimensions
    scale = (float(min(r.rubric.levels)), float(max(r.rubric.levels)))
    means, rest, human = [], [], []
    labelled = any(m.human is not None for d in dims for m in d.members)
    for d in dims:
        for k, m in enumerate(d.members):
            label = f"{d.dimension} · {member_label(k)} {m.name}"
            means.append(figure(label, m.mean.estimate, m.mean.ci, f"n = {m.mean.n}", ".2f"))
            rest.append(_rho(label, m.with_rest, "no answer scored by it and the others"))
            if labelled:
                why = f"no answer carries a human_{d.dimension} score"
                human.append(_rho(label, m.human, why))
    if not labelled:
        human = [not_estimated(f"{member_label(k)} {name}", "no answer carries a human score")
                 for k, name in enumerate(r.names)]  # fmt: skip
    rho = (-1.0, 1.0)
    return (
        FigureSet("Each member's mean score", tuple(means), scale),
        FigureSet("Spearman with the rest of the panel (leave-one-out)", tuple(rest), rho, 0.0,
                  "0: no relation", "A member's scores against the others' aggregate under "
                  "the same rule: a dissenter shows up low or below 0."),
        FigureSet("Spearman with the human scores", tuple(human), rho, 0.0, "0: no relation"),
    )  # fmt: skip


def _score_panel_plots(report: JuryScoreReport) -> tuple[FigureSet, ...]:
    dims, n = report.diagnostics.dimensions, len(report.result.names)
    alphas = tuple(_alpha(d.dimension, d.alpha_ordinal) for d in dims)
    effective = tuple(effective_figure(d.dimension, d.effective, "answers") for d in dims)
    return (
        FigureSet("How much the members agree: Krippendorff's alpha (ordinal)", alphas,
                  (-1.0, 1.0), AGREEMENT_BAR, f"{AGREEMENT_BAR}: the lowest bar for agreement"),
        FigureSet(f"Effective number of independent judges, against the panel's {n}", effective,
                  (0.0, n + 0.5), float(n), f"panel size: {n}",
                  "From the members' correlation on the answers every member scored."),
    )  # fmt: skip


def _reasoning_facts(report: JuryReport | JuryScoreReport) -> list[tuple[str, str]]:
    """The panel's reasoning tokens and each member's, as the table says them (none: none)."""
    total, cells = reasoning_text(report.result, report.run), reasoning_by_member(report.result)
    rows = [("reasoning tokens", total)] if total is not None else []
    return rows + ([("reasoning tokens by member", cells)] if cells is not None else [])


def _score_facts(report: JuryScoreReport) -> PanelFacts:
    r, run = report.result, report.run
    failed = sum(m.n_parse_failures + m.n_call_errors for m in r.members)
    extra = [
        ("aggregation", r.aggregation),
        ("bootstrap", f"{r.n_resamples} resamples, {round(r.level * 100)}% intervals"),
        ("answers", f"{r.n_items - r.n_unscored} of {r.n_items} scored by the panel on every "
                    "dimension"),
        ("failed calls", str(failed)),
    ]  # fmt: skip
    if r.stopped is not None:
        extra.append(("stopped", r.stopped))
    extra += _reasoning_facts(report)
    # A call a budget never started (NotRun) is recorded but was neither made nor cached.
    calls = [c for i in r.items for m in i.members for c in m.calls
             if not never_made(c.reply.failure)]  # fmt: skip
    cached = sum(c.reply.cached for c in calls)
    return PanelFacts(
        members=", ".join(r.names),
        template_or_rubric=r.rubric_tag,
        seed=r.seed,
        calls_made=run.made if run is not None else len(calls) - cached,  # as jury's
        calls_cached=run.cached if run is not None else cached,
        cost=run.cost_usd if run is not None else None,
        extra=tuple(extra),
    )


def score_jury_view(report: JuryScoreReport) -> PanelView:
    """The page of a ``score-jury`` run, embedding its ``to_dict()`` (``score-jury --json``)."""
    r = report.result
    return PanelView(
        kind="score-jury",
        title=report.title,
        headline=_score_headline(report),
        findings=tuple(line for line, _ in conclusions(report)),  # the truth: in the headline
        roster=roster_lines(r.names, r.weights),
        matrices=_matrices(report),
        member_plots=_score_member_plots(report),
        panel_plots=_score_panel_plots(report),
        notes=(
            "Position consistency does not apply: each answer is scored alone, so there is "
            "no order to prefer.",
            "An answer a member could not score is scored by the others only when they hold "
            "more than half of the weight, else left unscored.",
        ),
        facts=_score_facts(report),
        failures=failure_rows(r.failures),
        records=tuple(score_jury_records(r)),
        spec=score_jury_spec(),
        summary=report.to_dict(),
    )
