"""The notebook API: one call per command, over the library the commands use.

Each function loads items the way the command loads its file, opens the judge from
a :class:`JudgeSetup` the way the command's flags open it, runs it through the
one orchestration (:mod:`fairjudge._api._runs`) and wraps its result and the
command's report model in a :class:`Result`. The commands call these very
functions. A budget stop returns the partial result with ``stopped`` set. Here:
``compare`` and ``calibrate`` (its report, :class:`Calibration`, and its run on rubric
scores, which loads the pointwise judges only when called).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairjudge._api._inputs import check_label_column, file_renames, load_rows, read_already
from fairjudge._api._out import compare_out, score_out
from fairjudge._api._panel import JudgesLike, check_one_of, run_jury
from fairjudge._api._result import Result, opened, pairwise_rows, scored_rows, title
from fairjudge._api._runs import judge_pairs, recorded_template, stop_rule
from fairjudge._api._setup import JudgeSetup, setup_of
from fairjudge._errors import ConfigError
from fairjudge._items import Item
from fairjudge.audit import MIN_KAPPA, MIN_SPEARMAN
from fairjudge.evaluation import EvalSettings
from fairjudge.io import Columns, load_items
from fairjudge.judges import BackendOptions, BatchJudge, CallableJudge, judge_name
from fairjudge.runner import Executor, RunOptions
from fairjudge.stats import Population, StopRule

if TYPE_CHECKING:
    from fairjudge.judges import ScoreMode
    from fairjudge.prompts import Rubric

__all__ = ["Calibration", "calibrate", "calibrate_scores", "compare"]

_PAIR_COLUMNS = {f for f in Columns.__dataclass_fields__}


def _pairwise_items(
    items: Any, columns: Mapping[str, str] | None, skip_invalid: bool, allow_empty: bool,
    source: str | None = None,
) -> tuple[list[Item], str, list[dict[str, Any]]]:  # fmt: skip
    """Items from a path, rows, a DataFrame or :class:`Item` objects; with skipped rows."""
    ready = read_already(items, Item, source, skip_invalid=skip_invalid, allow_empty=allow_empty)
    if ready is not None:
        return ready
    cols = Columns(**file_renames(items, columns, [f.name for f in fields(Columns)]))
    loaded, name = load_rows(
        items,
        lambda path: load_items(
            path, columns=cols, skip_invalid=skip_invalid, allow_empty=allow_empty
        ),
        columns=columns,
    )
    return loaded.items, source or name, loaded.skipped_records()


def _page(report: Any, header: Any) -> str:
    """The comparison's page: the page kit loads with the first ``to_html()``, not the run."""
    from fairjudge.report import compare_page, page_html

    return page_html(compare_page(report, header=header))


