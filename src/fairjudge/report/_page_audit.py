"""The audit's page: the report card of a judge's biases, drawn from its :class:`AuditReport`.

One page per audit, in the kit's look (:mod:`fairjudge.report._page`): the headline,
the report card, the position card, a forest plot per experiment, the padded example,
the self-preference matrix and the position pairs in the explorer.

An ``audit --out`` file is the report's JSON cut in lines (the header, one summary
record, one record per experiment), so :func:`load_audit` rebuilds the report
exactly and the page drawn from the file is the page the run drew. A record the
report cannot be rebuilt from is refused with the file and line, never guessed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fairjudge.report._page as kit
from fairjudge._errors import InputError
from fairjudge.io import read_header, read_records
from fairjudge.report._page_audit_model import (
    EXPERIMENT_PROMPTS,
    RULES,
    SEVERITY,
    EffectView,
    effect_view,
    headline_effect,
    marked_parts,
    pair_explorer,
    pair_views,
    prompts_used,
    verdict_sentence,
)
from fairjudge.report._page_plots import Figure, forest_plot, heatmap
from fairjudge.report._text import ci_text

if TYPE_CHECKING:
    from fairjudge.audit import AuditReport, Effect, ExperimentResult
    from fairjudge.io import OutHeader
    from fairjudge.runner import RunSummary

__all__ = [
    "OUT_FILE_PAGES",
    "LoadedAudit",
    "audit_headline",
    "audit_page",
    "audit_page_from_file",
    "audit_payload",
    "load_audit",
]

_POSITION_CARD = ("first-position share of decisive calls", "position consistency", "flip rate")
_EFFECT_COLUMNS = ("effect (unit; no bias; n)", "estimate and interval", "verdict")


def audit_headline(report: AuditReport) -> str:
    """The audit's one-sentence conclusion: the page's headline and the JSON's ``headline``."""
    return verdict_sentence(report)


