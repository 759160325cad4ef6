"""The page of a ``compare --via-scores --out`` file, drawn on the score page.

A comparison via scores is a scoring run of two systems (``model 1`` and ``model 2``)
read as a win rate: so its page is the score page of its scores (each dimension, the
systems and their paired differences, the failures, every answer in the explorer),
under a headline and a first card of its own, the win rate via scores beside the
swap protocol's when the run had ``--with-swap``. :func:`via_scores_page` draws it
from the run (``compare --via-scores --html``, ``ViaScoresRun.to_html``) and
:func:`via_scores_page_from_file` from the ``--out`` file: the file's records hold
each pair's two scored answers (and its swap judgment); they are read back and
summarised again by ``compare --via-scores``'s own summary
(:func:`~fairjudge.evaluation.via_result`), under the rubric its header records, so
with its defaults the page is the one ``--html`` drew but for the command line.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import fairjudge.report._page as kit
from fairjudge._errors import InputError
from fairjudge._items import Item, Judgment
from fairjudge._types import Outcome
from fairjudge.evaluation import (
    PairwiseResult,
    ScoredItem,
    ViaScoresResult,
    summarise_scores,
    via_result,
)
from fairjudge.io import OutHeader, shown
from fairjudge.report._adaptive import recorded_stop
from fairjudge.report._comparison import comparison_report, labelled_truth
from fairjudge.report._page_compare import (
    estimated,
    figures_block,
    model_names,
    position_section,
)
from fairjudge.report._page_load import (
    calls_of,
    header_and_records,
    judged_record,
    record_name,
    recorded_rubric,
    recorded_source_name,
    scored_record,
    stop_reason,
    summarised,
)
from fairjudge.report._page_plots import Figure, forest_plot, not_estimated
from fairjudge.report._page_score import recorded_calls, score_page
from fairjudge.report._scores import score_report, via_scores_verdict
from fairjudge.report._text import ci_text, clipped, estimate_text, win_note

__all__ = ["OUT_FILE_PAGES", "via_scores_page", "via_scores_page_from_file"]

_KIND: Final = "compare-via-scores"


def _pair(record: object) -> tuple[Item, ScoredItem, ScoredItem, Judgment | None]:
    """A record's item, its two scored answers, and its swap judgment (``--with-swap``)."""
    if not isinstance(record, dict):
        raise ValueError("a line must be a JSON object")
    for key in ("scored_1", "scored_2"):  # a record is a pair: say which answer is missing
        if key not in record:
            raise ValueError(f"{key!r} is missing: a record holds both scored answers, "
                             f"'scored_1' and 'scored_2'")  # fmt: skip
        if not isinstance(record[key], dict):
            raise ValueError(f"{key!r} must be an object, the scored answer; got "
                             f"{shown(record[key])}")  # fmt: skip
    first, second = scored_record(record["scored_1"]), scored_record(record["scored_2"])
    swap = record.get("swap")
    item = _item(first, second, record)
    return item, first, second, None if swap is None else judged_record(swap)


def _item(first: ScoredItem, second: ScoredItem, record: dict[str, Any]) -> Item:
    """The pair the two answers were scored from; its cluster is theirs.

    Its human label and the models' names are the record's (a file written before
    records kept them has neither: no known truth, systems named model 1 and 2).
    """
    a, human = first.item, record.get("human")
    return Item(a.question, a.answer, second.item.answer, id=a.id, category=a.category,
                reference=a.reference, cluster=a.cluster,
                human=Outcome(str(human)) if human is not None else None,
                model_1=record_name(record, "model_1"),
                model_2=record_name(record, "model_2"))  # fmt: skip


