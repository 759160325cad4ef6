"""A panel of judges for :func:`fairjudge.compare` and :func:`fairjudge.score` (``judges=``).

What ``jury`` and ``score-jury`` build from ``--judge`` (once per member, with
``--weight``) or ``--jury FILE.toml``: a :class:`~fairjudge.judges.Jury` or a
:class:`~fairjudge.judges.PointwiseJury`. Members given as specs share one session
(one store, one budget), as on the command line; a function or a judge object sits
on the panel as it is.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fairjudge._api._out import jury_out, score_jury_out
from fairjudge._api._result import Result, title
from fairjudge._api._runs import judge_panel
from fairjudge._api._setup import JudgeSetup, refuse_missing_references
from fairjudge._errors import ConfigError
from fairjudge.judges import (
    BackendOptions,
    BatchJudge,
    CallableJudge,
    Jury,
    MemberSpec,
    judge_name,
    resolve_judge,
)

if TYPE_CHECKING:  # the scoring panel's names load with it (a pairwise run never does)
    from fairjudge._items import Item
    from fairjudge.evaluation import EvalSettings
    from fairjudge.judges import PointwiseJury, ScoreMode
    from fairjudge.prompts import Rubric
    from fairjudge.stats import StopRule

__all__ = [
    "JudgesLike", "check_one_of", "pairwise_panel", "pointwise_panel", "run_jury",
    "run_score_jury",
]  # fmt: skip

P = TypeVar("P", "Jury", "PointwiseJury")

JudgesLike = Any
"""A list of members (specs, :class:`~fairjudge.judges.MemberSpec`, functions or judge
objects), a jury TOML file's path, or a built :class:`~fairjudge.judges.Jury`."""


def check_one_of(
    judge: object, judges: object, weights: object = None, aggregate: object = None
) -> None:
    """``judge=`` or ``judges=``, not both; a panel's ``weights``/``aggregate`` need ``judges``."""
    if judge is not None and judges is not None:
        raise ConfigError(
            "judge and judges were both given: pass judge= for one judge or judges= for a "
            "panel, not both",
            params=("judge", "judges"),
        )
    unused = [n for n, v in (("weights", weights), ("aggregate", aggregate)) if v is not None]
    if judges is None and unused:
        raise ConfigError(
            f"{unused[0]} applies with judges= only (one judge has no panel to weigh or "
            f"aggregate); pass judges=[...], or drop {unused[0]}",
            params=(unused[0], "judges"),
        )


def _members(
    judges: Any, weights: Sequence[float] | None, aggregate: str | None, default_rule: str
) -> tuple[list[Any], str]:
    """The members (specs or objects) with their weights, and the rule."""
    if isinstance(judges, (str, Path)):
        if weights is not None:
            raise ConfigError(
                "weights go with a list of judges; in a jury file, set weight =", params="weights"
            )
        from fairjudge.judges import load_jury_file  # its reader loads pydantic

        loaded = load_jury_file(
            judges, allow_python=True, allow_servers=True
        )  # the caller's own file and code
        return list(loaded.members), aggregate or loaded.aggregate or default_rule
    given = list(judges)
    the_weights = list(weights) if weights is not None else [1.0] * len(given)
    if len(the_weights) != len(given):
        raise ConfigError(
            f"weights has {len(the_weights)} value(s) for {len(given)} judges; give one per "
            "judge, in order, or none",
            params=("weights", "judges"),
        )
    members: list[Any] = []
    for member, weight in zip(given, the_weights, strict=True):
        if isinstance(member, str):
            members.append(MemberSpec(member, weight=weight))
        elif isinstance(member, MemberSpec):
            members.append(
                member if weights is None else dataclasses.replace(member, weight=weight)
            )
        else:
            members.append((member, weight))
    return members, aggregate or default_rule