def audit_payload(
    report: AuditReport,
    calls_made: int | None,
    calls: RunSummary | Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The audit's ``--json``: the report, the calls made now, their totals and its headline.

    ``calls`` is every experiment's runs added up
    (:meth:`~fairjudge.runner.RunSummary.total_of`), as another command's ``calls``
    block: requests, refused requests, tokens and cost, beside the per-experiment
    ``n_calls``.
    """
    payload = report.to_dict()
    if calls_made is not None:
        payload["calls_made"] = calls_made
    if calls is not None:  # a run's summary, or the block an --out file recorded
        payload["calls"] = dict(calls) if isinstance(calls, Mapping) else calls.to_dict()
    payload["headline"] = audit_headline(report)
    return payload


def _css(verdict: str) -> str:
    return "fj-noci" if verdict == "not estimable" else f"fj-v-{verdict}"


def _shown(v: EffectView) -> str:
    """The estimate and its interval, or only why there is no number."""
    return f"not estimable: {v.reason}" if v.reason is not None else f"{v.estimate} {v.interval}"


def _effect_row(v: EffectView) -> tuple[str, ...]:
    # Three columns, the unit, no-bias value and n beside the name: a 390 px phone shows
    # the table whole.
    return (f"{v.name} ({v.unit}; no bias: {v.null}; n = {v.n})", _shown(v), v.verdict)


def _forest(views: Sequence[EffectView], title: str) -> kit.PlotBlock:
    """Every effect against the no-bias line, on the axis the verdicts are written in."""
    figures = [
        Figure(v.name, v.distance, v.distance_low, v.distance_high,
               f"{v.estimate} {v.interval} ({v.unit}); {v.verdict}")
        if v.reason is None
        else Figure(v.name, None, None, None, f"not estimable: {v.reason}", reason=v.reason)
        for v in views
    ]  # fmt: skip
    ends = [abs(x) for v in views for x in (v.distance_low, v.distance_high) if x is not None]
    reach = max([0.2, *ends]) * 1.05  # at least past the severe threshold, both sides
    plot = forest_plot(figures, title=title, domain=(-reach, reach), ref=0.0,
                       ref_label="no bias", tick_format="+.2f")  # fmt: skip
    classes = tuple(_css(v.verdict) for v in views)
    table = kit.FigureTable(
        "The effects in numbers", _EFFECT_COLUMNS, tuple(_effect_row(v) for v in views),
        dict(enumerate(classes)),
    )  # fmt: skip
    return kit.PlotBlock(plot, table, classes)


def _experiment_section(
    exp: ExperimentResult, index: int, judges: int, *, example: bool = True
) -> kit.Section:
    views = [effect_view(e) for e in exp.effects]
    views += [effect_view(e, residual=True) for e in exp.residual]
    who = f" ({exp.judge})" if judges > 1 or exp.bias == "self-preference" else ""
    blocks: list[Any] = [
        kit.Paragraphs((
            f"{exp.bias}: {exp.verdict}. Each row is an effect's distance from no bias (the "
            "line at 0) as a share of its scale: notable from 0.05, severe from 0.15 either "
            "side. The numbers in the rows are the effect's own, in its unit.",
        )),
        _forest(views, f"{exp.bias}{who}: distance from no bias, as a share of the scale"),
        kit.Details("Why each verdict", tuple(f"{v.name}: {v.rule}" for v in views)),
    ]  # fmt: skip
    counts = [f"{exp.n_items} items, {exp.n_calls} calls"]
    if exp.n_failed:
        counts.append(f"{exp.n_failed} call(s) gave no usable reply (left out, never scored)")
    if exp.mitigation:  # a residual was measured under it, or it is the advice
        lead = "residual measured under the mitigation" if exp.residual else "mitigation"
        counts.append(f"{lead}: {exp.mitigation}")
    blocks.append(kit.Paragraphs(tuple(counts), bullets=True))
    blocks += (_example(exp.details) if example else []) + _matrix(exp.details)
    return kit.Section(f"fj-exp-{index}", f"{exp.bias.capitalize()}{who}", tuple(blocks))


def _example(details: Mapping[str, Any]) -> list[Any]:
    """The padded answer beside its concise original, what the padding added marked."""
    ex = details.get("example")
    if not isinstance(ex, Mapping) or not isinstance(ex.get("concise"), str):
        return []
    concise = ex["concise"]
    panels: list[tuple[str, tuple[tuple[str, bool], ...]]] = [
        (f"concise original ({ex.get('concise_words')} words)", ((concise, False),))
    ]
    if isinstance(ex.get("padded"), str):
        panels.append((f"padded ({ex.get('padded_words')} words; added text marked)",
                       marked_parts(concise, ex["padded"])))  # fmt: skip
    if isinstance(ex.get("repetitive_list"), str):
        panels.append(("repetitive list (added text marked)",
                       marked_parts(concise, ex["repetitive_list"])))  # fmt: skip
    lead = kit.Paragraphs((f"Example (item {ex.get('id')}): the same content, padded. The marked "
                           "text adds nothing: an unbiased judge scores both alike.",))  # fmt: skip
    return [lead, kit.Highlighted(tuple(panels))]


def _matrix(details: Mapping[str, Any]) -> list[Any]:
    """The self-preference matrix: each judge's mean score per answer family."""
    matrix = details.get("matrix")
    if not isinstance(matrix, Mapping) or not matrix:
        return []
    judges = [str(j) for j in matrix]
    families = sorted({str(f) for row in matrix.values() if isinstance(row, Mapping) for f in row})
    given = details.get("families")
    own: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    values: list[list[float | None]] = []
    reasons: dict[tuple[int, int], str] = {}
    for r, judge in enumerate(judges):
        row = matrix[judge] if isinstance(matrix[judge], Mapping) else {}
        values.append([])
        for c, family in enumerate(families):
            value = row.get(family)
            values[-1].append(float(value) if isinstance(value, int | float) else None)
            if values[-1][-1] is None:
                reasons[(r, c)] = f"no {family} answer was scored by every judge"
    found = [v for row in values for v in row if v is not None]
    domain = (min(found), max(found)) if found else (0.0, 1.0)
    labels = [f"{j} (family {own[j]})" if j in own else j for j in judges]
    title = "Mean score (standard rubric, overall): judge x answer family"
    plot = heatmap(labels, families, values, title=title, domain=domain, reasons=reasons)
    rows = tuple(
        (label, *(f"{v:.2f}" if v is not None else f"n/a: {reasons[(r, c)]}"
                  for c, v in enumerate(values[r])))
        for r, label in enumerate(labels)
    )  # fmt: skip
    table = kit.FigureTable(title, ("judge", *families), rows)
    note = kit.Paragraphs(("A judge's own family is in its row's label. A higher mean on its own "
                           "family is not yet self-preference: the own-family advantage above "
                           "compares it with the other judges' view of the answers.",))  # fmt: skip
    return [kit.PlotBlock(plot, table), note]


def _card(report: AuditReport) -> kit.Section:
    """The report card: one row per experiment and judge, and the verdict table."""
    rows, classes = [], {}
    for i, exp in enumerate(report.experiments):
        who = f"{exp.judge}: " if exp.judge and len(report.judges) > 1 else ""
        if exp.skipped is not None:
            rows.append((exp.bias, "skipped", who + exp.skipped))
            classes[i] = "fj-noci"
            continue
        worst = max(exp.effects, key=lambda e: SEVERITY.index(e.verdict), default=None)
        what = "" if worst is None else f"worst: {effect_view(worst).name}"
        if worst is not None and worst.ci.cannot_vary:  # its point decides nothing: marked
            what += f" ({(worst.ci.note or '').partition(':')[0]})"
        rows.append((exp.bias, exp.verdict, who + what))
        classes[i] = _css(exp.verdict)
    table = kit.FigureTable("Verdict per experiment", ("bias", "verdict", "note"), tuple(rows),
                            classes, id="fj-card-table")  # fmt: skip
    return kit.Section(
        "fj-card", "Report card", (table, kit.Details("How the verdicts are decided", RULES))
    )


def _position_card(report: AuditReport) -> kit.Section | None:
    """First-position share, consistency and flip rate: one table per judge."""
    tables: list[kit.FigureTable] = []
    for exp in report.experiments:
        if exp.bias != "position" or exp.skipped is not None:
            continue
        by_name = {e.name: effect_view(e) for e in exp.effects}
        views = [by_name[n] for n in _POSITION_CARD if n in by_name]
        rows = tuple((f"{v.name} (no bias: {v.null})", _shown(v), v.verdict) for v in views)
        classes = {i: _css(v.verdict) for i, v in enumerate(views)}
        caption = exp.judge if len(report.judges) > 1 else ""
        tables.append(kit.FigureTable(caption, ("measure", "estimate and interval", "verdict"),
                                      rows, classes,
                                      id=f"fj-position-table-{len(tables) + 1}"))  # fmt: skip
    if not tables:
        return None
    note = kit.Paragraphs(("Each pair is judged twice, the answers swapped. The first-position "
                           "share is of the decisive calls; consistency is the share of pairs "
                           "whose two verdicts agree; the flip rate, the share whose verdict "
                           "followed the position.",))  # fmt: skip
    return kit.Section("fj-position", "Position card", (*tables, note))


def _headline(report: AuditReport) -> kit.Headline:
    warnings = []
    if report.stopped is not None:
        warnings.append(f"Partial report: {report.stopped} The experiments after the stop "
                        "are listed as not run.")  # fmt: skip
    if report.n_failed:
        warnings.append(f"{report.n_failed} call(s) gave no usable reply: left out, never "
                        "scored.")  # fmt: skip
    worst = headline_effect(report)
    if worst is None or worst[1].verdict == "not estimable":
        return kit.Headline(audit_headline(report), warnings=tuple(warnings))
    exp, effect = worst
    v = effect_view(effect)
    return kit.Headline(
        audit_headline(report), label=f"{exp.bias}: {effect.name}",
        estimate=v.estimate or "-", ci=ci_text(effect.ci),
        note=f"{effect.unit}; no bias is {effect.null:g}; n = {effect.n}",
        warnings=tuple(warnings),
    )  # fmt: skip


def audit_page(
    report: AuditReport,
    *,
    calls_made: int | None = None,
    header: OutHeader | None = None,
    summary: Mapping[str, Any] | None = None,
) -> kit.Page:
    """The audit's page (see the module docstring).

    Args:
        report: The audit's report.
        calls_made: Calls this run made (the rest of ``report.n_calls`` came from the store).
        header: The ``audit --out`` file's header, when drawn from one.
        summary: The ``--json`` to embed; by default :func:`audit_payload`'s.
    """
    s = report.settings
    cached = None if calls_made is None else max(report.n_calls - calls_made, 0)
    facts = kit.run_facts(
        header, kind="audit", judge_or_members=list(report.judges),
        template_or_rubric=prompts_used(report),
        seed=s.seed, calls_made=calls_made, calls_cached=cached,
        extra=(("items", f"{report.n_items} from {report.source}"),
               ("intervals", f"{s.level:.0%}, {s.n_resamples} bootstrap resamples, clustered "
                "by question")),
    )  # fmt: skip
    ran = [e for e in report.experiments if e.skipped is None]
    sections = [_card(report)]
    position = _position_card(report)
    sections += [position] if position is not None else []
    for i, exp in enumerate(ran):
        # The padded example is the same text for every judge (same items, same seed): once.
        first = next(e for e in ran if e.bias == exp.bias) is exp
        sections.append(_experiment_section(exp, i, len(report.judges), example=first))
    views = pair_views(report)
    if not views and any(e.bias == "position" for e in ran):
        sections.append(kit.Section("fj-pairs-missing", "Pairs", (kit.Paragraphs((
            "The per-pair verdicts are not in this report (an audit file written before "
            "fairjudge recorded them): the position figures above stand, the pairs cannot "
            "be listed.",)),)))  # fmt: skip
    return kit.Page(
        kind="audit", title=f"Audit of {', '.join(report.judges)} on {report.source}",
        headline=_headline(report), facts=facts, sections=tuple(sections),
        explorer=pair_explorer(views),
        summary=dict(summary) if summary is not None else audit_payload(report, calls_made),
    )  # fmt: skip


_EFFECT_KEYS = ("name", "estimate", "ci", "null", "unit", "scale", "n", "verdict", "note")
_EXPERIMENT_KEYS = ("bias", "judge", "effects", "residual", "mitigation", "n_items", "n_calls",
                    "n_failed", "details", "skipped")  # fmt: skip
_SUMMARY_KEYS = ("judges", "source", "n_items", "settings", "stopped")


@dataclass(frozen=True, slots=True)
class LoadedAudit:
    """An audit file read back: the report, its header and the run's extra fields.

    Attributes:
        report: The report, as the run built it.
        header: The file's header (``None`` for a file written without one).
        calls_made: Calls the run made (the rest came from the store); ``None`` if absent.
        calls: Every experiment's runs added up, as ``--json``'s ``calls``; ``None`` in
            a file written before the summary record carried it.
    """

    report: AuditReport
    header: OutHeader | None
    calls_made: int | None
    calls: Mapping[str, Any] | None = None


class _Bad(Exception):
    """A field of a record is missing or of the wrong type (the message says which)."""


def _need(record: Mapping[str, Any], keys: tuple[str, ...], what: str) -> None:
    missing = [k for k in keys if k not in record]
    if missing:
        raise _Bad(f"{what} record lacks {', '.join(missing)}")


def _number(value: object, what: str, *, optional: bool = False) -> float:
    if value is None and optional:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(f"{what} must be a number; got {type(value).__name__}")
    return float(value)


def _effect(record: object) -> Effect:
    from fairjudge.audit import Effect
    from fairjudge.stats import ConfidenceInterval

    if not isinstance(record, Mapping):
        raise _Bad("an effect must be an object")
    _need(record, _EFFECT_KEYS, "effect")
    ci = record["ci"]
    if not isinstance(ci, Mapping) or "level" not in ci:
        raise _Bad(f"effect {record['name']!r}: its ci must be an object with a level")
    reason, how = ci.get("reason"), ci.get("note")  # note: a Wilson interval's, as written
    interval = ConfidenceInterval(
        _number(ci.get("low"), "ci low", optional=True),
        _number(ci.get("high"), "ci high", optional=True),
        _number(ci["level"], "ci level"),
        None if reason is None else str(reason),
        note=None if how is None else str(how),
    )
    estimate = record["estimate"]
    return Effect(
        str(record["name"]), None if estimate is None else _number(estimate, "estimate"),
        interval, _number(record["null"], "null"), str(record["unit"]),
        _number(record["scale"], "scale"), int(_number(record["n"], "n")),
        record["verdict"], None if record["note"] is None else str(record["note"]),
    )  # fmt: skip


def _experiment(record: Mapping[str, Any]) -> ExperimentResult:
    from fairjudge.audit import ExperimentResult

    _need(record, _EXPERIMENT_KEYS, "experiment")
    details = record["details"]
    if not isinstance(details, Mapping):
        raise _Bad("an experiment's details must be an object")
    effects, residual = record["effects"], record["residual"]
    if not isinstance(effects, list) or not isinstance(residual, list):
        raise _Bad("an experiment's effects and residual must be lists")
    return ExperimentResult(
        str(record["bias"]), str(record["judge"]), tuple(_effect(e) for e in effects),
        tuple(_effect(e) for e in residual),
        None if record["mitigation"] is None else str(record["mitigation"]),
        int(_number(record["n_items"], "n_items")), int(_number(record["n_calls"], "n_calls")),
        int(_number(record["n_failed"], "n_failed")), dict(details),
        None if record["skipped"] is None else str(record["skipped"]),
    )  # fmt: skip


def _settings(value: object) -> Any:
    from fairjudge._types import Resolution
    from fairjudge.audit import AuditSettings

    if not isinstance(value, Mapping):
        raise _Bad("settings must be an object")
    known = {f.name for f in fields(AuditSettings)}
    given = {k: v for k, v in value.items() if k in known}
    if isinstance(given.get("framing_templates"), list):
        given["framing_templates"] = tuple(given["framing_templates"]) or None
    if "rule" in given:
        given["rule"] = Resolution(given["rule"])
    return AuditSettings(**given)


def load_audit(path: Path) -> LoadedAudit:
    """Read an ``audit`` out file back into its report.

    Raises:
        InputError: The file is not an audit file, or a record lacks what the report
            needs (the message names the file, the line and the field).
    """
    from fairjudge.audit import AuditReport

    name = str(path)
    header: OutHeader | None = None
    summary: Mapping[str, Any] | None = None
    experiments: list[ExperimentResult] = []
    for count, (line, record) in enumerate(read_records(path)):
        if count == 0:
            header = read_header(record, path=name, line=line)
            if header is not None:
                header.expect(["audit"], reader="the audit page", path=name)
                continue
        try:
            if not isinstance(record, Mapping):
                raise _Bad("a record must be an object")
            kind = record.get("kind")
            if kind == "audit" and summary is None:
                _need(record, _SUMMARY_KEYS, "summary")
                summary = record
            elif kind == "experiment":
                experiments.append(_experiment(record))
            else:
                raise _Bad(f"unexpected record kind {kind!r} (an audit file holds one 'audit' "
                           "summary, then 'experiment' records)")  # fmt: skip
        except (_Bad, ValueError, TypeError, InputError) as exc:
            raise InputError(f"cannot rebuild the audit report: {exc}", path=name,
                             line=line) from None  # fmt: skip
    if summary is None:
        raise InputError("cannot rebuild the audit report: the file has no 'audit' summary "
                         "record (judges, source, settings)", path=name)  # fmt: skip
    try:
        settings = _settings(summary["settings"])
        judges = summary["judges"]
        if not isinstance(judges, list):
            raise _Bad("judges must be a list")
        report = AuditReport(
            tuple(str(j) for j in judges), tuple(experiments),
            int(_number(summary["n_items"], "n_items")), str(summary["source"]), settings,
            None if summary["stopped"] is None else str(summary["stopped"]),
        )  # fmt: skip
    except (_Bad, ValueError, TypeError, InputError) as exc:
        raise InputError(f"cannot rebuild the audit report from its summary: {exc}",
                         path=name) from None  # fmt: skip
    _check_whole(report, summary.get("n_calls"), name)
    made = summary.get("calls_made")
    calls = summary.get("calls")
    return LoadedAudit(
        report, header, made if isinstance(made, int) else None,
        dict(calls) if isinstance(calls, Mapping) else None,
    )  # fmt: skip


def _check_whole(report: AuditReport, recorded: object, path: str) -> None:
    """Refuse an audit file cut short, which parses line by line when cut at a line's end.

    A run lists every experiment, run or skipped (:data:`EXPERIMENT_PROMPTS`; a budget's
    stop lists those it did not run), self-preference last, and its summary's
    ``n_calls`` adds up theirs.
    """
    missing = [bias for bias in EXPERIMENT_PROMPTS
               if bias not in {e.bias for e in report.experiments}]  # fmt: skip
    said = []
    if type(recorded) is int and report.n_calls < recorded:
        said.append(f"hold {report.n_calls} of the {recorded} judge calls its summary records")
    if missing:
        said.append(f"lack {', '.join(missing)} (an audit lists every experiment, run or "
                    "skipped)")  # fmt: skip
    if said:
        raise InputError(f"its {len(report.experiments)} experiment records {' and '.join(said)}: "
                         "the file is cut short or edited, and a page of it would not be the "
                         "run's; write it again with the command's out", path=path,
                         params="out")  # fmt: skip


def audit_page_from_file(path: Path, *, seed: int, level: float, n_resamples: int) -> kit.Page:
    """The page of an ``audit --out`` file.

    ``seed``, ``level`` and ``n_resamples`` are the loaders' shared signature; an audit
    file holds every estimate and interval the run computed, so nothing is resampled
    and the page shows the run's own figures (its settings are in the facts card).

    Raises:
        InputError: The file is not an audit file, or a record lacks what the report
            needs (named, with the line).
    """
    loaded = load_audit(path)
    payload = audit_payload(loaded.report, loaded.calls_made, loaded.calls)
    return audit_page(loaded.report, calls_made=loaded.calls_made, header=loaded.header,
                      summary=payload)  # fmt: skip


OUT_FILE_PAGES: dict[str, kit.PageLoader] = {"audit": audit_page_from_file}
"""The ``--out`` kinds this module draws, for ``fairjudge report``."""
