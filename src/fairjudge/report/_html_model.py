"""What the HTML report shows, as plain values: headline, figures, cards, run facts.

Every sentence and number comes from the same report model the table and the JSON
render (:class:`ComparisonReport`, :class:`RankingReport`), through the same
verdict logic, so the page cannot say something the JSON does not. A figure that
cannot be estimated carries its reason and no numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from fairjudge._words import worded
from fairjudge.evaluation import PairwiseResult, Rate, WinRate
from fairjudge.report._adaptive import (
    ci_mark,
    recorded_stop,
    stop_facts,
    stop_verdict,
    stop_warnings,
)
from fairjudge.report._comparison import (
    ComparisonReport,
    _verdict_line,
    protocol_label,
    truth_lines,
)
from fairjudge.report._document import Headline
from fairjudge.report._forest import Figure, ForestPlot, forest_plot
from fairjudge.report._ranking import RankingReport, leader_line, rank_intervals
from fairjudge.report._text import calls_text, ci_text
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge.evaluation import AdaptiveResult
    from fairjudge.stats import ConfidenceInterval, LengthControlledWinRate, ModelRating

__all__ = ["Headline", "View", "comparison_view", "ranking_view"]


@dataclass(frozen=True, slots=True)
class View:
    """Everything the template renders, apart from the embedded data."""

    kind: str
    title: str
    headline: Headline
    plots: tuple[ForestPlot, ...]
    figures: tuple[Figure, ...]
    naive: tuple[Figure, ...] = ()
    gap: tuple[str, ...] = ()
    position: tuple[Figure, ...] = ()
    position_notes: tuple[str, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()
    failures: tuple[tuple[int, str], ...] = ()
    skipped_rows: tuple[str, ...] = ()
    calibration: tuple[tuple[str, str], ...] = ()
    gate: str = ""
    style: tuple[str, ...] = ()
    """The style coefficients as the terminal prints them (``rank --style-control``)."""


def _figure(label: str, estimate: float, ci: ConfidenceInterval, note: str, spec: str) -> Figure:
    if not ci.estimable:  # no number and no point: only the reason (see estimate_text)
        return _missing(label, ci.reason or "", note)
    interval = ci_text(ci, spec)
    return Figure(
        label, estimate, ci.low, ci.high, f"{estimate:{spec}}  {interval}", None, note, interval
    )


def _missing(label: str, why: str, note: str = "") -> Figure:
    return Figure(
        label, None, None, None, f"not estimated: {why}", why, note, f"not estimated: {why}"
    )


def _win_figure(label: str, w: WinRate | None, why_none: str) -> Figure:
    if w is None:
        return _missing(label, why_none)
    return _figure(label, w.estimate, w.ci, f"n = {w.n}; W/T/L {w.wins}/{w.ties}/{w.losses}", ".3f")


def _rate_figure(label: str, r: Rate | None, why_none: str) -> Figure:
    if r is None:
        return _missing(label, why_none)
    return _figure(label, r.estimate, r.ci, f"{r.successes} of {r.n}", ".3f")


def _headline_ci(ci: ConfidenceInterval, spec: str) -> str:
    """The interval beside the headline figure, or plainly that there is none."""
    return ci_text(ci, spec) if ci.estimable else f"({ci.reason})"


def _no_verdict(result: PairwiseResult) -> str:
    return (
        "no item was resolved (every item had a parse failure or a call error)"
        if result.n_items
        else "no items"
    )


def _headline(result: PairwiseResult) -> Headline:
    w = result.win_rate
    warnings = []
    if not result.debiased and w is not None:
        warnings.append(
            worded(
                "Each item was judged in one order only (rounds=1): this win rate carries "
                "whatever position bias the judge has. Use rounds=2 (the default) to debias it.",
                "rounds",
            )
        )
    if result.stopped is not None:
        warnings.append(
            f"Partial result: {result.stopped}; {result.n_not_run} item(s) not yet judged "
            "are left out."
        )
    if w is None:
        return Headline(_verdict_line(result), warnings=tuple(warnings))
    label = protocol_label(result)
    counts = "W/T/L"
    if result.settings.rule.value == "soft":  # a mean probability, not a count of wins
        label += ", soft rule: mean P(model 1 better)"
        counts = "items leaning to model 1 / even / 2:"
    else:
        label += f", {result.settings.rule.value} rule"
    pct = round(w.ci.level * 100)
    return Headline(
        verdict=_verdict_line(result),
        label=f"Win rate of model 1 ({label})",
        estimate=f"{w.estimate:.3f}" if w.ci.estimable else "not estimated",
        ci=_headline_ci(w.ci, ".3f"),
        note=f"{pct}% CI; n = {w.n} items; {counts} {w.wins}/{w.ties}/{w.losses}",
        warnings=tuple(warnings),
    )


def _position(result: PairwiseResult) -> tuple[tuple[Figure, ...], tuple[str, ...]]:
    figures = (
        _rate_figure(
            "Position consistency",
            result.position_consistency,
            worded("no resolved item was shown in both orders (rounds=1)", "rounds"),
        ),
        _rate_figure(
            "Calls choosing the first position",
            result.first_position_calls,
            "no call gave a decisive verdict (A or B)",
        ),
    )
    notes = [
        "Consistency: share of items whose verdict survived swapping the answers.",
        "First position: share of decisive calls that picked whatever was shown first; "
        "0.5 means no preference for a position.",
        f"Inconsistent items: {result.n_inconsistent}.",
    ]
    if result.tie_rate is not None:
        notes.append(f"Calls that said tie: {result.tie_rate:.3f}.")
    return figures, tuple(notes)


def _calls_fact(result: PairwiseResult, run: RunSummary | None) -> list[tuple[str, str]]:
    calls = [c for j in result.judgments for c in j.calls]
    cached = sum(c.reply.cached for c in calls)
    facts = [("calls recorded", f"{len(calls)} ({cached} served from the cache)")]
    if run is None:
        facts.append(("cost", "not recorded (no model judge ran, or read from a results file)"))
        return facts
    facts.append(("judge calls", calls_text(run)))
    if run.input_tokens or run.output_tokens:
        facts.append(("tokens (in / out)", f"{run.input_tokens} / {run.output_tokens}"))
    facts.append(("cost", f"est. ${run.cost_usd:.4f}" if run.cost_usd else "no prices given"))
    return facts


def _facts(result: PairwiseResult, run: RunSummary | None) -> tuple[tuple[str, str], ...]:
    s = result.settings
    unknown = "not recorded"
    facts = [
        ("judge", s.judge or unknown),
        ("template", s.template or ("none (a Python judge)" if s.judge else unknown)),
        ("rule", s.rule.value),
        ("rounds", str(s.rounds)),
        ("seed", str(s.seed)),
        ("bootstrap", f"{s.n_resamples} resamples, {round(s.level * 100)}% intervals"),
        ("source", s.source or unknown),
        ("items", f"{result.n_items - result.n_unresolved} of {result.n_items} resolved"),
        ("parse failures", str(result.n_parse_failures)),
        ("call errors", str(result.n_call_errors)),
        *_calls_fact(result, run),
    ]
    if result.stopped is not None:
        facts.append(("stopped", result.stopped))
    return tuple(facts)


def _model_names(result: PairwiseResult) -> str:
    ones = {j.item.model_1 for j in result.judgments}
    twos = {j.item.model_2 for j in result.judgments}
    if len(ones) == 1 and len(twos) == 1 and None not in ones | twos:
        return f"model 1 is {ones.pop()}, model 2 is {twos.pop()}"
    return ""


def comparison_view(
    report: ComparisonReport, *, calibration: Mapping[str, Any] | None = None
) -> View:
    """The view of a ``compare`` (or ``calibrate``) report."""
    result = report.result
    none = _no_verdict(result)
    early = report.adaptive is not None and report.adaptive.stopped_early
    label = "Debiased" if result.debiased else "Single order (NOT debiased)"
    main = _win_figure(label + (" (fixed-sample CI)" if early else ""), result.win_rate, none)
    figures = [main]
    if result.debiased:
        figures.append(_win_figure("Single order (naive)", result.single_order, none))
    for alt in report.alternatives:
        figures.append(
            _win_figure(f"Same calls, {alt.settings.rule.value} rule", alt.win_rate, none)
        )
    figures.append(_length_figure(report.length_control))
    if report.adaptive is not None:
        figures.append(_anytime_figure(report.adaptive, none))
    plot = forest_plot(
        figures,
        title="Win rate of model 1 with confidence intervals",
        domain=(0.0, 1.0),
        ref=0.5,
        ref_label="0.5: no difference",
    )
    position, notes = _position(result)
    headline = _headline(result)
    names = _model_names(result)
    if names:
        headline = replace(headline, note=f"{headline.note}; {names}")
    facts = _facts(result, report.run)
    if report.adaptive is not None:  # the stop, under the headline and among the facts
        headline = replace(
            headline,
            verdict=stop_verdict(report.adaptive) or headline.verdict,
            note=f"{headline.note}; {mark}"
            if (mark := ci_mark(report.adaptive)) and headline.note
            else headline.note,
            warnings=(*headline.warnings, *stop_warnings(report.adaptive)),
        )
        facts = (*facts, *stop_facts(report.adaptive))
    elif report.recorded_adaptive is not None:  # a page rebuilt from an --out file
        verdict, notes = recorded_stop(report.recorded_adaptive)
        headline = replace(
            headline, verdict=verdict or headline.verdict, warnings=(*headline.warnings, *notes)
        )
    return View(
        kind="calibrate" if calibration is not None else "compare",
        title=report.title,
        headline=headline,
        plots=(plot,),
        figures=tuple(figures),
        naive=tuple(figures[:2]) if result.debiased else (main,),
        gap=tuple(truth_lines(report)),
        position=position,
        position_notes=notes,
        facts=facts,
        failures=tuple((n, r) for r, n in result.failures.most_common()),
        skipped_rows=tuple(
            f"{r.get('source', '')}:{r.get('line', '')}: {r.get('message', '')}"
            for r in report.skipped
        ),
        calibration=_calibration(calibration),
        gate=_gate(calibration) if calibration is not None else "",
    )


def _anytime_figure(adaptive: AdaptiveResult[PairwiseResult], none: str) -> Figure:
    interval = adaptive.interval
    label = "Anytime-valid (adaptive" + (", this file only)" if interval.about == "file" else ")")
    if not interval.resolved_units:
        return _missing(label, none)
    note = f"{interval.n} of {interval.population} questions; valid at any stop"
    return _figure(label, interval.estimate, interval.interval, note, ".3f")


def _length_figure(lc: LengthControlledWinRate | str) -> Figure:
    if isinstance(lc, str):
        return _missing("Length-controlled", lc)
    note = f"n = {lc.n}; W/T/L {lc.n_wins}/{lc.n_ties}/{lc.n_losses}"
    return _figure("Length-controlled", lc.estimate, lc.ci, note, ".3f")


def _calibration(report: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...]:
    if report is None:
        return ()
    titles = {
        "agreement": "Agreement with the human labels",
        "correlation": "Score correlation",
        "system": "System-level agreement",
        "position_bias": "Position bias",
    }
    rows = [(titles[k], report[k].summary()) for k in titles if k in report]
    rows += [(titles.get(k, k), f"not estimated: {why}") for k, why in report["skipped"].items()]
    return tuple(rows)


def _gate(report: Mapping[str, Any]) -> str:
    """The gate's verdict in words, or what the figures say without a gate."""
    if "gate" in report:  # calibration_report's gate: kappa and Spearman checks
        verdict: str = report["gate"].verdict()
        return verdict
    gate = report.get("correlation")
    if gate is None:
        why = report["skipped"].get("correlation", "no human scores")
        return f"No gate applied: {why}"
    word = "passes" if gate.passed else "fails"
    return (
        f"The judge {word} the gate: Spearman {gate.spearman:.3f} against the threshold "
        f"{gate.min_spearman:.2f}."
    )