def compare(
    items: Any,
    judge: str | BatchJudge | Callable[[str, str, str], Any] | None = None,
    *,
    judges: JudgesLike = None,
    aggregate: str | None = None,
    weights: Sequence[float] | None = None,
    settings: EvalSettings | None = None,
    setup: JudgeSetup | None = None,
    columns: Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
    source: str | None = None,
    stop_when: str | Sequence[str] | StopRule | None = None,
    batch: int | None = None,
    population: Population | str | None = None,
    template: str | None = None,
    backend: BackendOptions | None = None,
    options: RunOptions | None = None,
    store: str | Path | None = None,
    executor: Executor | str | None = None,
) -> Result:
    """Compare two systems' answers with the position-debiased protocol (``fairjudge compare``).

    Args:
        items: A file (JSONL, CSV, Parquet), a list of dicts or :class:`Item` objects,
            a pandas DataFrame, or what :func:`fairjudge.io.load_items` read, with
            columns ``question``, ``answer_1``, ``answer_2`` and optional ``id``,
            ``reference``, ``category``, ``human``.
        judge: A spec (``"openai/gpt-4o-mini"``, ``"local/..."``,
            ``"python:module:function"``, ``"replay:FILE"``; ``None``: the embedded
            default), a function ``judge(question, answer_a, answer_b)`` or a judge
            object (:class:`~fairjudge.judges.LLMJudge`, a jury, ...).
        judges: A panel instead of ``judge`` (``fairjudge jury``): a list of members
            (specs, functions, judge objects, :class:`~fairjudge.judges.MemberSpec`),
            a jury TOML file, or a :class:`~fairjudge.judges.Jury`. Members given as
            specs share one session, store and budget.
        aggregate: The panel's rule: ``majority`` (default) or ``mean``.
        weights: One weight per member of a ``judges`` list, in order (default 1 each).
        settings: Rule, rounds, seed, level and resamples (the command's settings).
        setup: How judges opened from specs (and your own functions) run: template,
            backend, run options, store, executor (:class:`JudgeSetup`).
        columns: Your column names -> the README's (``{"prompt": "question"}``).
        skip_invalid: Set invalid rows aside (listed in the result) instead of stopping.
        allow_empty: Judge empty or blank answers instead of refusing the row.
        source: The items' name in the result and the title (default: the file's
            path, or ``<rows>``).
        stop_when: Stop once the answer is known (``compare --stop-when``):
            ``"decided"``, ``"width:W"`` or both; questions are judged in a seeded
            order, a batch at a time, and the result reports the anytime-valid
            interval in ``to_dict()["adaptive"]``; with ``judges``, the panel's.
        batch: Questions per batch with ``stop_when`` (default: one wave of the
            run's concurrency).
        population: With ``stop_when``, what the interval and the decision are about:
            ``"source"`` (default), questions like these, the population the file's
            questions are drawn from; ``"file"``, this file's questions only (any case).
        template: Shorthand for ``setup=JudgeSetup(template=...)``.
        backend: Shorthand for ``setup=JudgeSetup(backend=...)``.
        options: Shorthand for ``setup=JudgeSetup(options=...)``.
        store: Shorthand for ``setup=JudgeSetup(store=...)``.
        executor: Shorthand for ``setup=JudgeSetup(executor=...)``.

    Returns:
        A :class:`Result` whose ``result`` is a :class:`~fairjudge.PairwiseResult`,
        or with ``judges`` a :class:`~fairjudge.evaluation.JuryResult` (kind ``jury``).

    Raises:
        InputError: An invalid row (named by file and line, or ``<rows>:N``).
        ConfigError: A bad setting (``stop_when``, ``batch`` and ``population`` before
            the items are read), an option that does not apply to the judge, a
            setup field given twice (in ``setup`` and as a keyword), both ``judge``
            and ``judges``, or a template that needs references some items lack.

    Example:
        >>> r = compare([{"question": "q", "answer_1": "long answer", "answer_2": "s"}],
        ...             lambda q, a, b: "A" if len(a) >= len(b) else "B")
        >>> r.result.win_rate.estimate
        1.0
    """
    check_one_of(judge, judges, weights, aggregate)
    the_setup = setup_of(setup, template=template, backend=backend, options=options,
                         store=store, executor=executor)  # fmt: skip
    the_setup.refuse_for_built(judge)  # a judge object runs with its own
    rule = stop_rule(stop_when, batch, population)  # before the items are read
    the_settings = settings or EvalSettings()
    item_list, source, skipped = _pairwise_items(items, columns, skip_invalid, allow_empty, source)
    if judges is not None:
        return run_jury(
            item_list, source, skipped, judges, the_settings, weights=weights,
            aggregate=aggregate, setup=the_setup, stop_when=rule, batch=batch,
        )  # fmt: skip

    def open_spec(spec: str | None) -> BatchJudge:
        return the_setup.open_judge(spec, rounds=the_settings.rounds)

    def own(fn: Any) -> BatchJudge:  # your own judge, on the engine with options and store
        timeout = the_setup.refuse_for_own(fn)  # backend={"timeout": ...} alone applies
        return CallableJudge(fn, name=judge_name(fn), options=the_setup.options,
                             store=the_setup.store, timeout=timeout)  # fmt: skip

    the_setup.check_references(judge, item_list)  # before a model loads or a call is made
    with opened(judge, open_spec, own) as the_judge:
        result, adaptive, run = judge_pairs(
            the_judge, item_list, the_settings, stop_when=rule, batch=batch
        )  # fmt: skip
        name, recorded = judge_name(the_judge), recorded_template(the_judge)
    from dataclasses import replace

    from fairjudge.report import comparison_report

    result = replace(
        result, settings=replace(result.settings, judge=name, source=source, template=recorded)
    )
    if adaptive is not None:
        adaptive = replace(adaptive, pairwise=result)
    report = comparison_report(
        result, title=f"{title(source)}: model 1 vs model 2", run=run, skipped=skipped,
        adaptive=adaptive,
    )  # fmt: skip
    return Result(
        "compare", result, report, result.stopped,
        _rows=lambda: pairwise_rows(result.judgments),
        _html=lambda header: _page(report, header),
        _summary=None if adaptive is None else adaptive.summary, calls=run, sent_by=the_judge,
        _out=lambda: compare_out("compare", result, adaptive),
    )  # fmt: skip


def _refuse_single_answers(items: Any, columns: Mapping[str, str] | None) -> None:
    """A file of single answers without ``rubric``: name the option, not every row's column.

    ``fairjudge calibrate`` tells such a file from pairs by its columns
    (:func:`~fairjudge.io.is_pointwise_file`); here ``rubric=`` says which it is.
    """
    from fairjudge.io import is_pointwise_file

    if not isinstance(items, (str, Path)) or str(items) == "-":
        return
    mine = {readme: col for col, readme in (columns or {}).items()}
    if is_pointwise_file(Path(items), (mine.get("answer_1", "answer_1"),
                                       mine.get("answer_2", "answer_2"))):  # fmt: skip
        raise ConfigError(
            f"{items} holds single answers (an 'answer' column), not pairs: pass rubric= "
            "(e.g. rubric='production') to calibrate its human_<dimension> scores",
            params="rubric",
        )


