"""The ``jury`` and ``score-jury`` pages: one builder, the reading type the only difference.

:func:`panel_page` lays out a :class:`~fairjudge.report._panel.PanelView`
on the page kit (:mod:`fairjudge.report._page`), whatever the members read:

1. the headline, with the known truth in its card where the items carry labels;
2. **the panel**: its members (the plots name them ``#1``, ``#2``, ...), how much
   they agree (Fleiss' kappa, or Krippendorff's alpha per dimension) and the
   effective number of independent judges against the panel's size;
3. **member × member**: the agreement matrix as a heatmap, each cell with its
   number (one per dimension for scores);
4. **each member**: its figures with their intervals, one forest plot each;
5. the item explorer, every member's verdicts or scores side by side, filterable to
   the items where the members split.

:func:`load_jury_report` and :func:`load_score_jury_report` read a ``jury --out`` or
``score-jury --out`` file back into its report (``fairjudge report``), no judge called.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import fairjudge.report._page as kit
from fairjudge._errors import ConfigError, InputError, worded
from fairjudge._items import Item, ScoreItem
from fairjudge._types import Outcome
from fairjudge.evaluation import (
    AGGREGATIONS,
    SCORE_AGGREGATIONS,
    CollapseRule,
    EvalSettings,
    JuryScoreResult,
    PanelScoredItem,
    ScoredItem,
    check_rule,
    evaluate_jury,
    summarise,
    summarise_scores,
)
from fairjudge.io import OutHeader, shown
from fairjudge.judges import recorded_jury
from fairjudge.prompts import AnswerScores
from fairjudge.report._comparison import PAGE_FAILURES
from fairjudge.report._jury import JuryReport, JuryScoreReport, jury_report, score_jury_report
from fairjudge.report._page_load import (
    header_and_records,
    question_of,
    record_name,
    record_text,
    recorded_rubric,
    recorded_source_name,
    score_call,
    stop_reason,
)
from fairjudge.report._page_panel_jury import jury_view, score_jury_view
from fairjudge.report._page_plots import forest_plot, heatmap
from fairjudge.report._panel import FigureSet, Matrix, PanelView
from fairjudge.report._text import clipped
from fairjudge.stats import shared_resamples

__all__ = [
    "OUT_FILE_PAGES",
    "jury_html",
    "jury_page",
    "jury_page_from_file",
    "load_jury_report",
    "load_score_jury_report",
    "panel_page",
    "score_jury_html",
    "score_jury_page",
    "score_jury_page_from_file",
]


_NO_CI = "fj-noci"
_ADAPTIVE = (
    "This run stopped adaptively (stop_when): the page shows the items it judged, with "
    "fixed-sample intervals; the anytime-valid interval is in the run's own output (its "
    "header records it under settings.adaptive)."
)


def _forest(figures: FigureSet) -> kit.PlotBlock:
    plot = forest_plot(
        figures.figures, title=figures.title, domain=figures.domain, ref=figures.ref,
        ref_label=figures.ref_label,
    )  # fmt: skip
    # Two columns, the counts beside the figure: at 390 px a third column squeezes the
    # labels (members' names) to a few letters a line.
    table = kit.FigureTable(
        caption=figures.note or figures.title,
        columns=("figure", "estimate [CI] (counts), or why not estimated"),
        rows=tuple((f.label, f"{f.text} ({f.note})" if f.note else f.text)
                   for f in figures.figures),
        classes={i: _NO_CI for i, f in enumerate(figures.figures) if f.reason is not None},
    )  # fmt: skip
    return kit.PlotBlock(plot, table, tuple(_NO_CI if f.reason else "" for f in figures.figures))


def _heatmap(matrix: Matrix) -> kit.PlotBlock:
    labels = matrix.labels
    reasons = {
        (r, c): matrix.reason
        for r, row in enumerate(matrix.cells)
        for c, value in enumerate(row)
        if value is None
    }
    plot = heatmap(labels, labels, matrix.cells, title=matrix.title,
                   domain=(matrix.low, matrix.high), reasons=reasons)  # fmt: skip
    rows = tuple(
        (label, *(cell.text if cell.reason is None else f"n/a: {cell.reason}" for cell in row))
        for label, row in zip(labels, plot.cells, strict=True)
    )
    table = kit.FigureTable(f"{matrix.title}. {matrix.note}", ("member", *labels), rows)
    return kit.PlotBlock(plot, table)


_SHOWN_FAILURES = 20


def _with_failures(headline: kit.Headline, failures: tuple[tuple[int, str], ...]) -> kit.Headline:
    if not failures:
        return headline
    total = sum(n for n, _ in failures)
    # The shared phrase, which the Markdown rewrites to its own pointer by that text.
    said = f"{total} member call(s) gave no reading (parse failures, call errors); "
    said += f"{PAGE_FAILURES} lists why. They are never counted as a verdict or a score."
    return dataclasses.replace(headline, warnings=(*headline.warnings, said))


def _failures(failures: tuple[tuple[int, str], ...]) -> kit.Section:
    # The reason first: a row's first cell wraps anywhere, so a member's long name or a
    # long message cannot widen the table past a phone's width.
    rows = tuple((reason, str(n)) for n, reason in failures[:_SHOWN_FAILURES])
    rest = failures[_SHOWN_FAILURES:]
    if rest:
        more = worded(f"{len(rest)} other reason(s); out=FILE keeps every call's failure", "out")
        rows += ((more, str(sum(n for n, _ in rest))),)
    table = kit.FigureTable("Why members' calls gave no reading, most common first",
                            ("member: reason", "calls"), rows)  # fmt: skip
    return kit.Section("fj-failures", "Failures", (table,))


def panel_page(view: PanelView, *, header: OutHeader | None = None) -> kit.Page:
    """Lay out a panel's view on the page kit (the module docstring lists the page).

    Args:
        view: The panel's view (:func:`jury_view` or :func:`score_jury_view`).
        header: The ``--out`` header the run saves or the file holds, for the run-facts
            card (its command line among them).
    """
    f = view.facts
    facts = kit.run_facts(
        header, kind=view.kind, judge_or_members=f.members,
        template_or_rubric=f.template_or_rubric, seed=f.seed, calls_made=f.calls_made,
        calls_cached=f.calls_cached, cost=f.cost, extra=f.extra,
    )  # fmt: skip
    headline = view.headline
    roster = kit.FigureTable("The members: the matrices name each by its number",
                             ("member", "weight"), view.roster)  # fmt: skip
    panel: list[Any] = [roster]
    if view.findings:
        panel.append(kit.Paragraphs(view.findings))
    panel += [_forest(s) for s in view.panel_plots]
    headline = _with_failures(headline, view.failures)
    sections: tuple[kit.Section, ...] = (
        kit.Section("fj-panel", "The panel", tuple(panel)),
        kit.Section("fj-matrix", "Member × member agreement",
                    tuple(_heatmap(m) for m in view.matrices)),
        kit.Section("fj-members", "Each member",
                    (*(_forest(s) for s in view.member_plots), kit.Paragraphs(view.notes))),
    )  # fmt: skip
    if view.failures:  # first, under the headline that points to it
        sections = (_failures(view.failures), *sections)
    noun = "items" if view.kind == "jury" else "answers"
    return kit.Page(
        kind=cast(kit.PageKind, view.kind),
        title=view.title,
        headline=headline,
        facts=facts,
        sections=sections,
        explorer=kit.Explorer(view.spec, view.records, noun),
        summary=view.summary,
    )


def jury_page(report: JuryReport, *, header: OutHeader | None = None) -> kit.Page:
    """The page of a ``jury`` run (``header``: the ``--out`` file's, for its run facts)."""
    return panel_page(jury_view(report), header=header)


def score_jury_page(report: JuryScoreReport, *, header: OutHeader | None = None) -> kit.Page:
    """The page of a ``score-jury`` run (``header``: as :func:`jury_page`'s)."""
    return panel_page(score_jury_view(report), header=header)


def jury_html(report: JuryReport, *, header: OutHeader | None = None) -> str:
    """The HTML page ``jury --html`` writes (``header``: the run's, for its command line)."""
    return kit.page_html(jury_page(report, header=header))


def score_jury_html(report: JuryScoreReport, *, header: OutHeader | None = None) -> str:
    """The HTML page ``score-jury --html`` writes (``header``: as :func:`jury_html`'s)."""
    return kit.page_html(score_jury_page(report, header=header))


def jury_page_from_file(path: Path, *, seed: int, level: float, n_resamples: int) -> kit.Page:
    """The page of a ``jury --out`` file, every member replayed from its recorded calls.

    Raises:
        InputError: Not a ``jury --out`` file, or one that does not hold a whole run.
    """
    report, header = load_jury_report(path, seed=seed, level=level, n_resamples=n_resamples)
    page = jury_page(report, header=header)
    if header is not None and "adaptive" in header.settings:
        warnings = (*page.headline.warnings, worded(_ADAPTIVE, "stop_when"))
        page = dataclasses.replace(
            page, headline=dataclasses.replace(page.headline, warnings=warnings)
        )
    return page


def score_jury_page_from_file(path: Path, *, seed: int, level: float, n_resamples: int) -> kit.Page:
    """The page of a ``score-jury --out`` file, every member's scores read back.

    Raises:
        InputError: Not a ``score-jury --out`` file, or its rubric cannot be known.
    """
    report, header = load_score_jury_report(path, seed=seed, level=level, n_resamples=n_resamples)
    return score_jury_page(report, header=header)


OUT_FILE_PAGES: dict[str, kit.PageLoader] = {
    "jury": jury_page_from_file,
    "score-jury": score_jury_page_from_file,
}
"""The ``--out`` kinds this module draws, for ``fairjudge report``."""


def _records(path: Path, kind: str) -> tuple[OutHeader | None, list[tuple[int, dict[str, Any]]]]:
    """The header (checked to be ``kind``'s) and the item records, with their lines."""
    rows: list[tuple[int, dict[str, Any]]] = []
    header, records = header_and_records(
        path, lambda found: found.expect((kind,), reader=f"the {kind} page", path=str(path))
    )
    for number, record in records:
        if not isinstance(record, dict) or not isinstance(record.get("members"), dict):
            raise InputError(f"not a record of `fairjudge {kind} out`: it needs 'members'",
                             path=str(path), line=number, params="out")  # fmt: skip
        rows.append((number, record))
    if not rows:
        raise InputError(f"holds no {kind} record; give a file written by `{kind} out`",
                         path=str(path), params="out")  # fmt: skip
    return header, rows


def _fail(path: Path, number: int, kind: str, exc: Exception) -> InputError:
    return InputError(f"not a record of `fairjudge {kind} out` ({clipped(exc)})", path=str(path),
                      line=number, params="out")  # fmt: skip


def _pair(record: Mapping[str, Any]) -> Item:
    human, score = record.get("human"), record.get("human_score")
    return Item(
        question=question_of(record.get("question")),
        answer_1=record_text(record, "answer_1"),
        answer_2=record_text(record, "answer_2"),
        id=record_name(record, "id"),
        category=record_name(record, "category"),
        human=Outcome(str(human)) if human is not None else None,
        human_score=float(score) if score is not None else None,
    )


def _text_or_none(value: object) -> str | None:
    """The run's settings' judge: none for a panel (its members are named), as its --json."""
    return value if isinstance(value, str) else None


def load_jury_report(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> tuple[JuryReport, OutHeader | None]:
    """The report of a ``jury --out`` file, and the file's header.

    Raises:
        InputError: Not a ``jury --out`` file, or a record that is not one of its.
    """
    header, rows = _records(path, "jury")
    items = []
    for number, record in rows:
        try:
            items.append(_pair(record))
        except (ValueError, TypeError) as exc:
            raise _fail(path, number, "jury", exc) from None
    recorded = dict(header.settings) if header is not None else {}
    jury, rule = recorded_jury(path)
    try:
        # The orders are planned with the run's own seed, so the replay finds its calls.
        settings = EvalSettings(
            recorded.get("rule", "conservative"), int(recorded.get("rounds", 2)),
            bool(recorded.get("balanced", True)), int(recorded.get("seed", seed)), level,
            n_resamples, judge=_text_or_none(recorded.get("judge")),
            template=header.template if header else None,
            source=str(recorded.get("source") or path),
        )  # fmt: skip
        aggregation = check_rule(str(recorded.get("aggregation") or rule or "majority"),
                                 AGGREGATIONS)  # fmt: skip
    except (ConfigError, ValueError, TypeError) as exc:
        raise InputError(f"header: bad settings ({exc})", path=str(path), params="out") from None
    result = evaluate_jury(jury, items, settings, aggregation=aggregation)
    if settings.seed != seed:  # the figures' seed is the one given, as compare's report
        boot = dataclasses.replace(settings, seed=seed)
        members = tuple(summarise(list(m.judgments), boot) for m in result.members)
        result = dataclasses.replace(result, members=members, settings=boot)
        result = result.with_aggregation(aggregation)
    # The replayed members' usage is the replay's, not the run's: the run's is the
    # header's (none for a file written before headers kept it).
    result = dataclasses.replace(result, usage=kit.recorded_member_usage(header, len(result.names)))
    if any(m.n_not_run for m in result.members):
        result = dataclasses.replace(result, stopped=stop_reason(header))
    name = recorded_source_name(header, path)
    title = f"{name}: model 1 vs model 2, by a panel of {len(result.names)}"
    report = jury_report(result, title=title, run=kit.recorded_run(header))
    return report, header


def _answer_scores(entry: object) -> AnswerScores:
    if not isinstance(entry, dict) or not isinstance(entry.get("calls"), list):
        raise ValueError("a member's entry needs its 'calls'")
    reason = entry.get("reason")
    return AnswerScores(
        tuple(score_call(c) for c in entry["calls"]),
        {str(d): int(s) for d, s in (entry.get("scores") or {}).items()},
        {str(d): float(e) for d, e in (entry.get("expected") or {}).items()},
        reason if isinstance(reason, str) else None,
    )


def _scored(record: Mapping[str, Any], names: list[str]) -> PanelScoredItem:
    human = record.get("human") or {}
    if not isinstance(human, dict):
        raise ValueError("'human' must be an object of scores by dimension")
    item = ScoreItem(
        question=question_of(record.get("question")), answer=record_text(record, "answer"),
        id=record_name(record, "id"), reference=record_name(record, "reference"),
        category=record_name(record, "category"), system=record_name(record, "system"),
        human={str(d): float(s) for d, s in human.items()}, cluster=record_name(record, "cluster"),
    )  # fmt: skip
    members = record["members"]
    missing = [n for n in names if n not in members]
    if missing:
        raise ValueError(f"no entry for member {shown(missing[0])}")
    return PanelScoredItem(item, tuple(_answer_scores(members[n]) for n in names), {})


def _roster(header: OutHeader | None, first: Mapping[str, Any]) -> tuple[list[str], list[float]]:
    jury = first.get("jury")
    if isinstance(jury, list) and all(isinstance(m, dict) and "name" in m for m in jury):
        return [str(m["name"]) for m in jury], [float(m.get("weight", 1.0)) for m in jury]
    names = list(first["members"])
    weights = header.settings.get("weights") if header is not None else None
    if not isinstance(weights, list) or len(weights) != len(names):
        weights = [1.0] * len(names)
    return names, [float(w) for w in weights]


def load_score_jury_report(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> tuple[JuryScoreReport, OutHeader | None]:
    """The report of a ``score-jury --out`` file, and the file's header.

    Raises:
        InputError: Not a ``score-jury --out`` file, a record that is not one of its,
            or a rubric this fairjudge does not have built in.
    """
    header, rows = _records(path, "score-jury")
    tag = header.rubric if header is not None else rows[0][1].get("rubric")
    rubric = recorded_rubric(tag, header, path, command="score-jury")
    names, weights = _roster(header, rows[0][1])
    scored = []
    for number, record in rows:
        try:
            scored.append(_scored(record, names))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise _fail(path, number, "score-jury", exc) from None
    recorded = header.settings.get("aggregation") if header is not None else None
    rule = check_rule(str(recorded or rows[0][1].get("aggregation") or "mean"),
                      SCORE_AGGREGATIONS, what=" for scores")  # fmt: skip
    boot: dict[str, Any] = {"seed": seed, "level": level, "n_resamples": n_resamples}
    not_run = any(m.not_run for s in scored for m in s.members)
    with shared_resamples():  # as score-jury summarises: the same intervals, one draw per plan
        members = tuple(
            summarise_scores([ScoredItem(s.item, s.members[k]) for s in scored], rubric,
                             judge=name, **boot)
            for k, name in enumerate(names)
        )  # fmt: skip
        stopped = stop_reason(header) if not_run else None
        if stopped is not None:  # every member's summary says it, as the run's did
            members = tuple(dataclasses.replace(m, stopped=stopped) for m in members)
        result = JuryScoreResult(
            rubric, tuple(names), tuple(weights), rule, (), tuple(scored), members,
            CollapseRule(), seed, level, n_resamples, stopped,
            kit.recorded_member_usage(header, len(names)),
        ).with_aggregation(rule)  # fmt: skip
    title = recorded_source_name(header, path)
    report = score_jury_report(result, title=title, run=kit.recorded_run(header))
    return report, header
