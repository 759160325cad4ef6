"""The ``calibrate`` pages: a judge against human labels, pairwise or pointwise.

Pairwise, the page is the compare page with a calibration card (kappa, the gate);
:func:`calibrate_page_from_file` draws a ``calibrate --out`` file so, at the gate the
header records, or as its comparison when its records hold no human label.
Pointwise (:func:`score_calibration_page`): per dimension the judge's Spearman and
Kendall against the human scores with the gate at ``min_spearman``, a confusion of
judge score against human score, and the score page's explorer. Every figure is
:mod:`fairjudge.audit`'s calibration report's, the one the command prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import fairjudge.report._page as kit
from fairjudge._errors import ConfigError, InputError
from fairjudge.audit import ScoreCalibration, calibration_report
from fairjudge.evaluation import PairwiseResult, ScoreResult
from fairjudge.io import OutHeader, shown
from fairjudge.report._audit import calibration_payload
from fairjudge.report._comparison import comparison_report
from fairjudge.report._page_compare import compare_page
from fairjudge.report._page_load import calls_of, load_comparison, source_name
from fairjudge.report._page_plots import Figure, forest_plot, heatmap
from fairjudge.report._scores import ScoreReport
from fairjudge.report._text import bootstrap_text, estimate_text, failure_lines

__all__ = [
    "OUT_FILE_PAGES",
    "calibrate_page_from_file",
    "draws_pointwise",
    "gate_line",
    "partial_warnings",
    "score_calibration_page",
    "score_failures_section",
    "scored_note",
]

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


def partial_warnings(result: ScoreResult) -> list[str]:
    """A headline's warning when a budget stopped the scoring run: the answers left out."""
    if result.stopped is None:
        return []
    stopped = result.stopped.rstrip(".")
    return [f"Partial result: {stopped}; {result.n_not_run} answer(s) left out."]


def scored_note(result: ScoreResult) -> str:
    """A scoring run's headline note: answers fully scored, failures, the bootstrap."""
    return (
        f"{result.n_items - result.n_unscored} of {result.n_items} answers fully scored; "
        f"parse failures: {result.n_parse_failures}, call errors: {result.n_call_errors}; "
        f"{bootstrap_text(result)}; intervals resample whole questions."
    )


def _headline(cal: ScoreCalibration) -> kit.Headline:
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
    warnings += partial_warnings(result)
    return kit.Headline(
        verdict, note=scored_note(result), warnings=tuple(warnings), gate=gate_line(cal)
    )


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


def _agreement_section(cal: ScoreCalibration) -> kit.Section:
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
    table = kit.FigureTable(f"gate: Spearman >= {cal.min_spearman:g} on every dimension",
                            ("dimension", "n", f"Spearman [{level}% CI]: gate",
                             f"Kendall [{level}% CI]"), rows, kit.unestimated(figures))  # fmt: skip
    row_classes = tuple("fj-noci" if f.reason is not None else "" for f in figures)
    block = kit.PlotBlock(plot, table, row_classes, fluid=True)
    return kit.Section("fj-agreement", "Agreement with the human scores", (block,))


def _systems_section(cal: ScoreCalibration) -> kit.Section | None:
    """Each dimension's system-level agreement: do judge and humans rank the systems alike?"""
    level = round(cal.result.level * 100)
    blocks: list[kit.Block] = []
    for d in cal.dimensions:
        s = d.system
        if s is None:
            continue
        human = dict(s.human_means)
        rows = tuple((name, f"{mean:.2f}", f"{human[name]:.2f}") for name, mean in s.judge_means)
        caption = (f"{d.dimension}: the systems' means, Spearman "
                   f"{estimate_text(s.spearman, s.spearman_ci, '.2f')} over {s.n_systems} "
                   f"systems ({level}% CI)")  # fmt: skip
        blocks.append(kit.FigureTable(caption, ("system", "judge mean", "human mean"), rows))
    skipped = [f"{d.dimension}: system-level agreement {why}" for d in cal.dimensions
               for what, why in d.skipped.items() if what == "system"]  # fmt: skip
    if skipped:
        blocks.append(kit.Paragraphs(tuple(skipped), bullets=True))
    return kit.Section("fj-systems", "System-level agreement", tuple(blocks)) if blocks else None


def _pairs(result: ScoreResult, dimension: str) -> list[tuple[float, int]]:
    """``(human, judge)`` of each answer with both scores on ``dimension``."""
    return [(i.item.human[dimension], i.scored.scores[dimension]) for i in result.items
            if dimension in i.scored.scores and dimension in i.item.human]  # fmt: skip


def _confusion_block(result: ScoreResult, d: DimensionCalibration) -> kit.PlotBlock:
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
    # The dimension is the matrix's heading: the grid draws one per dimension side by
    # side, in one card, and nothing else above a matrix says which it is.
    plot = heatmap([f"{h:g}" for h in humans], columns, values,
                   title="Answers by human score (rows) and judge score (columns)",
                   domain=(0.0, max(top, 1.0)), value_format=".0f",
                   heading=d.dimension)  # fmt: skip
    rows = tuple((f"{h:g}", *(str(counts[(h, j)]) for j in judged)) for h in humans)
    caption = f"{d.dimension}: {len(pairs)} answers with both scores"
    if rounded:
        caption += " (human scores rounded to whole numbers)"
    return kit.PlotBlock(plot, kit.FigureTable(caption, ("human \\ judge", *columns), rows))


def _confusion_section(cal: ScoreCalibration) -> kit.Section | None:
    blocks = tuple(_confusion_block(cal.result, d) for d in cal.dimensions if d.n)
    if not blocks:
        return None
    return kit.Section("fj-confusion", "Judge score against human score", blocks, grid=True)