def load_via_scores(
    path: Path, *, seed: int, level: float, n_resamples: int
) -> tuple[OutHeader, ViaScoresResult, PairwiseResult | None]:
    """The file's header, its comparison via scores and its swap run, summarised again.

    Raises:
        InputError: The file has no ``compare-via-scores`` header, a record is not a
            scored pair (named, with the line), or its rubric cannot be rebuilt.
    """
    pairs: list[tuple[Item, ScoredItem, ScoredItem, Judgment | None]] = []
    header, records = header_and_records(
        path,
        lambda found: found.expect((_KIND,), reader="the comparison-via-scores page",
                                   path=str(path)),
    )  # fmt: skip
    for number, record in records if header is not None else ():
        try:
            pairs.append(_pair(record))
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise InputError(f"not a record of `fairjudge compare out` via scores "
                             f"({clipped(exc)})", path=str(path), line=number,
                             params="out") from None  # fmt: skip
    if header is None:
        raise InputError("has no header line; give the whole file `fairjudge compare out` "
                         "wrote with via_scores", path=str(path), params="out")  # fmt: skip
    if not pairs:
        raise InputError("holds no scored pair; give a file written by out", path=str(path),
                         params="out")  # fmt: skip
    # A file written before the header recorded the rubric's dimensions and scale names
    # it only: a built-in one is rebuilt, another refused saying to compare again.
    rubric = recorded_rubric(header.rubric, header, path,
                             command="the comparison via scores")  # fmt: skip
    answers = [answer for _, first, second, _ in pairs for answer in (first, second)]
    scores = summarise_scores(answers, rubric, seed=seed, level=level, n_resamples=n_resamples,
                              judge=header.judge)  # fmt: skip
    margin = header.settings.get("tie_margin", 0.0)
    if not isinstance(margin, int | float) or isinstance(margin, bool) or not margin >= 0:
        raise InputError(f"header: bad tie_margin {margin!r}", path=str(path), params="out")
    result = via_result([item for item, _, _, _ in pairs], scores, margin)
    if any(a.scored.not_run for a in answers):
        generic = "a budget stopped the run before every call was made"
        result = replace(result, stopped=stop_reason(header, generic))
    swaps = [swap for _, _, _, swap in pairs if swap is not None]
    swap = summarised(path, header, swaps, seed, level, n_resamples)[1] if swaps else None
    return header, result, swap


def _win(label: str, result: Any) -> Figure:
    w = result.win_rate if result is not None else None
    if w is None:
        return not_estimated(label, "no item was resolved")
    return estimated(label, w.estimate, w.ci, f"n = {w.n}; W/T/L {w.wins}/{w.ties}/{w.losses}",
                     ".3f")  # fmt: skip


def _headline(result: ViaScoresResult, recorded: object) -> kit.Headline:
    """The win rate via scores and its verdict (an adaptive run's recorded one).

    The note names the systems as the input does (``model_1``, ``model_2``), as the
    compare page's headline does.
    """
    w, s = result.win_rate, result.scores
    verdict, notes = via_scores_verdict(result), tuple[str, ...]()
    if isinstance(recorded, dict):
        stop, notes = recorded_stop(recorded)
        verdict = stop or verdict
    warnings: list[str] = list(notes)
    if result.stopped is not None:
        warnings.insert(0, f"Partial result: {result.stopped.rstrip('.')}.")
    if w is None:
        return kit.Headline(verdict, warnings=tuple(warnings))
    estimable = w.ci.estimable
    names = model_names(p.item for p in result.pairs)
    return kit.Headline(
        verdict=verdict,
        label=f"Win rate of model 1 (via scores on rubric {s.rubric_tag}, tie margin "
        f"{result.tie_margin:g})",
        estimate=f"{w.estimate:.3f}" if estimable else "not estimated",
        ci=ci_text(w.ci) if estimable else f"({w.ci.reason})",  # its note's head too
        note=win_note(w) + (f"; {names}" if names else ""),
        warnings=tuple(warnings),
    )


