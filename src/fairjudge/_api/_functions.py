"""The notebook API: one call per command, over the library the commands use.

Each function loads items the way the command loads its file, opens the judge from
a :class:`JudgeSetup` the way the command's flags open it, runs it through the
one orchestration (:mod:`fairjudge._api._runs`) and wraps its result and the
command's report model in a :class:`Result`. The commands call these very
functions. A budget stop returns the partial result with ``stopped`` set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairjudge._api._common import last_run, opened, title
from fairjudge._api._inputs import ROWS, load_rows
from fairjudge._api._panel import JudgesLike, check_one_of, run_jury, run_score_jury
from fairjudge._api._result import Result, pairwise_rows, scored_rows
from fairjudge._api._runs import judge_pairs, recorded_template
from fairjudge._api._setup import JudgeSetup, setup_of
from fairjudge._errors import ConfigError
from fairjudge._items import Item, ScoreItem
from fairjudge.evaluation import EvalSettings, score_answers
from fairjudge.io import Columns, LoadedItems, load_items, load_score_items
from fairjudge.judges import (
    BackendOptions,
    BatchJudge,
    BatchPointwiseJudge,
    CallableJudge,
    CallablePointwiseJudge,
    ScoreMode,
    judge_name,
)
from fairjudge.prompts import Rubric, get_rubric
from fairjudge.runner import Executor, RunOptions
from fairjudge.stats import Population

if TYPE_CHECKING:
    from fairjudge.evaluation import ScoreRun

__all__ = ["calibrate", "compare", "score"]

_PAIR_COLUMNS = {f for f in Columns.__dataclass_fields__}


def _loaded(
    items: Any, kind: type, source: str | None
) -> tuple[list[Any], str, list[dict[str, Any]]] | None:
    """Items already read: a :class:`~fairjudge.io.LoadedItems` or a list of item objects."""
    if isinstance(items, LoadedItems):
        return list(items.items), source or items.path or ROWS, items.skipped_records()
    if isinstance(items, (list, tuple)) and items and all(isinstance(i, kind) for i in items):
        return list(items), source or ROWS, []
    return None


def _pairwise_items(
    items: Any, columns: Mapping[str, str] | None, skip_invalid: bool, allow_empty: bool,
    source: str | None = None,
) -> tuple[list[Item], str, list[dict[str, Any]]]:  # fmt: skip
    """Items from a path, rows, a DataFrame or :class:`Item` objects; with skipped rows."""
    ready = _loaded(items, Item, source)
    if ready is not None:
        return ready
    loaded, name = load_rows(
        items,
        lambda path: load_items(path, skip_invalid=skip_invalid, allow_empty=allow_empty),
        columns=columns,
    )
    return loaded.items, source or name, loaded.skipped_records()


def _score_items(
    items: Any, columns: Mapping[str, str] | None, rubric: Any, skip_invalid: bool,
    allow_empty: bool, source: str | None = None,
) -> tuple[list[ScoreItem], str, list[dict[str, Any]]]:  # fmt: skip
    ready = _loaded(items, ScoreItem, source)
    if ready is not None:
        return ready
    loaded, name = load_rows(
        items,
        lambda path: load_score_items(
            path,
            dimensions=rubric.names,
            scale=rubric.scale,
            skip_invalid=skip_invalid,
            allow_empty=allow_empty,
        ),
        columns=columns,
    )
    return loaded.items, source or name, loaded.skipped_records()


def _check_stop(stop_when: object, batch: object, population: object) -> None:
    """``batch`` and ``population`` shape an adaptive run: they need ``stop_when``."""
    for name, value in (("batch", batch), ("population", population)):
        if stop_when is None and value is not None:
            raise ConfigError(f"{name} applies with stop_when only; pass stop_when", params=name)


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
    stop_when: str | Sequence[str] | None = None,
    batch: int | None = None,
    population: Population | None = None,
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
            questions are drawn from; ``"file"``, this file's questions only.
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
        ConfigError: A bad setting, an option that does not apply to the judge, a
            setup field given twice (in ``setup`` and as a keyword), or both
            ``judge`` and ``judges``.

    Example:
        >>> r = compare([{"question": "q", "answer_1": "long answer", "answer_2": "s"}],
        ...             lambda q, a, b: "A" if len(a) >= len(b) else "B")
        >>> r.result.win_rate.estimate
        1.0
    """
    check_one_of(judge, judges)
    the_setup = setup_of(setup, template=template, backend=backend, options=options,
                         store=store, executor=executor)  # fmt: skip
    _check_stop(stop_when, batch, population)
    the_settings = settings or EvalSettings()
    item_list, source, skipped = _pairwise_items(items, columns, skip_invalid, allow_empty, source)
    if judges is not None:
        return run_jury(
            item_list, source, skipped, judges, the_settings, weights=weights,
            aggregate=aggregate, setup=the_setup, stop_when=stop_when, batch=batch,
            population=population,
        )  # fmt: skip

    def open_spec(spec: str | None) -> BatchJudge:
        return the_setup.open_judge(spec, rounds=the_settings.rounds)

    def own(fn: Any) -> BatchJudge:  # your own judge, on the engine with options and store
        return CallableJudge(fn, name=judge_name(fn), options=the_setup.options,
                             store=the_setup.store)  # fmt: skip

    with opened(judge, open_spec, own) as the_judge:
        result, adaptive, run = judge_pairs(
            the_judge, item_list, the_settings, stop_when=stop_when, batch=batch,
            population=population,
        )  # fmt: skip
        name, recorded = judge_name(the_judge), recorded_template(the_judge)
    from dataclasses import replace

    from fairjudge.report import compare_page, comparison_report, page_html

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
        _html=lambda: page_html(compare_page(report)),
        _summary=None if adaptive is None else adaptive.summary, calls=run, sent_by=the_judge,
    )  # fmt: skip


