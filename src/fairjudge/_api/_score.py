"""``fairjudge.score``: every answer scored against a rubric, by one judge or a panel.

Apart from :mod:`fairjudge._api._functions` so that a pairwise run never loads the
pointwise judges, their rubric models or the scoring summaries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairjudge._api._inputs import file_renames, load_rows, read_already
from fairjudge._api._out import request_settings, score_out
from fairjudge._api._panel import JudgesLike, check_one_of, run_score_jury
from fairjudge._api._result import Result, last_run, opened, scored_rows, title
from fairjudge._api._setup import JudgeSetup, setup_of
from fairjudge._errors import ConfigError
from fairjudge._items import ScoreItem
from fairjudge.evaluation import score_answers
from fairjudge.io import OutHeader, load_score_items
from fairjudge.judges import (
    BackendOptions,
    BatchPointwiseJudge,
    CallablePointwiseJudge,
    PointwiseJudge,
    PointwiseJury,
    ScoreMode,
    judge_name,
    judge_spec,
)
from fairjudge.prompts import Rubric, get_rubric
from fairjudge.runner import Executor, RunOptions

if TYPE_CHECKING:
    from fairjudge.evaluation import ScoreRun

__all__ = ["score"]


def _score_items(
    items: Any, columns: Mapping[str, str] | None, rubric: Any, skip_invalid: bool,
    allow_empty: bool, source: str | None = None,
) -> tuple[list[ScoreItem], str, list[dict[str, Any]]]:  # fmt: skip
    ready = read_already(
        items, ScoreItem, source, skip_invalid=skip_invalid, allow_empty=allow_empty
    )
    if ready is not None:
        return ready
    renames = file_renames(items, columns, ["question", "answer"])
    loaded, name = load_rows(
        items,
        lambda path: load_score_items(
            path,
            question_col=renames.get("question", "question"),
            answer_col=renames.get("answer", "answer"),
            dimensions=rubric.names,
            scale=rubric.scale,
            skip_invalid=skip_invalid,
            allow_empty=allow_empty,
        ),
        columns=columns,
    )
    return loaded.items, source or name, loaded.skipped_records()


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
            each dimension moved since. Refused, before any call (a judge given as a
            spec: before it opens), when its rubric or judge differ, or its judge's
            settings (``mode``, temperature, reasoning effort, ``structured``, thinking
            budget: what the requests carried, less the caps on length), unless
            ``allow_different``.
        allow_different: Compare with ``baseline`` even when the rubric, judge or
            judge settings differ.
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
            ``judges``, a baseline scored otherwise, a panel given as ``judge``, or
            ``mode``/``structured`` with your own function (or panel of Python
            judges, built or not), which no model reads, or with a built judge (or
            built panel's model member) that was not built so.
    """
    check_one_of(judge, judges, weights, aggregate)
    if isinstance(judge, PointwiseJury):
        raise ConfigError("judge is a panel (a PointwiseJury); pass it as judges=", params="judge")
    if judge is not None and not isinstance(judge, (str, BatchPointwiseJudge)):
        _refuse_modes(judge, mode, structured)  # a function's dict: no model to ask so
    if isinstance(judge, PointwiseJudge):  # built with its own mode: that one is recorded
        mode = _built_mode(judge, mode, structured)
    if isinstance(judges, PointwiseJury):  # built: its model members' mode, if any
        mode = _built_panel_mode(judges, mode, structured)
    the_setup = setup_of(setup, backend=backend, options=options, store=store,
                         executor=executor)  # fmt: skip
    the_setup.refuse_for_built(judge)  # a judge object runs with its own
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
    if judge is None or isinstance(judge, str):  # by its spec, before a model loads
        _check_baseline(before, the_rubric, judge_spec(judge), allow_different)

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
        timeout = the_setup.refuse_for_own(fn)  # backend={"timeout": ...} alone applies
        return CallablePointwiseJudge(fn, rubric=the_rubric, name=judge_name(fn), timeout=timeout,
                                      options=the_setup.options, store=the_setup.store)  # fmt: skip

    with opened(judge, open_spec, own) as the_judge:
        name = judge_name(the_judge)
        asked = request_settings(the_judge).get("request", {}).get("params")  # as --out has it
        _check_baseline(before, the_rubric, name, allow_different, asked, mode)  # before any call
        given = None if isinstance(the_judge, BatchPointwiseJudge) else the_rubric
        result = score_answers(
            the_judge, item_list, rubric=given, seed=seed, level=level, n_resamples=n_resamples
        )
        # A model's calls are reported; a Python scorer's are not, as score --json and a
        # report rebuilt from its --out file have never had them. Result.calls keeps
        # them all: the pytest plugin counts and checks a replay by them.
        calls = last_run(the_judge)
        run = calls if isinstance(the_judge, PointwiseJudge) else None
    from dataclasses import replace

    from fairjudge.report import score_report

    result = replace(result, judge=name)
    trend = None
    if before is not None:
        from fairjudge.evaluation import ScoreRun, score_trend

        now = ScoreRun.from_result(result, request=asked, mode=mode)
        trend = score_trend(now, before, seed=seed, level=level, n_resamples=n_resamples,
                            allow_different=allow_different)  # fmt: skip
    report = score_report(result, title=f"{title(source)}", run=run, skipped=skipped,
                          trend=trend)  # fmt: skip
    summary = None if trend is None else (lambda: f"{result.summary()}\n{trend.summary()}")
    return Result("score", result, report, result.stopped, _rows=lambda: scored_rows(result.items),
                  _html=lambda header: _page(report, before, header), _summary=summary,
                  calls=calls, sent_by=the_judge,
                  _out=lambda: score_out("score", result, mode=mode, seed=seed, level=level,
                                         n_resamples=n_resamples, source=source))  # fmt: skip


