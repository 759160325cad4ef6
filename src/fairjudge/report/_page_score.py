"""The ``score`` page: a view of the :class:`~fairjudge.report.ScoreReport` the command prints.

Every number on it is read from the report's result (the same
:class:`~fairjudge.evaluation.ScoreResult` behind ``score``'s tables and ``--json``),
never computed again here, so the page cannot disagree with the terminal. Its
explorer holds one record per answer (:func:`score_records`): the question, the
answer, every dimension's score (with the probability-weighted and the human score,
when known), the judge's reason and every call; its filters are the failures and a
disagreement with a human score, its selects the system, the category and each
dimension's score. A pointwise ``calibrate`` file is read back as a ``score`` file is
and drawn as its calibration page (:func:`score_calibrate_page_from_file`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import fairjudge.report._page as kit
from fairjudge._errors import ConfigError, InputError
from fairjudge._types import CallError, ParseFailure
from fairjudge.audit import MIN_SPEARMAN, ScoreCalibration, score_calibration_report
from fairjudge.evaluation import (
    DimensionSummary,
    ScoredItem,
    ScoreResult,
    ScoreRun,
    SystemDifference,
)
from fairjudge.io import OutHeader, shown
from fairjudge.report._page_calibrate import (
    partial_warnings,
    score_calibration_page,
    score_failures_section,
    scored_note,
)
from fairjudge.report._page_load import calls_of, load_score_result, recorded_source_name
from fairjudge.report._page_plots import Figure, forest_plot, histogram
from fairjudge.report._scores import ScoreReport, score_report, trend_caveats
from fairjudge.report._text import estimate_text, share_text
from fairjudge.stats import ConfidenceInterval

__all__ = [
    "DISAGREEMENT",
    "OUT_FILE_PAGES",
    "UNSCORED",
    "score_calibrate_page_from_file",
    "score_explorer_spec",
    "score_page",
    "score_page_from_file",
    "score_records",
]


def _figure(label: str, estimate: float | None, ci: ConfidenceInterval, n: int,
            spec: str = ".2f") -> Figure:  # fmt: skip
    """A figure, or its reason with no number when it cannot be estimated."""
    if estimate is None:
        why = ci.reason or "nothing scored"
        return Figure(label, None, None, None, f"not estimated: {why}", reason=why)
    if not ci.estimable:
        return Figure(label, None, None, None, f"not estimated: {ci.reason}", reason=ci.reason)
    return Figure(label, estimate, ci.low, ci.high, estimate_text(estimate, ci, spec, ".2f"),
                  note=f"n = {n}")  # fmt: skip


def _reading(diff: SystemDifference) -> str | None:
    """``"b higher"`` when the paired interval excludes zero; else ``None``.

    An interval the bootstrap could not vary (the difference alike on every question)
    excludes nothing: no system is read higher from it, as the terminal's "no conclusion".
    """
    d = diff.difference
    if d.estimate is None or not d.ci.estimable or d.ci.cannot_vary:
        return None
    if d.ci.low > 0:
        return diff.system_a
    return diff.system_b if d.ci.high < 0 else None


def _systems_sentence(result: ScoreResult) -> str:
    higher: dict[tuple[str, str], list[str]] = {}
    for diff in result.differences:
        winner = _reading(diff)
        if winner is not None:
            loser = diff.system_b if winner == diff.system_a else diff.system_a
            higher.setdefault((winner, loser), []).append(diff.dimension)
    if not higher:
        return "No system scores clearly higher than another on any dimension."
    parts = [f"{w} scores higher than {lo} on {', '.join(dims)}" for (w, lo), dims in
             higher.items()]  # fmt: skip
    return "; ".join(parts) + "."


def _headline(report: ScoreReport) -> kit.Headline:
    result = report.result
    rubric = result.rubric
    means = [f"{d.name} {d.mean.estimate:.2f}" for d in result.dimensions
             if d.mean.estimate is not None]  # fmt: skip
    verdict = (
        f"Mean scores on rubric {result.rubric_tag} (scale {rubric.scale_text}): "
        + ", ".join(means) + "."
        if means else "No answer was scored: every call failed or was not made."
    )  # fmt: skip
    if result.systems:
        verdict += " " + _systems_sentence(result)
    warnings = [f"Collapse alarm on {d.name}: {d.collapse.reason}." for d in result.dimensions
                if d.collapse.collapsed]  # fmt: skip
    warnings += partial_warnings(result) + trend_caveats(report.trend)  # compared anyway
    if report.trend is not None:
        warnings += [d.reading() for d in report.trend.dimensions if d.direction in ("up", "down")]
    return kit.Headline(verdict, note=scored_note(result), warnings=tuple(warnings))


def _dimension_block(d: DimensionSummary, result: ScoreResult) -> kit.PlotBlock:
    expected = [i.scored.expected[d.name] for i in result.items if d.name in i.scored.expected]
    alarm = d.collapse.adjacent_levels if d.collapse.collapsed else None
    plot = histogram(d.histogram, title=f"{d.name}: scores of {d.n} answers", density=expected,
                     alarm=alarm, alarm_text=f"collapse alarm: {d.collapse.reason}")  # fmt: skip
    rows = [(str(level), str(count), share_text(count, d.n) if d.n else "n/a")
            for level, count in d.histogram.items()]  # fmt: skip
    rows.append(("mean", estimate_text(d.mean.estimate, d.mean.ci, ".2f") if d.n else "n/a", ""))
    if d.median is not None:
        rows.append(("median", estimate_text(d.median, d.median_ci, "g", ".2f"), ""))
    if d.expected is not None:
        e = d.expected
        rows.append(("prob.-weighted mean", estimate_text(e.estimate, e.ci, ".2f"),
                     f"{e.n} answers"))  # fmt: skip
    if isinstance(d.human, str):
        rows.append(("Spearman vs human", f"not estimated: {d.human}", ""))
    elif d.human is not None:
        h = d.human
        rows.append(("Spearman vs human", estimate_text(h.spearman, h.spearman_ci, ".2f"), ""))
    alarm_text = "not assessed" if d.collapse.collapsed is None else (
        f"TRIPPED: {d.collapse.reason}" if d.collapse.collapsed else "ok")  # fmt: skip
    rows.append(("collapse alarm", alarm_text, ""))
    table = kit.FigureTable(f"{d.name} (scale {result.rubric.scale_text})",
                            ("score", "answers", "share"), tuple(rows))  # fmt: skip
    return kit.PlotBlock(plot, table)


def _systems_section(result: ScoreResult) -> kit.Section:
    level = round(result.level * 100)
    blocks: list[kit.PlotBlock | kit.Paragraphs] = []
    low, high = result.rubric.scale
    for name in result.rubric.names:
        figures = [_figure(s.system, s.means[name].estimate, s.means[name].ci, s.means[name].n)
                   for s in result.systems]  # fmt: skip
        plot = forest_plot(figures, title=f"{name}: mean score per system, {level}% CI",
                           domain=(low - 0.2, high + 0.2), tick_format="g")  # fmt: skip
        table = kit.FigureTable.of(f"{name}: mean per system",
                                   ("system", f"mean [{level}% CI]", "n"), figures)  # fmt: skip
        blocks.append(kit.PlotBlock(plot, table))
    diffs = [
        _figure(f"{d.system_a} − {d.system_b}: {d.dimension}", d.difference.estimate,
                d.difference.ci, d.n_questions, "+.2f")
        for d in result.differences
    ]  # fmt: skip
    if diffs:
        plot = forest_plot(diffs, title=f"Paired differences on shared questions, {level}% CI",
                           ref=0.0, ref_label="no difference", tick_format="g")  # fmt: skip
        table = kit.FigureTable.of("paired differences", ("systems: dimension",
                                   f"difference [{level}% CI]", "questions"), diffs)  # fmt: skip
        blocks.append(kit.PlotBlock(plot, table))
    return kit.Section("fj-systems", "Systems", tuple(blocks))


def _levels(run: ScoreRun, dimension: str, levels: tuple[int, ...]) -> dict[int, int]:
    counts = Counter(run.values(dimension)[1])
    return {k: counts.get(k, 0) for k in levels}


def _trend_sections(report: ScoreReport, baseline: ScoreRun | None) -> list[kit.Section]:
    """The shifts against zero; then, with the baseline run, both runs' distributions."""
    trend, result = report.trend, report.result
    assert trend is not None  # only called with one
    level = round(trend.level * 100)
    figures = [_figure(d.dimension, d.shift, d.ci, d.n_shared, "+.2f") for d in trend.dimensions]
    plot = forest_plot(figures, title=f"Shift since the baseline, {level}% CI", ref=0.0,
                       ref_label="no shift", tick_format="g")  # fmt: skip
    rows = tuple(
        (d.dimension, f.text, estimate_text(d.baseline.estimate, d.baseline.ci, ".2f")
         if d.baseline.estimate is not None else "n/a", d.reading())
        for d, f in zip(trend.dimensions, figures, strict=True)
    )  # fmt: skip
    table = kit.FigureTable(f"baseline: {trend.baseline}", ("dimension", f"shift [{level}% CI]",
                            "baseline mean", "reading"), rows,
                            kit.unestimated(figures), id="fj-trend-table")  # fmt: skip
    blocks: list[kit.PlotBlock | kit.Paragraphs] = [kit.PlotBlock(plot, table)]
    if trend.differences:
        blocks.append(kit.Paragraphs(("Compared although the runs differ:", *trend.differences)))
    if trend.notes:
        blocks.append(kit.Paragraphs(("Not checked:", *trend.notes)))
    sections = [kit.Section("fj-trend", "Since the baseline", tuple(blocks))]
    by_name = {d.name: d for d in result.dimensions}
    pictures = []
    for d in trend.dimensions:
        if baseline is None or d.dimension not in by_name:
            continue
        now = by_name[d.dimension].histogram
        before = _levels(baseline, d.dimension, tuple(now))
        plot_ = histogram(now, title=f"{d.dimension}: this run and the baseline", compare=before)
        rows_ = tuple((str(k), str(now[k]), str(before[k])) for k in now)
        pictures.append(kit.PlotBlock(plot_, kit.FigureTable(f"{d.dimension}: answers per score",
                                      ("score", "this run", "baseline"), rows_)))  # fmt: skip
    if pictures:
        sections.append(kit.Section("fj-trend-dists", "This run and the baseline, score by score",
                                    tuple(pictures), grid=True))  # fmt: skip
    return sections