def score(
    items: Any,
    judge: str | BatchPointwiseJudge | Callable[..., Any] | None = None,
    *,
    judges: JudgesLike = None,
    aggregate: str | None = None,
    weights: Sequence[float] | None = None,
    rubric: str | Rubric = "production",
    mode: ScoreMode = "json",
    structured: bool = False,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    baseline: ScoreRun | str | Path | None = None,
    allow_different: bool = False,
    setup: JudgeSetup | None = None,
    columns: Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
    source: str | None = None,
    backend: BackendOptions | None = None,
    options: RunOptions | None = None,
    store: str | Path | None = None,
    executor: Executor | str | None = None,
) -> Result:
    """Score each answer on its own against a rubric (``fairjudge score``).

    Args:
        items: A file, a list of dicts or :class:`~fairjudge.ScoreItem` objects, a
            pandas DataFrame, or what :func:`fairjudge.io.load_score_items` read,
            with ``question`` and ``answer`` and optional ``id``, ``reference``,
            ``category``, ``system``, ``human_<dimension>``.
        judge: A spec (the forms :func:`compare` takes), a function
            ``judge(question, answer) -> {dimension: score}`` or a pointwise judge.
        judges: A scoring panel instead of ``judge`` (``fairjudge score-jury``): a
            list of members, a jury TOML file or a
            :class:`~fairjudge.judges.PointwiseJury`.
        aggregate: The panel's rule per dimension: ``mean`` (default) or ``median``.
        weights: One weight per member of a ``judges`` list, in order (default 1 each).
        rubric: A built-in rubric's name, a ``*.toml`` path or a rubric.
        mode: ``json``: one JSON reply per answer; ``label``: one bare-number call per
            dimension, probability-weighted where the judge gives logprobs.
        structured: Ask an ``openai/`` judge for structured output (JSON schema).
        seed: Bootstrap seed; recorded with the result.
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples.
        baseline: An earlier run (a ``score --out`` file or a
            :class:`~fairjudge.evaluation.ScoreRun`): the result's ``trend`` says how
            each dimension moved since. Refused, before any call, when its rubric or
            judge differ, unless ``allow_different``.
        allow_different: Compare with ``baseline`` even when the rubric or judge differ.
        setup: How judges opened from specs (and your own scorers) run: backend, run
            options, store, executor (:class:`JudgeSetup`; a scorer takes no template).
        columns: Your column names -> the README's.
        skip_invalid: Set invalid rows aside instead of stopping.
        allow_empty: Score empty or blank answers instead of refusing the row.
        source: The items' name in the result and the title.
        backend: Shorthand for ``setup=JudgeSetup(backend=...)``.
        options: Shorthand for ``setup=JudgeSetup(options=...)``.
        store: Shorthand for ``setup=JudgeSetup(store=...)``.
        executor: Shorthand for ``setup=JudgeSetup(executor=...)``.

    Returns:
        A :class:`Result` whose ``result`` is a :class:`~fairjudge.evaluation.ScoreResult`,
        or with ``judges`` a :class:`~fairjudge.evaluation.JuryScoreResult` (kind
        ``score-jury``).

    Raises:
        ConfigError: A bad setting, a setup field given twice, both ``judge`` and
            ``judges``, or a baseline scored otherwise.
    """
    check_one_of(judge, judges)
    the_setup = setup_of(setup, backend=backend, options=options, store=store,
                         executor=executor)  # fmt: skip
    if allow_different and baseline is None:
        raise ConfigError("allow_different applies with baseline only", params="allow_different")
    the_rubric = rubric if isinstance(rubric, Rubric) else get_rubric(rubric)
    item_list, source, skipped = _score_items(
        items, columns, the_rubric, skip_invalid, allow_empty, source
    )
    if judges is not None:
        if baseline is not None:
            raise ConfigError(
                "baseline compares one-judge runs; a panel does not take it yet",
                params="baseline",
            )
        return run_score_jury(
            item_list, source, skipped, judges, the_rubric, seed=seed, level=level,
            n_resamples=n_resamples, weights=weights, aggregate=aggregate, mode=mode,
            structured=structured, setup=the_setup,
        )  # fmt: skip
    before = _baseline(baseline)

    def open_spec(spec: str | None) -> BatchPointwiseJudge:
        return the_setup.open_scorer(spec, the_rubric, mode=mode, structured=structured)

    if (
        judge is not None
        and not isinstance(judge, (str, BatchPointwiseJudge))
        and not callable(judge)
        and not any(callable(getattr(judge, m, None)) for m in ("judge", "ajudge"))
    ):
        raise ConfigError(f"judge must be a spec, a function or a pointwise judge; got {judge!r}")

    def own(fn: Any) -> BatchPointwiseJudge:  # your own scorer, with options and store
        return CallablePointwiseJudge(fn, rubric=the_rubric, name=judge_name(fn),
                                      options=the_setup.options, store=the_setup.store)  # fmt: skip

    with opened(judge, open_spec, own) as the_judge:
        name = judge_name(the_judge)
        _check_baseline(before, the_rubric, name, allow_different)  # before any call
        given = None if isinstance(the_judge, BatchPointwiseJudge) else the_rubric
        result = score_answers(
            the_judge, item_list, rubric=given, seed=seed, level=level, n_resamples=n_resamples
        )
        run = last_run(the_judge)
    from dataclasses import replace

    from fairjudge.report import page_html, score_page, score_report

    result = replace(result, judge=name)
    trend = None
    if before is not None:
        from fairjudge.evaluation import ScoreRun, score_trend

        trend = score_trend(ScoreRun.from_result(result), before, seed=seed, level=level,
                            n_resamples=n_resamples, allow_different=allow_different)  # fmt: skip
    report = score_report(result, title=f"{title(source)}", run=run, skipped=skipped,
                          trend=trend)  # fmt: skip
    return Result("score", result, report, result.stopped, _rows=lambda: scored_rows(result.items),
                  _html=lambda: page_html(score_page(report, baseline=before)),
                  calls=run, sent_by=the_judge)  # fmt: skip


