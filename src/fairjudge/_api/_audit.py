"""``fairjudge.audit_judge``: a judge's biases, each with its interval (``fairjudge audit``).

Named ``audit_judge`` because :mod:`fairjudge.audit` is the subpackage it runs.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from fairjudge._api._inputs import file_renames, load_rows
from fairjudge._api._out import audit_out
from fairjudge._api._result import Result, title
from fairjudge._api._setup import JudgeSetup, setup_of
from fairjudge._errors import ConfigError, worded
from fairjudge.judges import DEFAULT_JUDGE, BackendOptions
from fairjudge.runner import Executor, RunOptions, RunSummary

__all__ = ["audit_judge"]


def audit_judge(
    judges: Any = None,
    *,
    items: Any = None,
    experiments: str | Iterable[str] | None = None,
    settings: Any = None,
    judge_families: Mapping[str, str] | Iterable[str] | None = None,
    limit: int | None = None,
    setup: JudgeSetup | None = None,
    options: RunOptions | None = None,
    backend: BackendOptions | None = None,
    store: str | Path | None = None,
    columns: Mapping[str, str] | None = None,
    skip_invalid: bool = False,
    allow_empty: bool = False,
    executor: Executor | str | None = None,
    notify: Callable[[str], None] | None = None,
) -> Result:
    """Measure a judge's position, verbosity, framing and self-preference bias.

    Args:
        judges: The judge to audit, or several (self-preference needs two or more):
            model specs (``"openai/gpt-4o-mini"``; ``None``: the embedded default),
            which share one session, or :class:`~fairjudge.audit.AuditJudge` objects.
            A ``python:`` function has no prompt to vary, so it cannot be audited.
        items: The answers to audit (``question``, ``answer``, optional ``id``,
            ``reference``, ``system``): a file, a list of dicts or a DataFrame;
            ``None`` for the built-in suite.
        experiments: Names (``"position,framing"`` or a list) of ``position``,
            ``verbosity``, ``framing``, ``self-preference``; ``None``: all the input allows.
        settings: An :class:`~fairjudge.audit.AuditSettings` (rubrics, templates,
            padding length, seed, level, resamples).
        judge_families: A judge's model family by its spec, where the name does not show
            it: a mapping, or ``"SPEC=FAMILY"`` strings (``audit --judge-family``).
        limit: Audit only the first ``limit`` items.
        setup: How judges given as specs are opened and run (:class:`JudgeSetup`;
            its ``template`` does not apply: the prompts are ``settings``'); the
            ``options``, ``backend``, ``store`` and ``executor`` keywords are its
            fields given one by one.
        options: A :class:`JudgeSetup` field.
        backend: A :class:`JudgeSetup` field.
        store: A :class:`JudgeSetup` field.
        columns: Your column names -> the README's.
        skip_invalid: Set invalid rows aside instead of stopping.
        allow_empty: Audit rows with empty answers instead of refusing them.
        executor: A :class:`JudgeSetup` field.
        notify: Called with one line naming the judges, the items and the experiments
            that will run, once they are planned and before the first call.

    Returns:
        A :class:`Result` whose ``result`` is the :class:`~fairjudge.audit.AuditReport`,
        ``to_dict()`` the command's ``--json`` (with ``calls_made``) and
        ``to_records()`` one row per experiment, and ``to_html()`` the page
        ``audit --html`` writes.

    Raises:
        ConfigError: An unknown or impossible experiment, a bad setting or a
            ``python:`` judge, before the first call.
    """
    from fairjudge.audit import AuditSettings, ModelAuditJudge, plan_experiments
    from fairjudge.audit import audit as run_audit
    from fairjudge.report import audit_page, audit_payload, page_html, render_audit

    the_setup = setup_of(setup, options=options, backend=backend, store=store,
                         executor=executor)  # fmt: skip
    if the_setup.template is not None:
        raise ConfigError(
            "template does not apply to an audit: its prompts are the settings' "
            "(AuditSettings.template, concise_template, framing_templates)",
            params="template",
        )
    cfg = settings or AuditSettings()
    families = _families(judge_families)
    _check_prompts(cfg)  # before any item is read or any model loads
    the_items, source = _items(items, limit, columns, skip_invalid, allow_empty)
    requested = (
        [e.strip() for e in experiments.split(",") if e.strip()]
        if isinstance(experiments, str) else None if experiments is None else list(experiments)
    )  # fmt: skip
    _refuse_unused(requested, cfg)
    if families and requested is not None and "self-preference" not in requested:
        raise ConfigError(  # the families are read by self-preference alone
            "judge_families applies to the self-preference experiment, which is not "
            "requested; add self-preference to experiments, or drop judge_families",
            params=("judge_families", "experiments"),
        )
    given: Sequence[Any] = list(judges) if isinstance(judges, (list, tuple)) else [judges]
    specs = [DEFAULT_JUDGE if j is None else j for j in given]
    where = the_setup.backend or BackendOptions()
    with the_setup.session(specs) as session:  # a concurrency one local model cannot use: refused
        the_judges = [
            ModelAuditJudge(j, session=session, backend_options=where, family=families.get(j))
            if isinstance(j, str) else j
            for j in specs
        ]  # fmt: skip
        run, _ = plan_experiments(requested, the_judges, the_items, cfg)  # before any call
        if notify is not None:
            notify(f"auditing {', '.join(j.name for j in the_judges)} on {source}: "
                   f"{', '.join(run)}")  # fmt: skip
        report = run_audit(the_judges, the_items, experiments=requested, settings=settings,
                           judge_families_by_name=families, source=source)  # fmt: skip
        # Your own audit judges run outside the session: their calls are not counted.
        counted = all(isinstance(j, ModelAuditJudge) for j in the_judges)
        made = session.calls_made if counted else None
        calls = RunSummary.total_of(session.runs) if counted else None
        # What each judge's requests carried, with the standard template (the other
        # prompts vary the template or rubric, not the parameters).
        sent_by = {j.name: j.pairwise(cfg.template) for j in the_judges
                   if isinstance(j, ModelAuditJudge)}  # fmt: skip
    report = _worded(report)
    payload = audit_payload(report, made, calls)  # the command's --json: the headline too

    def summary() -> str:
        from rich.console import Console

        console = Console(record=True, width=100, file=io.StringIO())
        render_audit(report, console, calls_made=made)
        return console.export_text().rstrip()

    return Result("audit", report, payload, report.stopped,
                  _rows=lambda: [dict(e) for e in payload["experiments"]],
                  _html=lambda header: page_html(audit_page(report, calls_made=made,
                                                            header=header, summary=payload)),
                  _summary=summary, calls=calls, sent_by=sent_by,
                  _out=lambda: audit_out(payload))  # fmt: skip


def _families(given: Mapping[str, str] | Iterable[str] | None) -> dict[str, str]:
    """The families by spec: a mapping as it is, or ``SPEC=FAMILY`` strings, checked.

    ``(spec, family)`` pairs (a mapping's ``items()``) are read as the mapping they are.
    """
    if given is None or isinstance(given, Mapping):
        return dict(given or {})
    pairs: dict[str, str] = {}
    for pair in [given] if isinstance(given, str) else given:
        if isinstance(pair, tuple) and len(pair) == 2:
            pair = f"{pair[0]}={pair[1]}"
        spec, sep, family = str(pair).partition("=")
        if not sep or not spec.strip() or not family.strip():
            raise ConfigError(
                f"judge_families takes SPEC=FAMILY; got {pair!r}", params="judge_families"
            )
        pairs[spec.strip()] = family.strip()
    return pairs


_EXPERIMENT_OF = {
    "target_words": "verbosity", "anti_verbose_rubric": "verbosity",
    "concise_template": "verbosity", "strict_rubric": "framing", "framing_templates": "framing",
}  # fmt: skip
"""The settings one experiment alone reads."""


def _refuse_unused(requested: list[str] | None, cfg: Any) -> None:
    """A setting of an experiment not requested would change nothing: say so, before a call."""
    from fairjudge.audit import AuditSettings

    if requested is None:
        return
    default = AuditSettings()
    for name, experiment in _EXPERIMENT_OF.items():
        if experiment not in requested and getattr(cfg, name) != getattr(default, name):
            raise ConfigError(
                f"{name} applies to the {experiment} experiment, which is not requested; "
                f"add {experiment} to experiments, or drop {name}",
                params=(name, "experiments"),
            )


def _items(
    items: Any, limit: int | None, columns: Mapping[str, str] | None, skip_invalid: bool,
    allow_empty: bool,
) -> tuple[list[Any], str]:  # fmt: skip
    """The items to audit (the first ``limit``), and their name for the report."""
    from fairjudge.audit import builtin_items, load_audit_items

    if limit is not None and limit < 1:
        raise ConfigError(f"limit must be >= 1; got {limit}", params="limit")
    if items is None:
        the_items, source = builtin_items(), "the built-in suite"
    else:

        def load(path: Path) -> list[Any]:
            return load_audit_items(path, skip_invalid=skip_invalid, allow_empty=allow_empty)

        file_renames(items, columns, ())  # its reader renames no column of a file
        the_items, source = load_rows(items, load, columns=columns)
        source = title(source)
    return (the_items[:limit] if limit else the_items), source


def _check_prompts(settings: Any) -> None:
    """Every rubric and template exists, before any item is read or any model loads."""
    from fairjudge.prompts import get_rubric, get_template

    for rubric in (settings.rubric, settings.strict_rubric, settings.anti_verbose_rubric):
        get_rubric(rubric)
    for template in (settings.template, settings.concise_template,
                     *(settings.framing_templates or ())):  # fmt: skip
        get_template(template)


def _worded(report: Any) -> Any:
    """The report with each skip reason's parameters in the caller's words.

    A notebook reads them as parameters; under the command line, as its flags.
    """
    experiments = tuple(
        replace(e, skipped=worded(e.skipped, *e.params)) if e.skipped else e
        for e in report.experiments
    )
    return replace(report, experiments=experiments)
