"""``fairjudge.rank``: a Bradley-Terry leaderboard of many models (``fairjudge rank``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from fairjudge._api._inputs import ROWS, file_renames, load_rows
from fairjudge._api._out import rank_out
from fairjudge._api._result import Result, opened, title
from fairjudge._api._runs import judge_pairs
from fairjudge._api._setup import JudgeSetup, setup_of
from fairjudge._errors import ConfigError, FairJudgeError
from fairjudge._items import Item
from fairjudge.evaluation import (
    Battles,
    EvalSettings,
    LongAnswers,
    PairwiseResult,
    battles_from,
    fit_battles,
    load_ranking_input,
    make_pairs,
)
from fairjudge.judges import BackendOptions, BatchJudge, CallableJudge, judge_name
from fairjudge.runner import Executor, RunOptions, RunSummary

__all__ = ["NothingResolved", "rank"]


class NothingResolved(FairJudgeError):
    """No judged pair has a verdict, so there are no battles to fit a leaderboard to.

    Raised after the calls, never for bad input: ``result`` holds every judgment
    (each failure and its reason), as a rank with some pairs unresolved keeps them,
    and :meth:`save` writes them as :meth:`Result.save` would have.
    """

    def __init__(self, result: PairwiseResult, judged: Result | None = None) -> None:
        self.result = result
        self._judged = judged
        how = f"{result.n_parse_failures} parse failures, {result.n_call_errors} call errors" + (
            f", {result.n_not_run} not run" if result.n_not_run else ""
        )
        super().__init__(
            f"none of the {result.n_items} pairs has a verdict ({how}), so there are no "
            "battles to rank; the error's result holds each judgment and why it failed"
        )

    def save(self, path: str | Path, *, header_extra: Mapping[str, Any] | None = None) -> Path:
        """Write the judged pairs, every failure with its reason, as :meth:`Result.save`.

        Raises:
            ConfigError: As :meth:`Result.save`.
        """
        if self._judged is None:  # pragma: no cover - rank always gives its run
            raise ConfigError("this error holds no run to save")
        return self._judged.save(path, header_extra=header_extra)


def _check(models: list[str], anchor: str | None, anchor_rating: float, l2: float,
           n_resamples: int) -> None:  # fmt: skip
    """The fit's settings, checked before the first judge call."""
    if not l2 >= 0:
        raise ConfigError(f"l2 must be >= 0; got {l2}", params="l2")
    if n_resamples < 1:
        raise ConfigError(f"n_resamples must be >= 1; got {n_resamples}", params="n_resamples")
    if not math.isfinite(anchor_rating):
        raise ConfigError(
            f"anchor_rating must be a finite number; got {anchor_rating}", params="anchor_rating"
        )
    if anchor is not None and anchor not in models:
        raise ConfigError(
            f"anchor {anchor!r} is not a model in the input; models: {models}", params="anchor"
        )


def _rows(report: Any) -> list[dict[str, Any]]:
    """One row per model, best first: rating and rank with their intervals, and the record.

    As ``rank --json`` has them: a rating or bound that cannot be estimated is ``None``
    (never NaN, which would read as a number that failed), and the ``reason`` columns
    say why (``None`` where it was estimated). With style control, its rating and
    interval as ``style_*`` columns, the same way (``style_reason``: say, the verdicts
    are separated by length, so ratings at equal style are not identified).
    """
    styled = {}
    if report.style_control is not None:
        styled = {r.model: r for r in report.style_control.ratings}
    rows = []
    for r in report.leaderboard.ratings:
        rating, ci, rank_ci = r.to_dict(), r.ci.to_dict(), r.rank_ci.to_dict()
        row = {"model": r.model, "rating": rating["rating"], "reason": r.reason,
               "ci_low": ci["low"], "ci_high": ci["high"], "ci_reason": r.ci.reason,
               "rank": r.rank, "rank_low": rank_ci["low"], "rank_high": rank_ci["high"],
               "n_battles": r.n_battles, "wins": r.wins, "losses": r.losses,
               "ties": r.ties}  # fmt: skip
        if r.model in styled:
            s = styled[r.model]
            style, style_ci = s.to_dict(), s.ci.to_dict()
            row |= {"style_rating": style["rating"], "style_reason": s.reason,
                    "style_ci_low": style_ci["low"], "style_ci_high": style_ci["high"],
                    "style_ci_reason": s.ci.reason}  # fmt: skip
        rows.append(row)
    return rows