def score_failures_section(report: ScoreReport) -> kit.Section | None:
    """A scoring run's failed calls and skipped input rows (its score or calibration page)."""
    lines = list(failure_lines(report.failures))
    skipped = [f"{r.get('source', '')}:{r.get('line', '')}: {r.get('message', '')}"
               for r in report.skipped]  # fmt: skip
    blocks: list[kit.Block] = []
    if lines:
        blocks.append(kit.Paragraphs(("A parse failure or a call error is never a score.", *lines)))
    if skipped:
        blocks.append(kit.Paragraphs(("Input rows skipped:", *skipped), bullets=True))
    return kit.Section("fj-failures", "Failures", tuple(blocks)) if blocks else None


def score_calibration_page(
    cal: ScoreCalibration,
    report: ScoreReport,
    explorer: kit.Explorer,
    *,
    summary: Mapping[str, Any],
    header: OutHeader | None = None,
) -> kit.Page:
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
    run = kit.recorded_run(header)
    made, cached = (run.made, run.cached) if run is not None else calls_of(result)
    cost = run.cost_usd if run is not None else None
    facts = kit.run_facts(header, kind="calibrate", judge_or_members=result.judge, seed=result.seed,
                          calls_made=made, calls_cached=cached, cost=cost,
                          extra=(("gate", f"Spearman >= {cal.min_spearman:g}"),))  # fmt: skip
    sections = [_agreement_section(cal)]
    for section in (_confusion_section(cal), _systems_section(cal), score_failures_section(report)):
        if section is not None:
            sections.append(section)
    return kit.Page("calibrate", f"{report.title}: calibration", _headline(cal), facts,
                    tuple(sections), explorer, summary)  # fmt: skip


def draws_pointwise(header: OutHeader | None) -> bool:
    """Whether a ``calibrate`` file's header says it is pointwise: it names a rubric."""
    return header is not None and header.kind == "calibrate" and header.rubric is not None


_THRESHOLDS = ("min_kappa", "min_spearman")


def _unlabelled(result: PairwiseResult) -> int:
    """How many judged pairs carry neither a human label nor a human score."""
    return sum(j.item.human is None and j.item.human_score is None for j in result.judgments)


def _gate(
    header: OutHeader | None, path: Path, notify: Callable[[str], None] | None
) -> dict[str, float]:
    """The run's ``min_kappa`` and ``min_spearman``, as its header records them.

    One not recorded is left out: :func:`~fairjudge.audit.calibration_report`'s
    default, calibrate's.

    Raises:
        InputError: A recorded threshold that is not a number in [-1, 1] (the file is
            untrusted); the message names the setting.
    """
    settings: Mapping[str, Any] = header.settings if header is not None else {}
    gate: dict[str, float] = {}
    for name in _THRESHOLDS:
        value = settings.get(name)
        if value is None:
            continue  # calibration_report's default: calibrate's
        if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
            raise InputError(f"header: settings.{name} is not a threshold a calibrate run could "
                             f"have used (a number in [-1, 1]); got {shown(value)}",
                             path=str(path), params="out")  # fmt: skip
        gate[name] = float(value)
    missing = [n for n in _THRESHOLDS if n not in gate]
    if missing and notify is not None:
        notify(f"the file's header records no gate threshold {' or '.join(missing)} (written "
               "by an older fairjudge): the gate is drawn at calibrate's default")  # fmt: skip
    return gate


def calibrate_page_from_file(
    path: Path,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    notify: Callable[[str], None] | None = None,
) -> kit.Page:
    """The calibration page of a pairwise ``calibrate --out`` file, as its ``--html`` drew it.

    Args:
        path: The ``calibrate --out`` file.
        seed: The bootstrap seed (``fairjudge report`` gives the run's).
        level: The confidence level.
        n_resamples: Bootstrap resamples.
        notify: Told why the page is not quite the run's: no human label in the
            records (drawn as the comparison), or no thresholds in the header.

    Raises:
        InputError: As :func:`~fairjudge.report._page_load.load_comparison`, or a
            recorded threshold no run could have used.
    """
    header, result = load_comparison(path, seed=seed, level=level, n_resamples=n_resamples)
    run = kit.recorded_run(header)
    name = source_name(result.settings.source, path)
    missing = _unlabelled(result)
    if missing:
        if notify is not None:
            notify(f"{missing} of {result.n_items} records hold no human label (human or "
                   "human_score), which the calibration is drawn against: the file is drawn as "
                   "its comparison. Write its `calibrate out` file again from the labelled "
                   "input to draw the calibration")  # fmt: skip
        report = comparison_report(result, title=f"{name}: model 1 vs model 2", run=run)
        return compare_page(report, header=header)
    try:
        calibration = calibration_report(result, **_gate(header, path, notify))
    except ConfigError as exc:  # the thresholds were checked: a label no run could write
        raise InputError(f"cannot be drawn as a calibration ({exc})", path=str(path),
                         params="out") from None  # fmt: skip
    payload = calibration_payload(calibration, judge=result.settings.judge or "")
    payload["skipped_rows"] = []  # the input rows the run skipped are not in its file
    report = comparison_report(result, title=f"{name}: calibration", run=run)
    return compare_page(report, calibration=calibration, summary=payload, header=header)


OUT_FILE_PAGES: dict[str, kit.PageLoader] = {"calibrate": calibrate_page_from_file}
"""A pairwise ``calibrate`` file: its calibration page (the loader takes ``notify``)."""