@dataclass(frozen=True, slots=True)
class Calibration:
    """``calibrate``'s report: its figures and gate, what they were read from, its JSON.

    Attributes:
        figures: Pairwise, :func:`fairjudge.audit.calibration_report`'s report
            (``gate``: a :class:`~fairjudge.audit.CalibrationGate`); on rubric
            scores, a :class:`~fairjudge.audit.ScoreCalibration`.
        page: Pairwise, the comparison report the figures were computed from (its
            page and Markdown show them); ``None`` on rubric scores.
        payload: ``calibrate --json``: the figures as JSON, the calls, the skipped rows.
    """

    figures: Any
    page: Any
    payload: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """``calibrate --json``."""
        return self.payload


def calibrate_scores(
    items: Any, judge: Any, rubric: str | Rubric, *, mode: ScoreMode, min_spearman: float,
    seed: int, level: float, n_resamples: int, setup: JudgeSetup,
    columns: Mapping[str, str] | None, skip_invalid: bool, allow_empty: bool, source: str | None,
) -> Result:  # fmt: skip
    """Score every answer against ``rubric``, then each dimension against the human scores.

    Every item needs a ``human_<dimension>`` score on some dimension; the gate is
    Spearman >= ``min_spearman`` on every dimension scored by humans.
    """
    from fairjudge._api._score import _score_items, score
    from fairjudge.audit import check_score_labels, score_calibration_report
    from fairjudge.prompts import get_rubric

    the_rubric = get_rubric(rubric) if isinstance(rubric, str) else rubric
    item_list, name, skipped = _score_items(
        items, columns, the_rubric, skip_invalid, allow_empty, source
    )
    check_score_labels(item_list)  # before any call
    scored = score(item_list, judge, rubric=the_rubric, mode=mode, seed=seed, level=level,
                   n_resamples=n_resamples, setup=setup, source=name)  # fmt: skip
    result = scored.result
    report = score_calibration_report(result, min_spearman=min_spearman)
    calls = scored.calls
    # The calls as score --json reports them (a Python scorer's: null); Result.calls keeps all.
    payload = {**report.to_dict(), "calls": scored.to_dict().get("calls"),
               "skipped_rows": skipped}  # fmt: skip
    return Result(
        "calibrate", result, Calibration(report, None, payload), result.stopped,
        _rows=lambda: scored_rows(result.items),
        _html=lambda header: _score_page(scored.report, report, payload, header),
        _summary=lambda: _text(report), calls=calls, sent_by=scored.sent_by,
        _out=lambda: score_out("calibrate", result, mode=mode, seed=seed, level=level,
                               n_resamples=n_resamples, min_spearman=min_spearman,
                               source=name),
    )  # fmt: skip


def _score_page(scores: Any, report: Any, payload: Mapping[str, Any], header: Any) -> str:
    """The calibration's page (the score page's explorer): the kit loads with ``to_html()``."""
    from fairjudge.report import page_html, score_page

    return page_html(score_page(scores, header=header, calibration=report, summary=payload))


def _text(report: Any) -> str:
    """The report card as the command prints it, as plain text."""
    import io

    from rich.console import Console

    from fairjudge.report import render_score_calibration

    console = Console(record=True, width=100, file=io.StringIO())
    render_score_calibration(report, console)
    return console.export_text().rstrip()