DISAGREEMENT = 1.0
"""How far a judge's score must be from the human's for the answer to disagree."""
UNSCORED = "unscored"


def score_explorer_spec(result: ScoreResult) -> dict[str, list[dict[str, str]]]:
    """The explorer's filters and selects for this run."""
    facets = [{"key": f"d:{name}", "label": name} for name in result.rubric.names]
    if result.systems or any(i.item.system for i in result.items):
        facets.append({"key": "system", "label": "system"})
    if any(i.item.category for i in result.items):
        facets.append({"key": "category", "label": "category"})
    flags = [
        {"key": "parse", "label": "have a parse failure"},
        {"key": "error", "label": "have a call error"},
        {"key": "unscored", "label": "are not fully scored"},
        {"key": "disagrees", "label": f"differ from a human score by {DISAGREEMENT:g} or more"},
    ]
    return {"flags": flags, "facets": facets}


def _question_text(question: object) -> str:
    if isinstance(question, str):
        return question
    return "\n".join(f"[{role}] {content}" for role, content in question)  # type: ignore[attr-defined]


def _disagrees(item: ScoredItem) -> bool:
    human, scores = item.item.human, item.scored.scores
    return any(abs(scores[d] - h) >= DISAGREEMENT for d, h in human.items() if d in scores)