def _wins_section(result: ViaScoresResult, swap: PairwiseResult | None) -> kit.Section:
    """Both win rates on one plot, the mean score difference, then the known truth.

    The known truth is the terminal's sentences (the input's human labels beside the
    result via scores), said only when every resolved item carries a label.
    """
    figures = [_win("Via scores", result)]
    if swap is not None:
        figures.append(_win(f"Swap protocol ({swap.settings.rule.value} rule)", swap))
    plot = forest_plot(figures, title="Win rate of model 1 with confidence intervals",
                       domain=(0.0, 1.0), ref=0.5, ref_label="0.5: no difference")  # fmt: skip
    d = result.difference
    lines = [f"{result.n_expected} of {result.n_items - result.n_unresolved} resolved items "
             "compared on probability-weighted scores."]  # fmt: skip
    if d.estimate is not None:
        lines.insert(0, "Mean score difference (model 1 − model 2): "
                     f"{estimate_text(d.estimate, d.ci, '+.2f')}.")  # fmt: skip
    pairs = [(p.item, p.outcome) for p in result.pairs]
    lines += labelled_truth(pairs, result.win_rate, "The result via scores")
    blocks = (figures_block(plot, figures, "method"), kit.Paragraphs(tuple(lines)))
    return kit.Section("fj-figures", "Win rates", blocks)


def via_scores_page(
    header: OutHeader, result: ViaScoresResult, swap: PairwiseResult | None, name: str
) -> kit.Page:
    """The page of a comparison via scores (the module docstring has its parts).

    ``header`` is its ``--out`` file's (the run-facts card and a recorded adaptive
    stop are read from it); ``name`` the input's, which titles the page. Its embedded
    summary is the command's ``--json`` but for what the file does not hold (the
    skipped input rows; the calls are the header's, as the run's), so a page drawn
    again from the file embeds the same.
    """
    title = f"{name}: model 1 vs model 2"
    scores = score_page(score_report(result.scores, title=title), header=header)
    made, cached = calls_of(result.scores)
    source = header.settings.get("source")
    extra = [
        ("source", source if isinstance(source, str) and source else kit.NOT_RECORDED),
        ("tie margin", f"{result.tie_margin:g}"),
        ("items", f"{result.n_items - result.n_unresolved} of {result.n_items} resolved"),
    ]
    if swap is not None:
        s = swap.settings
        extra.append(("swap protocol", f"template {s.template}, rule {s.rule.value}, rounds "
                      f"{s.rounds}"))  # fmt: skip
    if result.stopped is not None:
        extra.append(("stopped", result.stopped))
    facts = kit.run_facts(header, kind=_KIND, judge_or_members=result.scores.judge,
                          seed=result.seed, calls_made=made, calls_cached=cached,
                          extra=extra)  # fmt: skip
    sections = [_wins_section(result, swap), *scores.sections]
    if swap is not None:
        sections.append(position_section(swap))
    recorded = header.settings.get("adaptive")
    summary: dict[str, Any] = {
        "via_scores": result.to_dict(),
        "swap": comparison_report(swap, title=title).to_dict() if swap is not None else None,
        "calls": recorded_calls(header, result.scores.judge),  # as the run's --json
    }
    if isinstance(recorded, dict):
        summary["adaptive"] = recorded
    return kit.Page(_KIND, title, _headline(result, recorded), facts, tuple(sections),
                    scores.explorer, summary)  # fmt: skip


def via_scores_page_from_file(
    path: Path, *, seed: int = 0, level: float = 0.95, n_resamples: int = 2000
) -> kit.Page:
    """The page of a ``compare --via-scores --out`` file, summarised again.

    Titled by the input the header records (``source``); a file written before
    headers recorded it, by its own name.
    """
    header, result, swap = load_via_scores(path, seed=seed, level=level, n_resamples=n_resamples)
    return via_scores_page(header, result, swap, recorded_source_name(header, path))


OUT_FILE_PAGES: dict[str, kit.PageLoader] = {_KIND: via_scores_page_from_file}
"""The ``--out`` kinds this module draws, for ``fairjudge report``."""