def pairwise_panel(
    judges: JudgesLike, *, weights: Sequence[float] | None, aggregate: str | None,
    setup: JudgeSetup, items: Sequence[Item] = (),
) -> tuple[Jury, str, bool]:  # fmt: skip
    """The pairwise panel, its rule, and whether it was built here (so closed here).

    Members given as specs take the setup's template and backend options (base URL,
    temperature, timeout, reasoning effort, thinking budget, output cap) where they
    set none of their own; each model member's template must find the references it
    needs in ``items``, checked before the panel opens.
    """

    def from_specs(specs: list[MemberSpec]) -> Jury:
        specs = [s.with_defaults(template=setup.template, backend=setup.backend) for s in specs]
        for spec in specs:
            if not spec.is_python:
                refuse_missing_references(items, spec.template, member=spec.judge)
        return Jury.from_specs(specs, store=setup.store, options=setup.options,
                               executor=setup.executor)  # fmt: skip

    from fairjudge.judges import LLMJudge

    for member in judges if isinstance(judges, (list, tuple)) else ():  # model judge objects
        if isinstance(member, LLMJudge):
            refuse_missing_references(items, member.template, member=judge_name(member))
    return _panel(
        Jury, judges, weights, aggregate, "majority", from_specs, setup,
        lambda spec: resolve_judge(spec), BatchJudge, lambda fn: CallableJudge(fn),
    )  # fmt: skip


def pointwise_panel(
    judges: JudgesLike, *, weights: Sequence[float] | None, aggregate: str | None,
    rubric: Rubric, setup: JudgeSetup, mode: ScoreMode = "json", structured: bool = False,
) -> tuple[PointwiseJury, str, bool]:  # fmt: skip
    """The scoring panel, its rule, and whether it was built here (so closed here)."""
    from fairjudge.judges import (
        BatchPointwiseJudge,
        CallablePointwiseJudge,
        PointwiseJury,
        resolve_pointwise_judge,
    )

    def from_specs(specs: list[MemberSpec]) -> PointwiseJury:
        specs = [s.with_defaults(backend=setup.backend) for s in specs]
        if all(s.is_python for s in specs):  # no model to ask in a mode
            return PointwiseJury.from_specs(specs, rubric=rubric, store=setup.store,
                                            options=setup.options)  # fmt: skip
        return PointwiseJury.from_specs(
            specs, rubric=rubric, mode=mode, structured=structured, store=setup.store,
            options=setup.options, executor=setup.executor,
        )  # fmt: skip

    return _panel(
        PointwiseJury, judges, weights, aggregate, "mean", from_specs, setup,
        lambda spec: resolve_pointwise_judge(spec, rubric=rubric),
        BatchPointwiseJudge, lambda fn: CallablePointwiseJudge(fn, rubric=rubric),
        model_only=("mode",) * (mode != "json") + ("structured",) * structured,
    )  # fmt: skip