def _call_rows(item: ScoredItem) -> list[list[str]]:
    rows = []
    for n, call in enumerate(item.scored.calls, 1):
        failure = call.reply.failure
        if isinstance(failure, ParseFailure):
            what = f"parse failure: {failure.reason}"
        elif isinstance(failure, CallError):
            what = f"call error ({failure.kind}): {failure.message}"
        else:
            reading = call.reply.reading
            what = ", ".join(f"{d} {s}" for d, s in reading.scores.items()) if reading else ""
        asked = call.dimension or "all dimensions"
        rows.append([str(n), asked, what, "yes" if call.reply.cached else "no"])
    return rows


def _score_table(
    item: ScoredItem, names: Sequence[str], columns: tuple[bool, bool]
) -> dict[str, Any]:
    """The answer's scores; the weighted and human columns only when the run has them."""
    weighted, human = columns
    scored = item.scored
    cols = ["dimension", "score"] + ["weighted"] * weighted + ["human"] * human
    cells = []
    for name in names:
        row = [name, str(scored.scores[name]) if name in scored.scores else UNSCORED]
        if weighted:
            e = scored.expected.get(name)
            row.append("" if e is None else f"{e:.2f}")
        if human:
            h = item.item.human.get(name)
            row.append("" if h is None else f"{h:g}")
        cells.append(row)
    return {"h": "Scores", "cols": cols, "cells": cells}


