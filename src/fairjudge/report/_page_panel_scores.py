"""The view of a ``score-jury`` run: a panel whose members read scores, per dimension.

Made from the :class:`~fairjudge.report._jury.JuryScoreReport` the table and
``--json`` render: the headline says in one sentence on which dimensions the members
agree, by the rule of the table's conclusions (the whole interval of the ordinal
alpha against Krippendorff's bar) with the table's sentences on the human scores
under it, and the table's conclusion on each dimension follows. The member
× member matrix of a dimension is the members' correlation matrix the effective
number of judges is computed from. A score has no position, so this page has no
position consistency: it says so instead of drawing an empty plot.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fairjudge.report._comparison import FAILURES_ABOVE, FAILURES_CARD
from fairjudge.report._jury import AGREEMENT_BAR, JuryScoreReport, conclusions
from fairjudge.report._page import Headline
from fairjudge.report._page_panel_view import (
    FigureSet,
    Matrix,
    PanelFacts,
    PanelView,
    effective_figure,
    failure_rows,
    figure,
    missing,
    roster_lines,
    score_jury_records,
    score_jury_spec,
)
from fairjudge.report._panel import member_label

if TYPE_CHECKING:
    from fairjudge.report._forest import Figure
    from fairjudge.stats import CorrelationResult, KrippendorffAlpha

__all__ = ["score_jury_view"]


def _side(a: KrippendorffAlpha | str) -> str:
    """Where a dimension's ordinal alpha stands, by the rule of the table's conclusions.

    The whole interval must clear :data:`AGREEMENT_BAR` (agree) or fall below it (do
    not agree); an interval across it is unclear, and no interval is no conclusion.
    """
    if isinstance(a, str) or math.isnan(a.alpha) or not a.ci.estimable:
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


def _headline(report: JuryScoreReport) -> Headline:
    r = report.result
    warnings = [f"Partial result: {r.stopped}"] if r.stopped is not None else []
    warnings += [f"Collapse alarm on {d.name}: {d.collapse.reason}." for d in r.dimensions
                 if d.collapse.collapsed]  # fmt: skip
    truth = [s for _, sentences in conclusions(report) for s in sentences]
    return Headline(
        verdict=_verdict(report),
        label=f"Answers fully scored by the panel ({r.aggregation} of {len(r.names)} members)",
        estimate=f"{r.n_items - r.n_unscored} of {r.n_items}",
        note=" ".join([f"Rubric {r.rubric_tag}, scale {r.rubric.scale_text}.", *truth]),
        warnings=tuple(warnings),
    )


def _alpha(label: str, a: KrippendorffAlpha | str) -> Figure:
    if isinstance(a, str):
        return missing(label, a)
    if math.isnan(a.alpha):
        return missing(label, "every member gave the same score throughout")
    return figure(label, a.alpha, a.ci, f"{a.n_units} answers, {a.n_values} scores", ".3f")


def _rho(label: str, c: CorrelationResult | str | None, why_none: str) -> Figure:
    if c is None:
        return missing(label, why_none)
    if isinstance(c, str):
        return missing(label, c)
    if math.isnan(c.spearman):
        return missing(label, "a side's scores never vary: no rank correlation")
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


def _member_plots(report: JuryScoreReport) -> tuple[FigureSet, ...]:
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
        human = [missing(f"{member_label(k)} {name}", "no answer carries a human score")
                 for k, name in enumerate(r.names)]  # fmt: skip
    rho = (-1.0, 1.0)
    return (
        FigureSet("Each member's mean score", tuple(means), scale),
        FigureSet("Spearman with the rest of the panel (leave-one-out)", tuple(rest), rho, 0.0,
                  "0: no relation", "A member's scores against the others' aggregate under "
                  "the same rule: a dissenter shows up low or below 0."),
        FigureSet("Spearman with the human scores", tuple(human), rho, 0.0, "0: no relation"),
    )  # fmt: skip


def _panel_plots(report: JuryScoreReport) -> tuple[FigureSet, ...]:
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


def _facts(report: JuryScoreReport) -> PanelFacts:
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
    calls = [c for i in r.items for m in i.members for c in m.calls]
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


def score_jury_view(
    report: JuryScoreReport, *, summary: Mapping[str, Any] | None = None
) -> PanelView:
    """The page of a ``score-jury`` run.

    Args:
        report: The scoring panel's report.
        summary: The JSON to embed; by default the report's own ``to_dict()``, which
            ``score-jury --json`` prints.
    """
    r = report.result
    return PanelView(
        kind="score-jury",
        title=report.title,
        headline=_headline(report),
        findings=tuple(line for line, _ in conclusions(report)),  # the truth: in the headline
        roster=roster_lines(r.names, r.weights),
        matrices=_matrices(report),
        member_plots=_member_plots(report),
        panel_plots=_panel_plots(report),
        notes=(
            "Position consistency does not apply: each answer is scored alone, so there is "
            "no order to prefer.",
            "An answer a member could not score is scored by the others only when they hold "
            "more than half of the weight, else left unscored.",
        ),
        facts=_facts(report),
        failures=failure_rows(r.failures),
        records=tuple(score_jury_records(r)),
        spec=score_jury_spec(),
        summary=dict(summary) if summary is not None else report.to_dict(),
    )
