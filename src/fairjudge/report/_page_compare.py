"""The ``compare`` and ``calibrate`` pages: views of the :class:`ComparisonReport` they print.

Every sentence and number comes from the report model the table and the JSON render,
through the same verdict logic, so the page cannot say something the JSON does not.
A figure that cannot be estimated carries its reason and no numbers. The figures, the
position-bias card and the failures are shared with ``rank``'s page
(:mod:`fairjudge.report._page_rank`), which judges pairs the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fairjudge.report._page as kit
from fairjudge._errors import worded
from fairjudge._items import Item
from fairjudge._types import never_made
from fairjudge.evaluation import PairwiseResult, Rate, WinRate
from fairjudge.io import OutHeader
from fairjudge.report._adaptive import (
    ci_mark,
    recorded_stop,
    stop_facts,
    stop_verdict,
    stop_warnings,
)
from fairjudge.report._comparison import (
    FAILURES_CARD,
    NO_DECISIVE_CALL,
    ComparisonReport,
    _verdict_line,
    comparison_report,
    protocol_label,
    soft_reading,
    truth_lines,
)
from fairjudge.report._page_compare_items import pair_explorer
from fairjudge.report._page_load import load_comparison, source_name
from fairjudge.report._page_plots import Figure, ForestPlot, forest_plot, not_estimated
from fairjudge.report._text import calls_text, ci_text, counted
from fairjudge.runner import RunSummary

if TYPE_CHECKING:
    from fairjudge.evaluation import AdaptiveResult
    from fairjudge.stats import ConfidenceInterval, LengthControlledWinRate

__all__ = [
    "OUT_FILE_PAGES",
    "compare_page",
    "compare_page_from_file",
    "estimated",
    "failures_section",
    "figures_block",
    "model_names",
    "pair_facts",
    "position_section",
]


def estimated(label: str, estimate: float, ci: ConfidenceInterval, note: str, spec: str) -> Figure:
    """A figure with its interval, or only the reason when the interval cannot be estimated."""
    if not ci.estimable:  # no number and no point: only the reason (see estimate_text)
        return not_estimated(label, ci.reason or "", note)
    interval = ci_text(ci, spec)
    return Figure(
        label, estimate, ci.low, ci.high, f"{estimate:{spec}}  {interval}", None, note, interval
    )


def _win_figure(label: str, w: WinRate | None, why_none: str) -> Figure:
    if w is None:
        return not_estimated(label, why_none)
    note = f"n = {w.n}; W/T/L {w.wins}/{w.ties}/{w.losses}"
    return estimated(label, w.estimate, w.ci, note, ".3f")


def _rate_figure(label: str, r: Rate | None, why_none: str) -> Figure:
    if r is None:
        return not_estimated(label, why_none)
    return estimated(label, r.estimate, r.ci, f"{r.successes} of {r.n}", ".3f")


def figures_block(
    plot: ForestPlot, figures: Sequence[Figure], first: str, *, id: str = "fj-figure-table"
) -> kit.PlotBlock:
    """The forest plot filling its card, then its figures as the table ``id``."""
    columns = (first, "estimate and interval", "counts")
    table = kit.FigureTable.of("", columns, figures, id)
    return kit.PlotBlock(plot, table, fluid=True)


def _headline(result: PairwiseResult) -> kit.Headline:
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
            f"Partial result: {result.stopped.rstrip('.')}; {result.n_not_run} item(s) not yet "
            "judged are left out."
        )
    if w is None:
        return kit.Headline(_verdict_line(result, FAILURES_CARD), warnings=tuple(warnings))
    label = protocol_label(result)
    counts = "W/T/L"
    if result.settings.rule.value == "soft":  # a mean probability, not a count of wins
        reading, unmeasured = soft_reading(result)
        label += f", soft rule: {reading}"
        warnings += [unmeasured] if unmeasured is not None else []
        counts = "items leaning to model 1 / even / 2:"
    else:
        label += f", {result.settings.rule.value} rule"
    pct = round(w.ci.level * 100)
    return kit.Headline(
        verdict=_verdict_line(result, FAILURES_CARD),
        label=f"Win rate of model 1 ({label})",
        estimate=f"{w.estimate:.3f}" if w.ci.estimable else "not estimated",
        ci=ci_text(w.ci, ".3f") if w.ci.estimable else f"({w.ci.reason})",
        note=f"{pct}% CI; n = {counted(w.n, 'item')}; {counts} {w.wins}/{w.ties}/{w.losses}",
        warnings=tuple(warnings),
    )


def position_section(result: PairwiseResult | None) -> kit.Section:
    """Position consistency and first-position calls, or that no judge ran."""
    if result is None:
        no_judge = kit.Paragraphs(("No judge ran: the input held judged battles.",))
        return kit.Section("fj-position", "Position bias", (no_judge,))
    figures = (
        _rate_figure(
            "Position consistency",
            result.position_consistency,
            worded("no resolved item was shown in both orders (rounds=1)", "rounds"),
        ),
        _rate_figure(
            "Calls choosing the first position",
            result.first_position_calls,
            NO_DECISIVE_CALL,
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
    columns = ("figure", "estimate and interval", "counts")
    table = kit.FigureTable.of("", columns, figures)
    return kit.Section(
        "fj-position", "Position bias", (table, kit.Paragraphs(tuple(notes), bullets=True))
    )


def _calls(result: PairwiseResult, run: RunSummary | None) -> tuple[int, int]:
    """``(made, cached)``: the run's, else counted from the recorded calls (a file's)."""
    if run is not None:
        return run.made, run.cached
    replies = [c.reply for j in result.judgments for c in j.calls]
    made = sum(not r.cached and not never_made(r.failure) for r in replies)
    return made, sum(r.cached for r in replies)


def pair_facts(
    result: PairwiseResult,
    run: RunSummary | None,
    header: OutHeader | None = None,
    *,
    kind: str = "compare",
    before: Sequence[tuple[str, str]] = (),
    seed: int | None = None,
) -> tuple[tuple[str, str], ...]:
    """The run-facts card of judged pairs: the kit's card, then the protocol and counts.

    The card (command, judge, template, seed, calls, cost, version) is the kit's
    (:func:`~fairjudge.report._page.run_facts`), read from the ``--out`` header the
    run saves or the file was drawn from. ``before`` replaces the protocol's rows (a
    leaderboard's fit, for ``rank``), and ``seed`` the pairs' seed.
    """
    s = result.settings
    template = s.template or (header.template if header is not None else None)
    if template is None and (s.judge or (header is not None and header.judge)):
        template = "none (a Python judge)"
    protocol = [
        ("rule", s.rule.value),
        ("rounds", str(s.rounds)),
        ("bootstrap", f"{s.n_resamples} resamples, {round(s.level * 100)}% intervals"),
    ]
    extra = [
        *(before or protocol),
        ("source", s.source or kit.NOT_RECORDED),
        ("items", f"{result.n_items - result.n_unresolved} of {result.n_items} resolved"),
        ("parse failures", str(result.n_parse_failures)),
        ("call errors", str(result.n_call_errors)),
    ]
    if run is not None and (run.failed or run.usage_unreported or run.learning_note()):
        extra.append(("judge calls", calls_text(run)))
    if run is not None and (run.input_tokens or run.output_tokens):
        extra.append(("tokens (in / out)", f"{run.input_tokens} / {run.output_tokens}"))
    if result.stopped is not None:
        extra.append(("stopped", result.stopped))
    made, cached = _calls(result, run)
    return kit.run_facts(
        header, kind=kind, judge_or_members=s.judge, template_or_rubric=template,
        seed=s.seed if seed is None else seed,
        calls_made=made, calls_cached=cached, cost=run.cost_usd if run is not None else None,
        extra=extra,
    )  # fmt: skip


def failures_section(
    result: PairwiseResult | None, skipped: Sequence[Mapping[str, Any]] = ()
) -> kit.Section | None:
    """The calls that gave no verdict, by reason, and the input rows skipped; or none."""
    blocks: list[kit.Block] = []
    reasons = result.failures.most_common() if result is not None else []
    if reasons:
        n = sum(count for _, count in reasons)
        blocks += [
            kit.Paragraphs((f"{n} call(s) gave no verdict; never counted as a tie or a loss. "
                            "The reasons, most common first:",)),
            kit.Paragraphs(tuple(f"{count} × {reason}" for reason, count in reasons), bullets=True),
        ]  # fmt: skip
    if skipped:
        rows = tuple(f"{r.get('source', '')}:{r.get('line', '')}: {r.get('message', '')}"
                     for r in skipped)  # fmt: skip
        blocks += [kit.Paragraphs((worded("Input rows skipped (skip_invalid):", "skip_invalid"),)),
                   kit.Paragraphs(rows, bullets=True)]  # fmt: skip
    return kit.Section("fj-failures", "Failures", tuple(blocks)) if blocks else None


def model_names(items: Iterable[Item]) -> str:
    """The input's names of the two systems (``model 1 is X, model 2 is Y``), or ``""``.

    Named only when every item names the same two: a file that mixes systems has none.
    """
    ones: set[str | None] = set()
    twos: set[str | None] = set()
    for item in items:
        ones.add(item.model_1)
        twos.add(item.model_2)
    if len(ones) == 1 and len(twos) == 1 and None not in ones | twos:
        return f"model 1 is {ones.pop()}, model 2 is {twos.pop()}"
    return ""


def _win_figures(report: ComparisonReport) -> list[Figure]:
    """The win rates: debiased (or single order), naive, other rule, length, anytime."""
    result = report.result
    none = _no_verdict(result)
    early = report.adaptive is not None and report.adaptive.stopped_early
    label = "Debiased" if result.debiased else "Single order (NOT debiased)"
    figures = [_win_figure(label + (" (fixed-sample CI)" if early else ""), result.win_rate, none)]
    if result.debiased:
        figures.append(_win_figure("Single order (naive)", result.single_order, none))
    for alt in report.alternatives:
        figures.append(
            _win_figure(f"Same calls, {alt.settings.rule.value} rule", alt.win_rate, none)
        )
    figures.append(_length_figure(report.length_control))
    if report.adaptive is not None:
        figures.append(_anytime_figure(report.adaptive, none))
    return figures


def _no_verdict(result: PairwiseResult) -> str:
    if not result.n_items:
        return "no items"
    return "no item was resolved (every item had a parse failure or a call error)"


def _stopped(report: ComparisonReport, headline: kit.Headline) -> kit.Headline:
    """The headline of an adaptive run: its stop, live or as the ``--out`` file recorded it."""
    if report.adaptive is not None:
        mark = ci_mark(report.adaptive)
        return replace(
            headline,
            verdict=stop_verdict(report.adaptive) or headline.verdict,
            note=f"{headline.note}; {mark}" if mark and headline.note else headline.note,
            warnings=(*headline.warnings, *stop_warnings(report.adaptive)),
        )
    if report.recorded_adaptive is not None:  # a page rebuilt from an --out file
        verdict, notes = recorded_stop(report.recorded_adaptive)
        return replace(
            headline, verdict=verdict or headline.verdict, warnings=(*headline.warnings, *notes)
        )
    return headline


def compare_page(
    report: ComparisonReport,
    *,
    calibration: Mapping[str, Any] | None = None,
    summary: Mapping[str, Any] | None = None,
    header: OutHeader | None = None,
) -> kit.Page:
    """The page of a comparison (``compare``, ``calibrate``, ``fairjudge report``).

    Args:
        report: The comparison report; the headline and figures are its own.
        calibration: ``calibrate``'s report (:func:`fairjudge.audit.calibration_report`),
            shown as a card with the gate's verdict above the headline.
        summary: The JSON embedded in the page (``#fj-summary``); by default the
            report's own :meth:`~ComparisonReport.to_dict`, which ``compare --json`` prints.
        header: The ``--out`` header the run saves (``Result.to_html``) or the file
            holds, for the run-facts card.
    """
    result = report.result
    figures = _win_figures(report)
    plot = forest_plot(figures, title="Win rate of model 1 with confidence intervals",
                       domain=(0.0, 1.0), ref=0.5, ref_label="0.5: no difference")  # fmt: skip
    headline = _headline(result)
    names = model_names(j.item for j in result.judgments)
    if names:
        headline = replace(headline, note=f"{headline.note}; {names}")
    headline = _stopped(report, headline)
    if calibration is not None:
        headline = replace(headline, gate=_gate(calibration))
    kind: kit.PageKind = "calibrate" if calibration is not None else "compare"
    facts = pair_facts(result, report.run, header, kind=kind)
    if report.adaptive is not None:
        facts = (*facts, *stop_facts(report.adaptive))
    naive = figures[:2] if result.debiased else figures[:1]
    naive_rows = tuple((f.label, f.text) for f in naive)
    naive_blocks: tuple[kit.Block, ...] = (
        kit.FigureTable("", ("figure", "estimate and interval"), naive_rows,
                        kit.unestimated(naive)),
        kit.Paragraphs(tuple(truth_lines(report))),
    )  # fmt: skip
    sections = [
        kit.Section("fj-figures", "Win rates", (figures_block(plot, figures, "figure"),)),
        kit.Section("fj-naive", "Naive vs debiased", naive_blocks),
        position_section(result),
    ]
    if calibration is not None:
        sections.append(_calibration_section(calibration))
    failures = failures_section(result, report.skipped)
    if failures is not None:
        sections.append(failures)
    return kit.Page(
        kind=kind,
        title=report.title,
        headline=headline,
        facts=facts,
        sections=tuple(sections),
        explorer=pair_explorer(result.judgments),
        summary=summary if summary is not None else report.to_dict(),
    )


def _anytime_figure(adaptive: AdaptiveResult[PairwiseResult], none: str) -> Figure:
    interval = adaptive.interval
    label = "Anytime-valid (adaptive" + (", this file only)" if interval.about == "file" else ")")
    if not interval.resolved_units:
        return not_estimated(label, none)
    note = f"{interval.n} of {interval.population} questions; valid at any stop"
    return estimated(label, interval.estimate, interval.interval, note, ".3f")


def _length_figure(lc: LengthControlledWinRate | str) -> Figure:
    if isinstance(lc, str):
        return not_estimated("Length-controlled", lc)
    note = f"n = {lc.n}; W/T/L {lc.n_wins}/{lc.n_ties}/{lc.n_losses}"
    return estimated("Length-controlled", lc.estimate, lc.ci, note, ".3f")


_CALIBRATION_TITLES = {
    "agreement": "Agreement with the human labels",
    "correlation": "Score correlation",
    "system": "System-level agreement",
    "position_bias": "Position bias",
}


def _calibration_section(report: Mapping[str, Any]) -> kit.Section:
    """Each figure's summary under its title; a figure not estimated says why."""
    rows = [(t, report[k].summary()) for k, t in _CALIBRATION_TITLES.items() if k in report]
    rows += [(_CALIBRATION_TITLES.get(k, k), f"not estimated: {why}")
             for k, why in report["skipped"].items()]  # fmt: skip
    panels = tuple((title, ((text, False),)) for title, text in rows)
    return kit.Section(
        "fj-calibration", "Calibration against human labels", (kit.Highlighted(panels),)
    )


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


def compare_page_from_file(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> kit.Page:
    """The page of a ``compare --out`` or pairwise ``calibrate --out`` file, summarised again.

    With ``compare``'s defaults the figures are ``compare``'s own; an adaptive run's
    recorded stop stays its conclusion, never a new one.
    """
    header, result = load_comparison(path, seed=seed, level=level, n_resamples=n_resamples)
    title = f"{source_name(result.settings.source, path)}: model 1 vs model 2"
    report = comparison_report(result, title=title, run=kit.recorded_run(header))
    recorded = header.settings.get("adaptive") if header is not None else None
    if isinstance(recorded, dict):  # an adaptive run: its own conclusion, not a new one
        report = replace(report, recorded_adaptive=recorded)
    return compare_page(report, header=header)


OUT_FILE_PAGES: dict[str, kit.PageLoader] = {"compare": compare_page_from_file}
"""A pairwise ``calibrate`` file is drawn by its calibration page
(:mod:`fairjudge.report._page_calibrate`)."""