def _panel(
    kind: type[P], judges: JudgesLike, weights: Sequence[float] | None, aggregate: str | None,
    default_rule: str, from_specs: Callable[[list[MemberSpec]], P], setup: JudgeSetup,
    resolve: Callable[[str], Any], judge_type: type,
    wrap: Callable[[Any], Any], model_only: tuple[str, ...] = (),
) -> tuple[P, str, bool]:  # fmt: skip
    """A panel of ``kind`` (a built one as it is), its rule, and whether it was built here.

    Members given as specs share one session; a function or a judge object (or a
    spec that calls no model) sits on the panel as it is, and then no session opens;
    a function runs on the engine with ``options`` and, if declared, ``store``.
    ``model_only``: the call's options that only a model member reads (a scoring
    ``mode``, ``structured``), refused when no member is one.
    """
    if isinstance(judges, kind):
        _keeps_its_own(kind.__name__, setup, weights)
        return judges, _rule(aggregate or default_rule, default_rule), False
    members, rule = _members(judges, weights, aggregate, default_rule)
    rule = _rule(rule, default_rule, None if aggregate is not None else judges)
    # A timeout applies to a Python judge too: the functions take it, python: specs as well.
    prompt = [n for n in _set_fields(setup, "timeout") if n in ("template", "backend")]
    no_model = all(not isinstance(m, MemberSpec) or m.is_python for m in members)
    if prompt and no_model:
        raise ConfigError(  # functions, python:/replay: specs and built judges keep their own
            f"{', '.join(prompt)}: a panel of Python functions, replays or judge objects has "
            "no model or prompt of the setup's, so these have no effect; leave them out",
            params=tuple(prompt),
        )
    if model_only and no_model:
        one = len(model_only) == 1
        raise ConfigError(
            f"{', '.join(model_only)}: a panel of Python functions, replays or judge objects "
            "has no model of this call's to ask in a mode or for structured output (a judge "
            f"object keeps its own), so {'it has' if one else 'these have'} no effect; leave "
            f"{'it' if one else 'them'} out",
            params=model_only,
        )
    if all(isinstance(m, MemberSpec) for m in members):
        return from_specs(members), rule, True
    store, options, executor = setup.store, setup.options, setup.executor  # none opened here
    ready = any(not isinstance(m, MemberSpec) and isinstance(m[0], judge_type) for m in members)
    _no_session(*((store, options) if ready else (None, None)), executor)
    seats = []
    timeout = setup.backend.timeout if setup.backend is not None else None  # a function's too
    for m in members:
        if isinstance(m, MemberSpec):
            m = _no_model(m).with_defaults(backend=setup.backend)  # python: takes the timeout
            judge = resolve(m.judge)
            if m.timeout is not None and hasattr(judge, "timeout"):  # not a replay
                judge.timeout = m.timeout
            seats.append((m.name or m.judge, judge, m.weight))
            continue
        judge, weight = m
        if not isinstance(judge, judge_type):  # a function; a judge object keeps its own
            judge = _callable(judge, wrap)
            judge.timeout = timeout
        seats.append((judge_name(m[0]), judge, weight))
    return kind.seat(seats, options=options, store=store), rule, True


def _rule(rule: str, default_rule: str, jury_file: object = None) -> str:
    """The panel's rule, checked against its kind's before a member opens.

    Named ``aggregate``, the parameter (the evaluation's own check names its
    ``aggregation``); a rule a jury file set is named as the file's.
    """
    from fairjudge.evaluation import AGGREGATIONS, SCORE_AGGREGATIONS, check_rule

    rules = AGGREGATIONS if default_rule == "majority" else SCORE_AGGREGATIONS
    try:
        return check_rule(rule, rules, param="aggregate")
    except ConfigError as exc:
        if isinstance(jury_file, (str, Path)):  # the file's key, not the parameter
            raise ConfigError(f"{jury_file}: {exc}") from None
        raise


def _set_fields(setup: JudgeSetup, but: str = "") -> list[str]:
    """The setup's fields given, a backend counting only when an option but ``but`` is set."""
    backend = setup.backend or BackendOptions()
    set_ = any(getattr(backend, f.name) is not None for f in dataclasses.fields(backend)
               if f.name != but)  # fmt: skip
    return [name for name in setup.given() if name != "backend" or set_]


def _keeps_its_own(kind: str, setup: JudgeSetup, weights: object) -> None:
    """A built panel runs as it was built: a setup field or ``weights`` would be dropped."""
    given = _set_fields(setup) + ["weights"] * (weights is not None)
    if given:
        raise ConfigError(
            f"{', '.join(given)}: a built {kind} keeps its members' own templates, backends, "
            "weights, store and run options, so these have no effect; leave them out, or "
            "give the members as a list",
            params=tuple(given),
        )


def _no_session(store: object, options: object, executor: object) -> None:
    session_args = (("store", store), ("options", options), ("executor", executor))
    given = [name for name, value in session_args if value is not None]
    if given:
        raise ConfigError(
            f"{', '.join(given)}: a panel with functions or judge objects on it opens no "
            "session, so these have no effect; leave them out",
            params=tuple(given),
        )


def _no_model(spec: MemberSpec) -> MemberSpec:
    """A spec that calls no model: model members share the panel's session, built from specs."""
    if not spec.is_python:
        raise ConfigError(
            f"judges: {spec.judge!r} calls a model, and model members share the panel's one "
            "session, which only a panel of specs opens; give every member as a spec "
            "(functions as 'python:module:function'), or leave the model out",
            params="judges",
        )
    return spec