def calibrate(
    items: Any,
    judge: str | BatchJudge | Callable[[str, str, str], Any] | None = None,
    *,
    min_kappa: float = MIN_KAPPA,
    min_spearman: float = MIN_SPEARMAN,
    settings: EvalSettings | None = None,
    rubric: str | Rubric | None = None,
    mode: ScoreMode = "json",
    setup: JudgeSetup | None = None,
    columns: Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
    source: str | None = None,
    template: str | None = None,
    backend: BackendOptions | None = None,
    options: RunOptions | None = None,
    store: str | Path | None = None,
    executor: Executor | str | None = None,
) -> Result:
    """A judge's report card against human labels (``fairjudge calibrate``).

    Pairs: every item needs a ``human`` label (``1``/``2``/``tie``) or a
    ``human_score``; the items are judged as :func:`compare` judges them, then
    compared with the labels. With ``rubric``, single answers: each is scored as
    :func:`fairjudge.score` scores it, and each dimension compared with the items'
    ``human_<dimension>`` scores (gated on ``min_spearman``, every dimension).

    Args:
        items: The items :func:`compare` takes, with a ``human`` column.
        judge: The judge :func:`compare` takes.
        min_kappa: The gate's Cohen's kappa threshold, on ``human`` labels.
        min_spearman: The gate's Spearman threshold, on ``human_score``.
        settings: Rule, rounds, seed, level and resamples, as for :func:`compare`
            (with ``rubric``, its seed, level and resamples).
        rubric: Calibrate rubric scores instead of pairwise verdicts: a built-in
            rubric's name, a ``*.toml`` path or a rubric.
        mode: With ``rubric``: ``json`` (one reply per answer) or ``label`` (one
            bare-number call per dimension), as for :func:`fairjudge.score`.
        setup: How a judge opened from a spec runs (:class:`JudgeSetup`).
        columns: Your column names -> the README's; a label column named here is
            the one an unlabelled item's error names.
        skip_invalid: Set invalid rows aside (listed in ``skipped_rows``) instead of stopping.
        allow_empty: Judge empty or blank answers instead of refusing the row.
        source: The items' name in the result and the page's title.
        template: Shorthand for ``setup=JudgeSetup(template=...)``.
        backend: Shorthand for ``setup=JudgeSetup(backend=...)``.
        options: Shorthand for ``setup=JudgeSetup(options=...)``.
        store: Shorthand for ``setup=JudgeSetup(store=...)``.
        executor: Shorthand for ``setup=JudgeSetup(executor=...)``.

    Returns:
        A :class:`Result` whose ``report`` is a :class:`Calibration` (``to_dict()``
        is ``calibrate --json``) and ``result`` the judged pairs (with ``rubric``,
        the :class:`~fairjudge.evaluation.ScoreResult`).

    Raises:
        ConfigError: A threshold that is not a number in [-1, 1], ``min_kappa``
            with ``rubric`` (scores are gated on Spearman), or ``mode`` without it.
        InputError: An item has no human label, or ``columns`` names a label column
            the input lacks (every item then read as labelled by ``human_score`` alone).
    """
    from fairjudge.audit import calibration_report, check_labels, check_threshold

    for name, value in (("min_spearman", min_spearman), ("min_kappa", min_kappa)):
        check_threshold(name, value)
    the_setup = setup_of(setup, template=template, backend=backend, options=options,
                         store=store, executor=executor)  # fmt: skip
    the_setup.refuse_for_built(judge)  # before the items are read
    if rubric is not None:
        if min_kappa != MIN_KAPPA:
            raise ConfigError(
                "min_kappa applies to pairwise input with human labels (1/2/tie); pointwise "
                "input is gated on Spearman (min_spearman)",
                params=("min_kappa", "min_spearman"),
            )
        s = settings or EvalSettings()
        return calibrate_scores(
            items, judge, rubric, mode=mode, min_spearman=min_spearman, seed=s.seed,
            level=s.level, n_resamples=s.n_resamples, setup=the_setup, columns=columns,
            skip_invalid=skip_invalid, allow_empty=allow_empty, source=source,
        )  # fmt: skip
    _refuse_single_answers(items, columns)
    if mode != "json":  # pairs are judged by verdict: no score is asked in a mode
        raise ConfigError(
            "mode applies with rubric (single answers with human_<dimension> scores); these "
            "items are pairs, judged by verdict: drop mode", params="mode",
        )  # fmt: skip
    item_list, name, skipped = _pairwise_items(items, columns, skip_invalid, allow_empty, source)
    human = next((mine for mine, readme in (columns or {}).items() if readme == "human"), "human")
    check_label_column(items, human, item_list)  # before any call, as the two below
    the_setup.check_references(judge, item_list)
    check_labels(item_list, human=human)
    compared = compare(item_list, judge, settings=settings, setup=the_setup, source=name)
    result = compared.result
    report = calibration_report(result, min_spearman=min_spearman, min_kappa=min_kappa)
    from fairjudge.report import calibration_payload, compare_page, comparison_report, page_html

    payload = calibration_payload(report, judge=result.settings.judge or "")
    payload["skipped_rows"] = skipped
    page = comparison_report(result, title=f"{title(name)}: calibration", run=compared.calls,
                             skipped=skipped)  # fmt: skip
    return Result(
        "calibrate", result, Calibration(report, page, payload), result.stopped,
        _rows=lambda: pairwise_rows(result.judgments),
        _html=lambda header: page_html(compare_page(page, calibration=report, summary=payload,
                                                    header=header)),
        _summary=lambda: f"{result.summary()}\n{report['gate'].summary()}",
        calls=compared.calls, sent_by=compared.sent_by,
        _out=lambda: compare_out("calibrate", result, gate={"min_kappa": min_kappa,
                                                            "min_spearman": min_spearman}),
    )  # fmt: skip