def _rating_figure(r: ModelRating) -> Figure:
    wtl = f"W/T/L {r.wins}/{r.ties}/{r.losses}"
    rank = "rank n/a" if r.rank is None else f"rank {r.rank}"
    if r.rank_ci.estimable:
        note = f"{rank} ({r.rank_ci.low:.0f}-{r.rank_ci.high:.0f}); {wtl}"
    else:
        note = f"{rank} (rank interval cannot be estimated); {wtl}"
    if not r.estimable:  # no rating to draw: the reason, as the terminal's n/a
        return _missing(r.model, r.reason or "", note)
    return _figure(r.model, r.rating, r.ci, note, ".1f")


def _leader(report: RankingReport) -> Headline:
    """The top model and every rank interval; the pinned anchor's rating is no finding."""
    board = report.leaderboard
    top = board.ratings[0]
    pct = round(board.level * 100)
    rank = f"{top.rank_ci.low:.0f}-{top.rank_ci.high:.0f}" if top.rank_ci.estimable else "n/a"
    return Headline(
        verdict=leader_line(board),
        label="Top model (rank interval)",
        estimate=top.model,
        ci=f"({rank})",
        note=f"{pct}% rank intervals: {rank_intervals(board)}; {board.n_battles} battles; "
        f"ratings are relative to {board.anchor}, pinned at {board.anchor_rating:g}",
    )


