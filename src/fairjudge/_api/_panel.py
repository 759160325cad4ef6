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
from typing import Any

from fairjudge._api._common import judge_name, title
from fairjudge._api._result import Result
from fairjudge._errors import ConfigError
from fairjudge.evaluation import (
    EvalSettings,
    evaluate_jury,
    score_with_jury,
)
from fairjudge.judges import (
    BackendOptions,
    BatchJudge,
    BatchPointwiseJudge,
    CallableJudge,
    CallablePointwiseJudge,
    Jury,
    JuryMember,
    MemberSpec,
    PointwiseJury,
    PointwiseMember,
    load_jury_file,
    resolve_judge,
    resolve_pointwise_judge,
)
from fairjudge.prompts import Rubric
from fairjudge.runner import RunOptions

__all__ = [
    "JudgesLike", "check_one_of", "pairwise_panel", "pointwise_panel", "run_jury",
    "run_score_jury",
]  # fmt: skip

JudgesLike = Any
"""A list of members (specs, :class:`~fairjudge.judges.MemberSpec`, functions or judge
objects), a jury TOML file's path, or a built :class:`~fairjudge.judges.Jury`."""


def check_one_of(judge: object, judges: object) -> None:
    """``judge=`` or ``judges=``, not both."""
    if judge is not None and judges is not None:
        raise ConfigError(
            "judge and judges were both given: pass judge= for one judge or judges= for a "
            "panel, not both",
            params=("judge", "judges"),
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


def _names(members: Sequence[Any]) -> list[str]:
    """Each member's name: a spec's, or a judge's; ``#2``, ``#3`` added to repeats (as ``jury``)."""
    names: list[str] = []
    for m in members:
        base = (m.name or m.judge) if isinstance(m, MemberSpec) else judge_name(m[0])
        seen = len([n for n in names if n == base or n.startswith(f"{base}#")])
        names.append(base if seen == 0 else f"{base}#{seen + 1}")
    return names


def pairwise_panel(
    judges: JudgesLike, *, weights: Sequence[float] | None, aggregate: str | None,
    template: str | None, backend: BackendOptions | None, options: RunOptions | None,
    store: str | Path | None,
) -> tuple[Jury, str, bool]:  # fmt: skip
    """The pairwise panel, its rule, and whether it was built here (so closed here)."""
    if isinstance(judges, Jury):
        return judges, aggregate or "majority", False
    members, rule = _members(judges, weights, aggregate, "majority")
    where = backend or BackendOptions()
    if all(isinstance(m, MemberSpec) for m in members):
        specs = [_with_defaults(m, template, where) for m in members]
        return Jury.from_specs(specs, store=store, options=options), rule, True
    _no_session(store, options)
    built = []
    for m, name in zip(members, _names(members), strict=True):
        if isinstance(m, MemberSpec):
            m = (resolve_judge(_no_model(m).judge), m.weight)
        judge, weight = m
        if not isinstance(judge, BatchJudge):
            judge = _callable(judge, lambda fn: CallableJudge(fn))
        built.append(JuryMember(name, judge, weight))
    return Jury(built), rule, True


def pointwise_panel(
    judges: JudgesLike, *, weights: Sequence[float] | None, aggregate: str | None,
    rubric: Rubric, options: RunOptions | None, store: str | Path | None,
) -> tuple[PointwiseJury, str, bool]:  # fmt: skip
    """The scoring panel, its rule, and whether it was built here (so closed here)."""
    if isinstance(judges, PointwiseJury):
        return judges, aggregate or "mean", False
    members, rule = _members(judges, weights, aggregate, "mean")
    if all(isinstance(m, MemberSpec) for m in members):
        jury = PointwiseJury.from_specs(members, rubric=rubric, store=store, options=options)
        return jury, rule, True
    _no_session(store, options)
    built = []
    for m, name in zip(members, _names(members), strict=True):
        if isinstance(m, MemberSpec):
            m = (resolve_pointwise_judge(_no_model(m).judge, rubric=rubric), m.weight)
        judge, weight = m
        if not isinstance(judge, BatchPointwiseJudge):
            judge = _callable(judge, lambda fn: CallablePointwiseJudge(fn, rubric=rubric))
        built.append(PointwiseMember(name, judge, weight))
    return PointwiseJury(built), rule, True


def _no_session(store: object, options: object) -> None:
    given = [name for name, value in (("store", store), ("options", options)) if value is not None]
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


def _with_defaults(spec: MemberSpec, template: str | None, where: BackendOptions) -> MemberSpec:
    """A model member with the call's template and backend where it sets none (as ``jury``)."""
    if spec.is_python:
        return spec
    return dataclasses.replace(
        spec,
        template=spec.template or template,
        base_url=spec.base_url or where.base_url,
        temperature=spec.temperature if spec.temperature is not None else where.temperature,
        timeout=spec.timeout if spec.timeout is not None else where.timeout,
    )


def run_jury(
    items: list[Any], source: str, skipped: list[dict[str, Any]], judges: JudgesLike,
    settings: EvalSettings, *, weights: Sequence[float] | None, aggregate: str | None,
    template: str | None, backend: BackendOptions | None, options: RunOptions | None,
    store: str | Path | None,
) -> Result:  # fmt: skip
    """``compare(judges=...)``: what ``fairjudge jury`` runs and reports."""
    from fairjudge.report import jury_report, render_jury

    panel, rule, built = pairwise_panel(judges, weights=weights, aggregate=aggregate,
                                        template=template, backend=backend, options=options,
                                        store=store)  # fmt: skip
    try:
        result = evaluate_jury(panel, items, settings, aggregation=rule)
    finally:
        if built:
            panel.close()
    result = replace(result, settings=replace(result.settings, source=source))
    report = jury_report(
        result, title=f"{title(source)}: model 1 vs model 2, by a panel of {len(result.names)}",
        run=panel.last_run, skipped=skipped,
    )  # fmt: skip
    return Result("jury", result, report, result.stopped,
                  _rows=lambda: [j.to_dict(result.names) for j in result.judgments],
                  _summary=lambda: _rendered(render_jury, report))  # fmt: skip


def run_score_jury(
    items: list[Any], source: str, skipped: list[dict[str, Any]], judges: JudgesLike,
    rubric: Rubric, *, seed: int, level: float, n_resamples: int,
    weights: Sequence[float] | None, aggregate: str | None, options: RunOptions | None,
    store: str | Path | None,
) -> Result:  # fmt: skip
    """``score(judges=...)``: what ``fairjudge score-jury`` runs and reports."""
    from fairjudge.report import render_score_jury, score_jury_report

    panel, rule, built = pointwise_panel(judges, weights=weights, aggregate=aggregate,
                                         rubric=rubric, options=options, store=store)  # fmt: skip
    try:
        result = score_with_jury(panel, items, aggregation=rule, seed=seed, level=level,
                                 n_resamples=n_resamples)  # fmt: skip
    finally:
        if built:
            panel.close()
    report = score_jury_report(result, title=title(source), run=panel.last_run, skipped=skipped)
    return Result("score-jury", result, report, result.stopped,
                  _rows=lambda: [i.to_dict(result.names) for i in result.items],
                  _summary=lambda: _rendered(render_score_jury, report))  # fmt: skip


def _rendered(render: Callable[[Any, Any], None], report: Any) -> str:
    """The command's table, as text."""
    from rich.console import Console

    console = Console(record=True, width=100, file=io.StringIO())
    render(report, console)
    return console.export_text().rstrip()