def _refuse_modes(
    judge: Any, mode: str, structured: bool, what: str = "a Python judge is called directly"
) -> None:
    """Refuse ``mode`` or ``structured`` for your own scoring function, as its spec refuses them.

    A function is called directly: no model is asked for one JSON reply or a bare
    number per dimension, nor for structured output, so either would be recorded in
    the run's settings without having had any effect.

    Raises:
        ConfigError: Naming ``mode`` (other than ``json``) and ``structured`` (true).
    """
    unused = ["mode"] * (mode != "json") + ["structured"] * structured
    why = f" ({what}, with no prompt, model or server)"
    _refuse_unused(judge, unused, why, "drop {}")


def _built_mode(judge: PointwiseJudge, mode: str, structured: bool) -> ScoreMode:
    """The mode a judge built with its own runs in; another ``mode`` or ``structured`` is refused.

    The judge asks its model in the mode it was built with, so a ``mode`` or
    ``structured`` given beside it would be recorded in the run's settings without
    having had any effect (``mode`` left at ``"json"`` is the default, not a request).

    Raises:
        ConfigError: Naming ``mode`` (not ``json`` and not the judge's) or ``structured``
            (true for a judge built without it).
    """
    own = judge.mode
    unused = ["mode"] * (mode not in ("json", own))
    unused += ["structured"] * (structured and "response_format" not in judge.params)
    why = f": it was built with mode={own!r} and asks its model so"
    _refuse_unused(judge, unused, why, "build it with the mode you want, or drop {}")
    return own


def _built_panel_mode(panel: PointwiseJury, mode: str, structured: bool) -> ScoreMode:
    """The mode a built panel's model members run in, checked as :func:`_built_mode` checks one.

    A panel of Python judges has no model to read ``mode`` or ``structured``; each
    model member asks its model in the mode it was built with, so another one given
    beside the panel would be recorded in the run's settings without having had any
    effect. Members built in different modes leave the default recorded.

    Raises:
        ConfigError: As :func:`_refuse_modes` for a panel with no model member; else
            as :func:`_built_mode`, naming the first model member it does not apply to.
    """
    models = [m.judge for m in panel.members if isinstance(m.judge, PointwiseJudge)]
    if not models:
        _refuse_modes(panel, mode, structured, "its members are Python judges, called directly")
        return "json"
    own = {_built_mode(model, mode, structured) for model in models}
    return own.pop() if len(own) == 1 else "json"


def _refuse_unused(judge: Any, unused: list[str], why: str, fix: str) -> None:
    """Refuse the parameters in ``unused`` (if any) as having no effect on ``judge``."""
    if unused:
        one = len(unused) == 1
        raise ConfigError(
            f"{', '.join(unused)} {'does' if one else 'do'} not apply to the judge "
            f"{judge_name(judge)!r}{why}; {fix.format('it' if one else 'them')}",
            params=tuple(unused),
        )


def _baseline(baseline: ScoreRun | str | Path | None) -> ScoreRun | None:
    """The baseline run, read from its ``score --out`` file when given as a path."""
    if baseline is None or not isinstance(baseline, (str, Path)):
        return baseline
    from fairjudge.evaluation import load_score_run

    return load_score_run(Path(baseline))


def _check_baseline(
    baseline: ScoreRun | None, rubric: Rubric, judge: str, allow_different: bool,
    request: Mapping[str, Any] | None = None, mode: str | None = None,
) -> None:  # fmt: skip
    if baseline is not None:
        from fairjudge.evaluation import check_comparable

        check_comparable(baseline, rubric=f"{rubric.name}@{rubric.version}", judge=judge,
                         request=request, mode=mode, allow_different=allow_different)  # fmt: skip


def _page(report: Any, baseline: ScoreRun | None, header: OutHeader | None) -> str:
    """The scores' page: the page kit loads with the first ``to_html()``, not the run."""
    from fairjudge.report import page_html, score_page

    return page_html(score_page(report, baseline=baseline, header=header))