def ranking_view(
    report: RankingReport, *, title: str, result: PairwiseResult | None, run: RunSummary | None
) -> View:
    """The view of a ``rank`` report (``result``: the judged pairs, when a judge ran)."""
    board = report.leaderboard
    figures = tuple(_rating_figure(r) for r in board.ratings)
    plots = [
        forest_plot(
            figures,
            title="Bradley-Terry ratings with confidence intervals",
            ref=board.anchor_rating,
            ref_label=f"anchor {board.anchor}",
            tick_format=".0f",
        )
    ]
    style: tuple[str, ...] = ()
    if report.style_control is not None:
        style = tuple(str(c) for c in report.style_control.coefficients)
        styled = tuple(_rating_figure(r) for r in report.style_control.ratings)
        anchor = report.style_control.anchor
        plots.append(
            forest_plot(
                styled,
                title="Style-controlled ratings",
                tick_format=".0f",
                ref=report.style_control.anchor_rating,
                ref_label=f"anchor {anchor}",
            )
        )
    facts = [
        ("battles", str(board.n_battles)),
        ("ties", board.ties),
        ("bootstrap", f"{board.n_resamples} rounds over {board.bootstrap}, seed {board.seed}"),
        ("anchor", f"{board.anchor} at {board.anchor_rating:g}"),
        ("l2", f"{board.l2:g}" + (" (the fallback ridge)" if board.l2_fallback else "")),
        ("unresolved pairs", f"{report.n_unresolved} (left out, never counted as ties)"),
    ]
    position: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ("No judge ran: the input held judged battles.",)
    failures: tuple[tuple[int, str], ...] = ()
    if result is not None:
        facts += [
            f for f in _facts(result, run) if f[0] not in {"rule", "rounds", "seed", "bootstrap"}
        ]
        position, notes = _position(result)
        failures = tuple((n, r) for r, n in result.failures.most_common())
    return View(
        kind="rank",
        title=title,
        headline=_leader(report),
        plots=tuple(plots),
        figures=figures,
        position=position,
        position_notes=notes,
        facts=tuple(facts),
        failures=failures,
        style=style,
    )