def rank(
    items: Any,
    judge: str | BatchJudge | Callable[[str, str, str], Any] | None = None,
    *,
    pairing: Literal["all", "baseline", "sample"] = "all",
    baseline: str | None = None,
    pairs_per_question: int = 1,
    ties: Literal["half", "davidson"] = "half",
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    n_resamples: int = 1000,
    l2: float = 0.0,
    seed: int = 0,
    style_control: bool = False,
    setup: JudgeSetup | None = None,
    options: RunOptions | None = None,
    template: str | None = None,
    backend: BackendOptions | None = None,
    store: str | Path | None = None,
    columns: Mapping[str, str] | None = None,
    allow_empty: bool = False,
    executor: Executor | str | None = None,
    source: str | None = None,
    notify: Callable[[str], None] | None = None,
) -> Result:
    """Rank many models: judge pairs of their answers, fit Bradley-Terry (``fairjudge rank``).

    Args:
        items: Answers in long format (``question_id``, ``model``, ``answer``,
            optional ``question``), or already-judged battles (``model_a``,
            ``model_b``, ``winner``, optional ``question_id``), which need no judge:
            a file, a list of dicts, a pandas DataFrame, or what
            :func:`~fairjudge.evaluation.load_ranking_input` read.
        judge: As for :func:`fairjudge.compare`; ``None`` is the embedded default
            for answers, and must stay ``None`` for battles.
        pairing: Which pairs to judge: ``all``, every model against ``baseline``, or
            a seeded ``sample`` of ``pairs_per_question`` per question.
        baseline: The model for ``pairing="baseline"``.
        pairs_per_question: Pairs per question for ``pairing="sample"``.
        ties: ``half``: a tie is half a win; ``davidson``: a tie model.
        anchor: The model pinned at ``anchor_rating`` (default: the fit's own anchor).
        anchor_rating: Rating of the anchor model.
        n_resamples: Bootstrap rounds of the ratings' and ranks' intervals.
        l2: Ridge on ratings; 0 fits plain maximum likelihood, or, where the battles
            have none, the :data:`~fairjudge.evaluation.FALLBACK_L2` ridge (said in
            the result).
        seed: Seed of the pairing, the judging and the bootstrap.
        style_control: Also fit Arena-Hard style control (needs answers, not battles).
        setup: How a judge given as a spec is opened and run (:class:`JudgeSetup`);
            ``options``, ``template``, ``backend``, ``store`` and ``executor`` are
            its fields given one by one.
        options: A :class:`JudgeSetup` field.
        template: A :class:`JudgeSetup` field.
        backend: A :class:`JudgeSetup` field.
        store: A :class:`JudgeSetup` field.
        columns: Your column names -> the README's.
        allow_empty: Judge empty or blank answers instead of refusing the row.
        executor: A :class:`JudgeSetup` field.
        source: The input's name in the result and its page, for items read
            already (default: the file's path, or ``<rows>``).
        notify: Called with one line saying what will be judged, once the judge is
            open and before its first call (the command prints it).

    Returns:
        A :class:`Result` whose ``report`` is the ranking report (``to_dict()`` is
        ``rank --json``), ``result`` the judged pairs (``None`` for battles), and
        ``to_pandas()`` one row per model.

    Raises:
        ConfigError: A bad setting, or judge settings given with judged battles.
        NothingResolved: No judged pair has a verdict; its ``result`` holds the
            judgments and their failures.
    """
    the_setup = setup_of(setup, options=options, template=template, backend=backend,
                         store=store, executor=executor)  # fmt: skip
    the_setup.refuse_for_built(judge)  # a judge object runs with its own
    data, name = _loaded(items, columns, allow_empty)
    source = name if source is None else source
    models = (
        sorted(set(data.model_a) | set(data.model_b)) if isinstance(data, Battles) else data.models
    )
    _check(models, anchor, anchor_rating, l2, n_resamples)
    result: PairwiseResult | None = None
    run, sent_by = None, None
    if isinstance(data, Battles):
        given = {"judge": judge is not None, "pairing": pairing != "all",
                 "baseline": baseline is not None, "pairs_per_question": pairs_per_question != 1,
                 **{name: True for name in the_setup.given()}}  # fmt: skip
        unused = [name for name, set_ in given.items() if set_]
        if unused:
            raise ConfigError(
                f"{', '.join(unused)}: the items are judged battles, so no judge is called "
                "and these have no effect; leave them out",
                params=tuple(unused),
            )
        battles = data
    else:
        pairs = make_pairs(data, pairing=pairing, baseline=baseline,
                           pairs_per_question=pairs_per_question, seed=seed)  # fmt: skip
        result, run, sent_by = _judge(judge, the_setup, pairs, data, seed, source, notify)
        battles = battles_from(result)
    out = None if result is None else lambda: rank_out(
        result, sent_by, pairing=pairing, baseline=baseline,
        pairs_per_question=pairs_per_question, ties=ties, anchor=anchor,
        anchor_rating=anchor_rating, l2=l2, n_resamples_fit=n_resamples,
        style_control=style_control)  # fmt: skip
    if result is not None and not battles.outcomes:  # the judgments failed: no bad input
        raise NothingResolved(result, Result("rank", result, None, result.stopped,
                                             _html=_no_page, calls=run, sent_by=sent_by,
                                             _out=out))  # fmt: skip
    from fairjudge.report import RankingReport, page_html, rank_page

    leaderboard, styled = fit_battles(
        battles, ties=ties, style_control=style_control, anchor=anchor,
        anchor_rating=anchor_rating, l2=l2, n_resamples=n_resamples, seed=seed,
    )  # fmt: skip
    report = RankingReport(
        leaderboard, styled, result.n_unresolved if result is not None else 0,
        result.stopped if result is not None else None,
        result.failures if result is not None else {},
    )  # fmt: skip
    page_title = f"{title(source)}: leaderboard"
    return Result(
        "rank", result, report, result.stopped if result is not None else None,
        _rows=lambda: _rows(report),
        _html=lambda header: page_html(rank_page(report, title=page_title, result=result,
                                                 run=run, header=header)),
        _summary=lambda: "\n".join(
            b.summary() for b in (report.leaderboard, report.style_control) if b is not None
        ),
        calls=run, sent_by=sent_by, _out=out,
    )  # fmt: skip