def _key(item: ScoredItem, index: int, seen: set[str]) -> str:
    key = item.item.id if item.item.id is not None else f"#{index + 1}"
    if key in seen:  # ids need not be unique in the input; a permalink must be
        key = f"{key}#{index + 1}"
    seen.add(key)
    return key


def _record(
    item: ScoredItem, key: str, names: Sequence[str], columns: tuple[bool, bool]
) -> dict[str, Any]:
    scored, it = item.scored, item.item
    failures = [c.reply.failure for c in scored.calls]
    parse = any(isinstance(f, ParseFailure) for f in failures)
    error = any(isinstance(f, CallError) for f in failures)
    shown = ", ".join(f"{n} {scored.scores[n]}" for n in names if n in scored.scores)
    title = " · ".join(p for p in (it.id or key, it.system, shown or "no score") if p)
    facets: dict[str, Any] = {f"d:{n}": str(scored.scores.get(n, UNSCORED)) for n in names}
    facets.update(system=it.system, category=it.category)
    question = _question_text(it.question)
    raws = [c.reply.raw or "" for c in scored.calls]
    facts = [["id", it.id or key], ["system", it.system or "(none)"],
             ["category", it.category or "(none)"]]  # fmt: skip
    details: list[dict[str, Any]] = [
        {"h": "Item", "rows": facts},
        _score_table(item, names, columns),
        {"h": "The judge's reason", "pre": scored.reason or "(none given)"},
        {"h": "Question", "pre": question},
        {"h": "Answer", "pre": it.answer},
    ]  # fmt: skip
    if it.reference is not None:
        details.append({"h": "Reference", "pre": it.reference})
    details.append({"h": "Calls", "cols": ["#", "asked", "reading or failure", "cached"],
                    "cells": _call_rows(item)})  # fmt: skip
    details.extend({"h": f"Call {n} raw reply", "pre": raw or "(no reply)"}
                   for n, raw in enumerate(raws, 1))  # fmt: skip
    return {
        "k": key,
        "t": title,
        "s": "",  # the search reads the details, which hold every text
        "f": {
            "parse": parse,
            "error": error,
            "unscored": not item.complete,
            "disagrees": _disagrees(item),
        },
        "v": facets,
        "d": details,
    }


def score_records(result: ScoreResult) -> list[dict[str, Any]]:
    """One explorer record per answer, in input order."""
    seen: set[str] = set()
    names = result.rubric.names
    columns = (
        any(i.scored.expected for i in result.items),
        any(i.item.human for i in result.items),
    )
    return [_record(item, _key(item, i, seen), names, columns)
            for i, item in enumerate(result.items)]  # fmt: skip


def score_page(
    report: ScoreReport,
    *,
    baseline: ScoreRun | None = None,
    header: OutHeader | None = None,
    command: list[str] | None = None,
    calls: tuple[int, int] | None = None,
    calibration: ScoreCalibration | None = None,
    summary: Mapping[str, Any] | None = None,
) -> kit.Page:
    """The page of a ``score`` run (``score --html``, ``fairjudge report``).

    With ``calibration`` (and ``summary``, ``calibrate --json``), the page of a pointwise
    ``calibrate`` of those scores instead (:mod:`fairjudge.report._page_calibrate`),
    its explorer this one's: each answer's human score beside the judge's.

    Args:
        report: The run's report, as ``score`` prints it; its ``to_dict()`` is embedded.
        baseline: The ``--baseline`` run, for the two distributions side by side.
        header: The ``--out`` file's header, for the run-facts card.
        command: The command line of a live run.
        calls: ``(made, cached)``; by default the run summary's, else the records'
            (a Python judge has no run summary).
        calibration: A pointwise ``calibrate``'s report of these scores: its page.
        summary: ``calibrate --json``, embedded in the calibration's page.
    """
    result, run = report.result, report.run
    if calibration is not None:
        explorer = kit.Explorer(score_explorer_spec(result), score_records(result), noun="answers")
        return score_calibration_page(calibration, report, explorer,
                                      summary=summary if summary is not None else {},
                                      header=header)  # fmt: skip
    made, cached = calls if calls is not None else (
        (run.made, run.cached) if run is not None else calls_of(result))  # fmt: skip
    cost = run.cost_usd if run is not None else None
    facts = kit.run_facts(header, kind="score", command=command, judge_or_members=result.judge,
                          template_or_rubric=result.rubric_tag, seed=result.seed, calls_made=made,
                          calls_cached=cached, cost=cost)  # fmt: skip
    sections = [kit.Section("fj-dimensions", "Scores per dimension",
                            tuple(_dimension_block(d, result) for d in result.dimensions),
                            grid=True)]  # fmt: skip
    if report.trend is not None:  # what a run against a baseline asks first: what moved
        sections[:0] = _trend_sections(report, baseline)
    if result.systems:
        sections.append(_systems_section(result))
    failures = score_failures_section(report)
    if failures is not None:
        sections.append(failures)
    explorer = kit.Explorer(score_explorer_spec(result), score_records(result), noun="answers")
    return kit.Page("score", report.title, _headline(report), facts, tuple(sections), explorer,
                    report.to_dict())  # fmt: skip