def _baseline(baseline: ScoreRun | str | Path | None) -> ScoreRun | None:
    """The baseline run, read from its ``score --out`` file when given as a path."""
    if baseline is None or not isinstance(baseline, (str, Path)):
        return baseline
    from fairjudge.evaluation import load_score_run

    return load_score_run(Path(baseline))


def _check_baseline(
    baseline: ScoreRun | None, rubric: Rubric, judge: str, allow_different: bool
) -> None:
    if baseline is not None:
        from fairjudge.evaluation import check_comparable

        check_comparable(baseline, rubric=f"{rubric.name}@{rubric.version}", judge=judge,
                         allow_different=allow_different)  # fmt: skip


def calibrate(
    items: Any,
    judge: str | BatchJudge | Callable[[str, str, str], Any] | None = None,
    *,
    min_kappa: float = 0.4,
    min_spearman: float = 0.7,
    settings: EvalSettings | None = None,
    options: RunOptions | None = None,
    template: str | None = None,
    backend: BackendOptions | None = None,
    store: str | Path | None = None,
    columns: Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
    executor: Executor | str | None = None,
) -> Result:
    """A pairwise judge's report card against human labels (``fairjudge calibrate``).

    Every item needs a ``human`` label (``1``/``2``/``tie``). The arguments are
    :func:`compare`'s, plus the gate's thresholds.

    Args:
        items: As for :func:`compare`, with a ``human`` column.
        judge: As for :func:`compare`.
        min_kappa: The gate's Cohen's kappa threshold, on ``human`` labels.
        min_spearman: The gate's Spearman threshold, on ``human_score``.
        settings: As for :func:`compare`.
        options: As for :func:`compare`.
        template: As for :func:`compare`.
        backend: As for :func:`compare`.
        store: As for :func:`compare`.
        columns: As for :func:`compare`.
        skip_invalid: As for :func:`compare`.
        allow_empty: As for :func:`compare`.
        executor: As for :func:`compare`.

    Returns:
        A :class:`Result` whose ``report`` is the calibration report (its ``gate`` a
        :class:`~fairjudge.audit.CalibrationGate`) and ``result`` the judged pairs.

    Raises:
        ConfigError: An item has no human label, or a threshold is outside [-1, 1].
    """
    from fairjudge.audit import calibration_report, check_labels

    for name, value in (("min_kappa", min_kappa), ("min_spearman", min_spearman)):
        if not -1 <= value <= 1:  # before any call; calibration_report checks it again
            raise ConfigError(f"{name} must be in [-1, 1]; got {value!r}")
    item_list, _, _ = _pairwise_items(items, columns, skip_invalid, allow_empty)
    check_labels(item_list)  # before any call
    compared = compare(
        item_list if isinstance(items, (list, tuple)) else items, judge, settings=settings,
        options=options, template=template, backend=backend, store=store, columns=columns,
        skip_invalid=skip_invalid, allow_empty=allow_empty, executor=executor,
    )  # fmt: skip
    result = compared.result
    report = calibration_report(result, min_spearman=min_spearman, min_kappa=min_kappa)
    from fairjudge.report import calibration_payload, compare_page, page_html

    payload = calibration_payload(report, judge=result.settings.judge or "")
    page = compared.report
    return Result(
        "calibrate", result, payload, result.stopped,
        _rows=lambda: pairwise_rows(result.judgments),
        _html=lambda: page_html(compare_page(page, calibration=report, summary=payload)),
        _summary=lambda: f"{result.summary()}\n{report['gate'].summary()}",
    )  # fmt: skip