def _no_page(header: Any) -> str:  # pragma: no cover - NothingResolved saves, draws nothing
    raise ConfigError("no pair has a verdict: there is no leaderboard to draw")


def _loaded(
    items: Any, columns: Mapping[str, str] | None, allow_empty: bool
) -> tuple[LongAnswers | Battles, str]:
    """The answers or battles, and the input's name: read here, or read already."""
    if isinstance(items, (LongAnswers, Battles)):
        return items, ROWS
    file_renames(items, columns, ())  # its reader renames no column of a file
    return load_rows(items, lambda path: load_ranking_input(path, allow_empty=allow_empty),
                     columns=columns)  # fmt: skip


def _judge(
    judge: Any, setup: JudgeSetup, pairs: list[Item], data: LongAnswers, seed: int, source: str,
    notify: Callable[[str], None] | None,
) -> tuple[PairwiseResult, RunSummary | None, Any]:  # fmt: skip
    """Judge the pairs in both orders; the result named by its judge and source, its calls."""

    def own(fn: Any) -> BatchJudge:  # your own judge, on the engine with options and store
        timeout = setup.refuse_for_own(fn)  # backend={"timeout": ...} alone applies
        return CallableJudge(
            fn, name=judge_name(fn), options=setup.options, store=setup.store, timeout=timeout
        )

    with opened(judge, setup.open_judge, own) as the_judge:  # every setting checked first
        if notify is not None:
            notify(f"{source}: {len(data.models)} models, {len(data.answers)} questions, "
                   f"{len(pairs)} pairs; each judged in both orders")  # fmt: skip
        # On a spent budget, rank what was judged; the result says it is partial.
        judged, _, run = judge_pairs(the_judge, pairs, EvalSettings(seed=seed))
        name = judge_name(the_judge)
    settings = replace(judged.settings, judge=name, source=source)
    return replace(judged, settings=settings), run, the_judge