def score_page_from_file(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> kit.Page:
    """The page of a ``score --out`` file, summarised again as ``score`` did.

    The file records no baseline, so a page drawn from it has no trend section;
    ``score --baseline --html`` draws one.
    """
    loaded = load_score_result(path, seed=seed, level=level, n_resamples=n_resamples)
    header = loaded.header
    report = score_report(loaded.result, title=recorded_source_name(header, path))
    return score_page(report, header=header)


def _min_spearman(header: OutHeader | None, path: Path,
                  notify: Callable[[str], None] | None) -> float:  # fmt: skip
    """The run's gate threshold, as its header records it; else calibrate's default."""
    value = header.settings.get("min_spearman") if header is not None else None
    if value is None:
        if notify is not None:
            notify("the file's header records no gate threshold min_spearman (written by an "
                   "older fairjudge): the gate is drawn at calibrate's default, "
                   f"{MIN_SPEARMAN}")  # fmt: skip
        return MIN_SPEARMAN
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        raise InputError(f"header: settings.min_spearman is not a threshold a calibrate run "
                         f"could have used (a number in [-1, 1]); got {shown(value)}",
                         path=str(path), params="out")  # fmt: skip
    return float(value)


def recorded_calls(header: OutHeader | None, judge: str | None) -> Any:
    """The calls as the run's ``--json`` had them: a model's; a Python scorer's ``null``."""
    if header is None or header.calls is None or (judge or "").startswith("python:"):
        return None
    return dict(header.calls)


def score_calibrate_page_from_file(
    path: Path,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    notify: Callable[[str], None] | None = None,
) -> kit.Page:
    """The page of a pointwise ``calibrate --out`` file, as its ``--html`` drew it.

    Its scored answers (each with its human scores) are summarised again at the run's
    seed, level and resamples and calibrated again at the run's ``min_spearman``, as
    the header records them; a header recording no threshold is drawn at 0.7.

    Args:
        path: The ``calibrate --rubric ... --out`` file.
        seed: The bootstrap seed (``fairjudge report`` gives the run's).
        level: The confidence level.
        n_resamples: Bootstrap resamples.
        notify: Told what of the run's page cannot be drawn again (no threshold recorded).

    Raises:
        InputError: The file is not a readable pointwise calibrate file, or its header
            records a threshold no run could have used.
    """
    loaded = load_score_result(path, seed=seed, level=level, n_resamples=n_resamples,
                               kind="calibrate")  # fmt: skip
    header, result = loaded.header, loaded.result
    try:
        cal = score_calibration_report(result, min_spearman=_min_spearman(header, path, notify))
    except ConfigError as exc:
        raise InputError(f"cannot be drawn as a calibration ({exc})", path=str(path),
                         params="out") from None  # fmt: skip
    report = score_report(result, title=recorded_source_name(header, path))
    summary = {
        **cal.to_dict(),
        "calls": recorded_calls(header, result.judge),
        "skipped_rows": [],
    }  # the input rows the run skipped are not in its file
    return score_page(report, header=header, calibration=cal, summary=summary)


OUT_FILE_PAGES: dict[str, kit.PageLoader] = {"score": score_page_from_file}
"""The ``--out`` kinds this module draws, for ``fairjudge report``."""
