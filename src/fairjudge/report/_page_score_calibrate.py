"""The page of a pointwise ``calibrate``: a scoring judge's scores against human scores.

A team calibrating a scoring judge shares this page: per dimension with human scores,
the judge's Spearman and Kendall against the humans (with their intervals), the gate
at ``min_spearman`` and whether it passed, and a confusion of judge score against
human score; then the answers in the explorer, each with its human score, the
judge's score and the judge's reply (the score page's explorer, which shows both).

Every figure is :func:`fairjudge.audit.score_calibration_report`'s, the report the
command prints, never computed again here. The page is drawn three ways, alike:
``calibrate --rubric ... --html`` and ``Result.to_html`` of the library's pointwise
calibration (through :func:`~fairjudge.report.score_page`, which holds the answers'
explorer), and ``fairjudge report`` of its ``--out`` file
(:func:`~fairjudge.report._page_score.score_calibrate_page_from_file`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from fairjudge.audit import ScoreCalibration
from fairjudge.evaluation import ScoreResult
from fairjudge.io import OutHeader
from fairjudge.report._page import (
    Block,
    Explorer,
    FigureTable,
    Headline,
    Page,
    Paragraphs,
    PlotBlock,
    Section,
    run_facts,
    unestimated,
)
from fairjudge.report._page_load import calls_of
from fairjudge.report._page_plots import Figure, forest_plot, heatmap
from fairjudge.report._page_recorded import recorded_run
from fairjudge.report._scores import ScoreReport
from fairjudge.report._text import bootstrap_text, estimate_text, failure_lines

__all__ = ["draws_pointwise", "gate_line", "score_calibration_page"]

DimensionCalibration = Any
"""One entry of :attr:`ScoreCalibration.dimensions` (its class is not on audit's surface)."""

_MAX_HUMAN_ROWS = 12
"""More distinct human scores than this (averaged ratings) are rounded to whole numbers
for the confusion, so it stays a readable grid; its caption says so."""


def _rho(d: DimensionCalibration) -> str:
    c = d.correlation
    return "not estimated" if c is None else estimate_text(c.spearman, c.spearman_ci, ".2f")


def gate_line(cal: ScoreCalibration) -> str:
    """The gate's verdict in words: passed, failed (on which dimensions), or not applied."""
    threshold = f"{cal.min_spearman:g}"
    if cal.passed is None:
        return f"No gate applied (not a pass): {cal.not_applied_reason()}."
    gated = [d for d in cal.dimensions if d.correlation is not None]
    if cal.passed:
        shown_ = ", ".join(f"{d.dimension} {d.correlation.spearman:.2f}" for d in gated
                           if d.correlation is not None)  # fmt: skip
        return (f"The judge passes the gate: Spearman >= {threshold} on every dimension "
                f"gated ({shown_}).")  # fmt: skip
    below = ", ".join(f"{d.dimension} {d.correlation.spearman:.2f}" for d in gated
                      if d.correlation is not None and not d.correlation.passed)  # fmt: skip
    return (f"The judge fails the gate: Spearman below {threshold} on {below}; do not use it "
            "for decisions without a better rubric or model.")  # fmt: skip


def _headline(cal: ScoreCalibration) -> Headline:
    result = cal.result
    parts = [f"{d.dimension} {_rho(d)}" for d in cal.dimensions]
    verdict = (
        f"Judge vs human scores on rubric {result.rubric_tag}, Spearman per dimension: "
        + "; ".join(parts) + "."
        if parts else "No dimension of the rubric has human scores."
    )  # fmt: skip
    warnings = []
    for d in cal.dimensions:
        c = d.correlation
        if c is not None and c.passed and not c.passed_at_lower_bound:
            low = "no interval" if not c.spearman_ci.estimable else f"{c.spearman_ci.low:.2f}"
            warnings.append(f"{d.dimension} passes at its estimate, but its interval's lower "
                            f"end ({low}) does not clear {cal.min_spearman:g}.")  # fmt: skip
        if c is None:
            warnings.append(f"{d.dimension}: {d.skipped.get('correlation', 'not estimated')}.")
    if result.stopped is not None:
        stopped = result.stopped.rstrip(".")
        warnings.append(f"Partial result: {stopped}; {result.n_not_run} answer(s) left out.")
    note = (
        f"{result.n_items - result.n_unscored} of {result.n_items} answers fully scored; "
        f"parse failures: {result.n_parse_failures}, call errors: {result.n_call_errors}; "
        f"{bootstrap_text(result)}; intervals resample whole questions."
    )
    return Headline(verdict, note=note, warnings=tuple(warnings), gate=gate_line(cal))


def _figure(d: DimensionCalibration) -> Figure:
    c = d.correlation
    if c is None:
        why = d.skipped.get("correlation", "not estimated")
        return Figure(d.dimension, None, None, None, f"not estimated: {why}", reason=why)
    if not c.spearman_ci.estimable:
        why = c.spearman_ci.reason or "no interval"
        return Figure(d.dimension, c.spearman, None, None, f"{c.spearman:.2f} (no interval: "
                      f"{why})", reason=why, note=f"n = {d.n}")  # fmt: skip
    return Figure(d.dimension, c.spearman, c.spearman_ci.low, c.spearman_ci.high,
                  estimate_text(c.spearman, c.spearman_ci, ".2f"), note=f"n = {d.n}")  # fmt: skip


def _spearman_cell(d: DimensionCalibration, figure: Figure) -> str:
    """The Spearman figure and the gate's verdict on it.

    A figure not estimated is only said to be so: its reason is the plot row's above
    the table (and the headline's), not said a third time.
    """
    c = d.correlation
    if c is None:
        return "not estimated: not gated"
    if not c.passed:
        return f"{figure.text}: FAIL"
    return f"{figure.text}: PASS" + ("" if c.passed_at_lower_bound else
                                     " (not the CI's lower end)")  # fmt: skip


def _agreement_section(cal: ScoreCalibration) -> Section:
    level = round(cal.result.level * 100)
    figures = [_figure(d) for d in cal.dimensions]
    plot = forest_plot(figures, title=f"Spearman with the human scores per dimension, {level}% CI",
                       domain=(-1.0, 1.0), ref=cal.min_spearman,
                       ref_label=f"gate: {cal.min_spearman:g}", tick_format="g")  # fmt: skip
    rows = tuple(
        (d.dimension, str(d.n), _spearman_cell(d, f),
         "n/a" if d.correlation is None
         else estimate_text(d.correlation.kendall, d.correlation.kendall_ci, ".2f"))
        for d, f in zip(cal.dimensions, figures, strict=True)
    )  # fmt: skip
    table = FigureTable(f"gate: Spearman >= {cal.min_spearman:g} on every dimension",
                        ("dimension", "n", f"Spearman [{level}% CI]: gate",
                         f"Kendall [{level}% CI]"), rows, unestimated(figures))  # fmt: skip
    row_classes = tuple("fj-noci" if f.reason is not None else "" for f in figures)
    block = PlotBlock(plot, table, row_classes, fluid=True)
    return Section("fj-agreement", "Agreement with the human scores", (block,))


def _systems_section(cal: ScoreCalibration) -> Section | None:
    """Each dimension's system-level agreement: do judge and humans rank the systems alike?"""
    level = round(cal.result.level * 100)
    blocks: list[Block] = []
    for d in cal.dimensions:
        s = d.system
        if s is None:
            continue
        human = dict(s.human_means)
        rows = tuple((name, f"{mean:.2f}", f"{human[name]:.2f}") for name, mean in s.judge_means)
        caption = (f"{d.dimension}: the systems' means, Spearman "
                   f"{estimate_text(s.spearman, s.spearman_ci, '.2f')} over {s.n_systems} "
                   f"systems ({level}% CI)")  # fmt: skip
        blocks.append(FigureTable(caption, ("system", "judge mean", "human mean"), rows))
    skipped = [f"{d.dimension}: system-level agreement {why}" for d in cal.dimensions
               for what, why in d.skipped.items() if what == "system"]  # fmt: skip
    if skipped:
        blocks.append(Paragraphs(tuple(skipped), bullets=True))
    return Section("fj-systems", "System-level agreement", tuple(blocks)) if blocks else None


def _pairs(result: ScoreResult, dimension: str) -> list[tuple[float, int]]:
    """``(human, judge)`` of each answer with both scores on ``dimension``."""
    return [(i.item.human[dimension], i.scored.scores[dimension]) for i in result.items
            if dimension in i.scored.scores and dimension in i.item.human]  # fmt: skip


def _confusion_block(result: ScoreResult, d: DimensionCalibration) -> PlotBlock:
    pairs = _pairs(result, d.dimension)
    rounded = len({h for h, _ in pairs}) > _MAX_HUMAN_ROWS
    if rounded:
        pairs = [(float(round(h)), j) for h, j in pairs]
    low, high = result.rubric.scale
    judged = sorted(set(range(low, high + 1)) | {j for _, j in pairs})
    humans = sorted({h for h, _ in pairs})
    counts = Counter(pairs)
    values: list[list[float | None]] = [[float(counts[(h, j)]) for j in judged] for h in humans]
    top = max((v for row in values for v in row if v is not None), default=1.0)
    columns = tuple(str(j) for j in judged)
    title = f"{d.dimension}: answers by human score (rows) and judge score (columns)"
    plot = heatmap([f"{h:g}" for h in humans], columns, values, title=title,
                   domain=(0.0, max(top, 1.0)), value_format=".0f")  # fmt: skip
    rows = tuple((f"{h:g}", *(str(counts[(h, j)]) for j in judged)) for h in humans)
    caption = f"{d.dimension}: {len(pairs)} answers with both scores"
    if rounded:
        caption += " (human scores rounded to whole numbers)"
    return PlotBlock(plot, FigureTable(caption, ("human \\ judge", *columns), rows))


def _confusion_section(cal: ScoreCalibration) -> Section | None:
    blocks = tuple(_confusion_block(cal.result, d) for d in cal.dimensions if d.n)
    if not blocks:
        return None
    return Section("fj-confusion", "Judge score against human score", blocks, grid=True)


def _failures_section(report: ScoreReport) -> Section | None:
    lines = list(failure_lines(report.failures))
    skipped = [f"{r.get('source', '')}:{r.get('line', '')}: {r.get('message', '')}"
               for r in report.skipped]  # fmt: skip
    blocks: list[Block] = []
    if lines:
        blocks.append(Paragraphs(("A parse failure or a call error is never a score.", *lines)))
    if skipped:
        blocks.append(Paragraphs(("Input rows skipped:", *skipped), bullets=True))
    return Section("fj-failures", "Failures", tuple(blocks)) if blocks else None


def score_calibration_page(
    cal: ScoreCalibration,
    report: ScoreReport,
    explorer: Explorer,
    *,
    summary: Mapping[str, Any],
    header: OutHeader | None = None,
) -> Page:
    """The page of a pointwise calibration (``calibrate --rubric --html``, ``report``).

    Args:
        cal: The calibration report, as ``calibrate`` prints it.
        report: The scoring run's report behind it (its title, failures, skipped rows).
        explorer: The answers, as the score page's explorer shows them (with the human
            scores beside the judge's, and the judge's replies).
        summary: ``calibrate --json``, embedded exact (``#fj-summary``).
        header: The ``--out`` header the run saves (``Result.to_html``) or the file
            holds, for the run-facts card; its calls are the card's, as the run's.
    """
    result = cal.result
    run = recorded_run(header)
    made, cached = (run.made, run.cached) if run is not None else calls_of(result)
    cost = run.cost_usd if run is not None else None
    facts = run_facts(header, kind="calibrate", judge_or_members=result.judge, seed=result.seed,
                      calls_made=made, calls_cached=cached, cost=cost,
                      extra=(("gate", f"Spearman >= {cal.min_spearman:g}"),))  # fmt: skip
    sections = [_agreement_section(cal)]
    for section in (_confusion_section(cal), _systems_section(cal), _failures_section(report)):
        if section is not None:
            sections.append(section)
    return Page("calibrate", f"{report.title}: calibration", _headline(cal), facts,
                tuple(sections), explorer, summary)  # fmt: skip


def draws_pointwise(header: OutHeader | None) -> bool:
    """Whether a ``calibrate`` file's header says it is pointwise: it names a rubric."""
    return header is not None and header.kind == "calibrate" and header.rubric is not None
