"""The notebook API: one call per command, over the library the commands use.

Each function loads items the way the command loads its file, resolves the judge
the way ``--judge`` is resolved, calls the same library function as the command
(:func:`~fairjudge.evaluation.evaluate`, :func:`~fairjudge.evaluation.score_answers`,
...) and wraps its result and the command's report model in a :class:`Result`. A
budget stop returns the partial result with ``stopped`` set, as the command shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fairjudge._api._common import last_run, opened, title
from fairjudge._api._inputs import ROWS, load_rows
from fairjudge._api._panel import JudgesLike, check_one_of, run_jury, run_score_jury
from fairjudge._api._result import Result, pairwise_rows, scored_rows
from fairjudge._api._runs import judge_pairs, recorded_template
from fairjudge._errors import ConfigError
from fairjudge._items import Item, ScoreItem
from fairjudge.evaluation import EvalSettings, score_answers
from fairjudge.io import Columns, load_items, load_score_items
from fairjudge.judges import (
    BackendOptions,
    BatchJudge,
    BatchPointwiseJudge,
    CallableJudge,
    CallablePointwiseJudge,
    judge_name,
    resolve_judge,
    resolve_pointwise_judge,
)
from fairjudge.prompts import get_rubric
from fairjudge.runner import Executor, RunOptions
from fairjudge.stats import Population

__all__ = ["calibrate", "compare", "score"]

_PAIR_COLUMNS = {f for f in Columns.__dataclass_fields__}


def _pairwise_items(
    items: Any, columns: Mapping[str, str] | None, skip_invalid: bool, allow_empty: bool
) -> tuple[list[Item], str, list[dict[str, Any]]]:
    """Items from a path, rows, a DataFrame or :class:`Item` objects; with skipped rows."""
    if isinstance(items, (list, tuple)) and items and all(isinstance(i, Item) for i in items):
        return list(items), ROWS, []
    loaded, source = load_rows(
        items,
        lambda path: load_items(path, skip_invalid=skip_invalid, allow_empty=allow_empty),
        columns=columns,
    )
    return loaded.items, source, loaded.skipped_records()


def _score_items(
    items: Any, columns: Mapping[str, str] | None, rubric: Any, skip_invalid: bool,
    allow_empty: bool,
) -> tuple[list[ScoreItem], str, list[dict[str, Any]]]:  # fmt: skip
    if isinstance(items, (list, tuple)) and items and all(isinstance(i, ScoreItem) for i in items):
        return list(items), ROWS, []
    loaded, source = load_rows(
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
    return loaded.items, source, loaded.skipped_records()


def compare(
    items: Any,
    judge: str | BatchJudge | Callable[[str, str, str], Any] | None = None,
    *,
    judges: JudgesLike = None,
    aggregate: str | None = None,
    weights: Sequence[float] | None = None,
    settings: EvalSettings | None = None,
    options: RunOptions | None = None,
    template: str | None = None,
    backend: BackendOptions | None = None,
    store: str | Path | None = None,
    columns: Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
    stop_when: str | Sequence[str] | None = None,
    batch: int | None = None,
    executor: Executor | str | None = None,
    population: Population | None = None,
) -> Result:
    """Compare two systems' answers with the position-debiased protocol (``fairjudge compare``).

    Args:
        items: A file (JSONL, CSV, Parquet), a list of dicts or :class:`Item` objects,
            or a pandas DataFrame, with columns ``question``, ``answer_1``,
            ``answer_2`` and optional ``id``, ``reference``, ``category``, ``human``.
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
        options: Concurrency, rate limits and budget, for a judge opened from a spec
            or your own judge (a sync function runs one call at a time without them).
        template: The prompt template, for a model judge opened from a spec.
        backend: Server URL, GGUF file, temperature..., for a judge opened from a spec.
        store: The store's path, for a judge opened from a spec or your own judge
            that declares a name and version (:func:`fairjudge.judge_function`).
        columns: Your column names -> the README's (``{"prompt": "question"}``).
        skip_invalid: Set invalid rows aside (listed in the result) instead of stopping.
        allow_empty: Judge empty or blank answers instead of refusing the row.
        stop_when: Stop once the answer is known (``compare --stop-when``):
            ``"decided"``, ``"width:W"`` or both; questions are judged in a seeded
            order, a batch at a time, and the result reports the anytime-valid
            interval in ``to_dict()["adaptive"]``; with ``judges``, the panel's
            (``jury --stop-when``).
        batch: Questions per batch with ``stop_when`` (default: one wave of the
            run's concurrency).
        population: With ``stop_when``, what the interval and the decision are about:
            ``"source"`` (default), questions like these, the population the file's
            questions are drawn from; ``"file"``, this file's questions only (the
            interval ends on the file's own win rate, and says so).
        executor: Where the calls of judges opened from specs run: ``"asyncio"``
            (the default), ``"ray"`` (a local Ray instance, shut down at the end),
            ``"ray:ADDRESS"`` (a running cluster) or an executor object such as
            :class:`~fairjudge.runner.RayExecutor` (yours to close).

    Returns:
        A :class:`Result` whose ``result`` is a :class:`~fairjudge.PairwiseResult`,
        or with ``judges`` a :class:`~fairjudge.evaluation.JuryResult` (kind ``jury``).

    Raises:
        InputError: An invalid row (named by file and line, or ``<rows>:N``).
        ConfigError: A bad setting, an option that does not apply to the judge, or
            both ``judge`` and ``judges``.

    Example:
        >>> r = compare([{"question": "q", "answer_1": "long answer", "answer_2": "s"}],
        ...             lambda q, a, b: "A" if len(a) >= len(b) else "B")
        >>> r.result.win_rate.estimate
        1.0
    """
    check_one_of(judge, judges)
    if stop_when is None and batch is not None:
        raise ConfigError("batch applies with stop_when only; pass stop_when", params="batch")
    if stop_when is None and population is not None:
        raise ConfigError(
            "population applies with stop_when only; pass stop_when", params="population"
        )
    the_settings = settings or EvalSettings()
    item_list, source, skipped = _pairwise_items(items, columns, skip_invalid, allow_empty)
    if judges is not None:
        return run_jury(
            item_list, source, skipped, judges, the_settings, weights=weights,
            aggregate=aggregate, template=template, backend=backend, options=options, store=store,
            executor=executor, stop_when=stop_when, batch=batch, population=population,
        )  # fmt: skip

    def open_spec(spec: str | None) -> BatchJudge:
        return resolve_judge(spec, backend_options=backend, template=template, options=options,
                             store=store, executor=executor)  # fmt: skip

    def own(fn: Any) -> BatchJudge:  # your own judge, on the engine with options and store
        return CallableJudge(fn, name=judge_name(fn), options=options, store=store)

    with opened(judge, open_spec, own) as the_judge:
        result, adaptive, run = judge_pairs(
            the_judge, item_list, the_settings, stop_when=stop_when, batch=batch,
            population=population,
        )  # fmt: skip
        name, template = judge_name(the_judge), recorded_template(the_judge)
    from dataclasses import replace

    from fairjudge.report import comparison_html, comparison_report

    result = replace(
        result, settings=replace(result.settings, judge=name, source=source, template=template)
    )
    if adaptive is not None:
        adaptive = replace(adaptive, pairwise=result)
    report = comparison_report(
        result, title=f"{title(source)}: model 1 vs model 2", run=run, skipped=skipped,
        adaptive=adaptive,
    )  # fmt: skip
    return Result(
        "compare", result, report, result.stopped,
        _rows=lambda: pairwise_rows(result.judgments), _html=lambda: comparison_html(report),
        _summary=None if adaptive is None else adaptive.summary,
    )  # fmt: skip


def score(
    items: Any,
    judge: str | BatchPointwiseJudge | Callable[..., Any] | None = None,
    *,
    judges: JudgesLike = None,
    aggregate: str | None = None,
    weights: Sequence[float] | None = None,
    rubric: str = "production",
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    options: RunOptions | None = None,
    backend: BackendOptions | None = None,
    store: str | Path | None = None,
    columns: Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
    executor: Executor | str | None = None,
) -> Result:
    """Score each answer on its own against a rubric (``fairjudge score``).

    Args:
        items: A file, a list of dicts or :class:`~fairjudge.ScoreItem`
            objects, or a pandas DataFrame, with ``question`` and ``answer`` and
            optional ``id``, ``reference``, ``category``, ``system``, ``human_<dimension>``.
        judge: A spec (as for :func:`compare`), a function
            ``judge(question, answer) -> {dimension: score}`` or a pointwise judge.
        judges: A scoring panel instead of ``judge`` (``fairjudge score-jury``), given
            as for :func:`compare` (or a :class:`~fairjudge.judges.PointwiseJury`).
        aggregate: The panel's rule per dimension: ``mean`` (default) or ``median``.
        weights: One weight per member of a ``judges`` list, in order (default 1 each).
        rubric: A built-in rubric's name or a ``*.toml`` path.
        seed: Bootstrap seed; recorded with the result.
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples.
        options: Run options, for a judge opened from a spec or your own scorer
            (a sync function runs one call at a time without them).
        backend: Backend options, for a judge opened from a spec.
        store: The store's path, for a judge opened from a spec or your own scorer
            that declares a name and version (:func:`fairjudge.judge_function`).
        columns: Your column names -> the README's.
        skip_invalid: Set invalid rows aside instead of stopping.
        allow_empty: Score empty or blank answers instead of refusing the row.
        executor: As for :func:`compare`.

    Returns:
        A :class:`Result` whose ``result`` is a :class:`~fairjudge.evaluation.ScoreResult`,
        or with ``judges`` a :class:`~fairjudge.evaluation.JuryScoreResult` (kind
        ``score-jury``).

    Raises:
        ConfigError: A bad setting, or both ``judge`` and ``judges``.
    """
    check_one_of(judge, judges)
    the_rubric = get_rubric(rubric)
    item_list, source, skipped = _score_items(items, columns, the_rubric, skip_invalid, allow_empty)
    if judges is not None:
        return run_score_jury(
            item_list, source, skipped, judges, the_rubric, seed=seed, level=level,
            n_resamples=n_resamples, weights=weights, aggregate=aggregate, options=options,
            store=store, executor=executor,
        )  # fmt: skip

    def open_spec(spec: str | None) -> BatchPointwiseJudge:
        return resolve_pointwise_judge(
            spec,
            rubric=the_rubric,
            backend_options=backend,
            options=options,
            store=store,
            executor=executor,
        )

    if (
        judge is not None
        and not isinstance(judge, (str, BatchPointwiseJudge))
        and not callable(judge)
        and not any(callable(getattr(judge, m, None)) for m in ("judge", "ajudge"))
    ):
        raise ConfigError(f"judge must be a spec, a function or a pointwise judge; got {judge!r}")

    def own(fn: Any) -> BatchPointwiseJudge:  # your own scorer, with options and store
        return CallablePointwiseJudge(
            fn, rubric=the_rubric, name=judge_name(fn), options=options, store=store
        )

    with opened(judge, open_spec, own) as the_judge:
        given = None if isinstance(the_judge, BatchPointwiseJudge) else the_rubric
        result = score_answers(
            the_judge, item_list, rubric=given, seed=seed, level=level, n_resamples=n_resamples
        )
        run = last_run(the_judge)
        name = judge_name(the_judge)
    from dataclasses import replace

    from fairjudge.report import page_html, score_page, score_report

    result = replace(result, judge=name)
    report = score_report(result, title=f"{title(source)}: scores", run=run, skipped=skipped)
    return Result("score", result, report, result.stopped, _rows=lambda: scored_rows(result.items),
                  _html=lambda: page_html(score_page(report)))  # fmt: skip


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
    from fairjudge.report import calibration_payload, comparison_html

    payload = calibration_payload(report, judge=result.settings.judge or "")
    page = compared.report
    return Result(
        "calibrate", result, payload, result.stopped,
        _rows=lambda: pairwise_rows(result.judgments),
        _html=lambda: comparison_html(page, calibration=report, summary=payload),
        _summary=lambda: f"{result.summary()}\n{report['gate'].summary()}",
    )  # fmt: skip