def _callable(judge: object, wrap: Callable[[Any], Any]) -> Any:
    if not callable(judge):
        raise ConfigError(
            f"judges: each member must be a spec, a function or a judge object; got {judge!r:.80}",
            params="judges",
        )
    return wrap(judge)


def run_jury(
    items: list[Any], source: str, skipped: list[dict[str, Any]], judges: JudgesLike,
    settings: EvalSettings, *, weights: Sequence[float] | None, aggregate: str | None,
    setup: JudgeSetup, stop_when: StopRule | None = None, batch: int | None = None,
) -> Result:  # fmt: skip
    """``compare(judges=...)``: what ``fairjudge jury`` runs and reports (``--stop-when`` too)."""
    from fairjudge.report import jury_report, render_jury

    panel, rule, built = pairwise_panel(judges, weights=weights, aggregate=aggregate,
                                        setup=setup, items=items)  # fmt: skip
    try:
        result, adaptive, run = judge_panel(
            panel, items, settings, aggregation=rule, stop_when=stop_when, batch=batch,
        )  # fmt: skip
    finally:
        if built:
            panel.close()
    result = replace(result, settings=replace(result.settings, source=source))
    if adaptive is not None:
        adaptive = replace(adaptive, pairwise=result)
    report = jury_report(
        result, title=f"{title(source)}: model 1 vs model 2, by a panel of {len(result.names)}",
        run=run, skipped=skipped, adaptive=adaptive,
    )  # fmt: skip
    return Result("jury", result, report, result.stopped,
                  _rows=lambda: [j.to_dict(result.names) for j in result.judgments],
                  _summary=lambda: _rendered(render_jury, report),
                  _html=lambda header: _jury_page(report, header), calls=run,
                  sent_by=panel, _out=lambda: jury_out(result, adaptive))  # fmt: skip


def run_score_jury(
    items: list[Any], source: str, skipped: list[dict[str, Any]], judges: JudgesLike,
    rubric: Rubric, *, seed: int, level: float, n_resamples: int,
    weights: Sequence[float] | None, aggregate: str | None, setup: JudgeSetup,
    mode: ScoreMode = "json", structured: bool = False,
) -> Result:  # fmt: skip
    """``score(judges=...)``: what ``fairjudge score-jury`` runs and reports."""
    from fairjudge.evaluation import score_with_jury
    from fairjudge.report import render_score_jury, score_jury_report

    panel, rule, built = pointwise_panel(judges, weights=weights, aggregate=aggregate,
                                         rubric=rubric, setup=setup, mode=mode,
                                         structured=structured)  # fmt: skip
    try:
        result = score_with_jury(panel, items, aggregation=rule, seed=seed, level=level,
                                 n_resamples=n_resamples)  # fmt: skip
    finally:
        if built:
            panel.close()
    report = score_jury_report(result, title=title(source), run=panel.last_run, skipped=skipped)
    return Result("score-jury", result, report, result.stopped,
                  _rows=lambda: [i.to_dict(result.names) for i in result.items],
                  _summary=lambda: _rendered(render_score_jury, report),
                  _html=lambda header: _score_jury_page(report, header),
                  calls=panel.last_run,
                  sent_by=panel, _out=lambda: score_jury_out(
                      result, rubric, source, mode=mode, seed=seed, level=level,
                      n_resamples=n_resamples))  # fmt: skip


def _rendered(render: Callable[[Any, Any], None], report: Any) -> str:
    """The command's table, as text."""
    from rich.console import Console

    console = Console(record=True, width=100, file=io.StringIO())
    render(report, console)
    return console.export_text().rstrip()


def _jury_page(report: Any, header: Any) -> str:
    """The panel's page: the page kit loads with the first ``to_html()``, not the run."""
    from fairjudge.report import jury_html

    return jury_html(report, header=header)


def _score_jury_page(report: Any, header: Any) -> str:
    """The scoring panel's page, loaded as :func:`_jury_page`'s."""
    from fairjudge.report import score_jury_html

    return score_jury_html(report, header=header)
