"""``audit()``: a judge's report card on position, verbosity, framing and self-preference.

The experiments run on the judges' one session: one store, one budget, resumable.
Which run is decided before the first call; a requested one the input cannot support
is a :class:`ConfigError` saying what is missing, the others are listed as skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from fairjudge._errors import ConfigError
from fairjudge.audit._audit_items import AuditItem, builtin_items, check_items, position_pairs
from fairjudge.audit._experiment import (
    AuditJudge,
    AuditSettings,
    ExperimentResult,
    ExperimentStopped,
    Progress,
)
from fairjudge.audit._invariance import (
    framing_experiment,
    position_experiment,
    verbosity_experiment,
)
from fairjudge.audit._self_preference import (
    judge_families,
    self_preference_experiment,
    why_no_self_preference,
)
from fairjudge.runner import progress_label

__all__ = ["EXPERIMENTS", "AuditReport", "audit", "plan_experiments"]

EXPERIMENTS = ("position", "verbosity", "framing", "self-preference")
"""Every experiment, in the order they run and print."""


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Everything an audit measured.

    Attributes:
        judges: The judges examined, by name.
        experiments: One result per experiment and judge (self-preference: one for
            the panel), in :data:`EXPERIMENTS` order; skipped ones say why.
        n_items: Items audited.
        source: Where the items came from (``built-in suite`` or the file).
        settings: The prompts and statistics settings used.
        stopped: Why the audit stopped before its end (a spent budget), or ``None``.
            A stopped report is partial: the experiments after the stop are listed as
            not run, and the calls made are in the store for the next run.
    """

    judges: tuple[str, ...]
    experiments: tuple[ExperimentResult, ...]
    n_items: int
    source: str
    settings: AuditSettings = field(default_factory=AuditSettings)
    stopped: str | None = None

    @property
    def n_calls(self) -> int:
        """Calls asked for, over every experiment (cached ones included)."""
        return sum(e.n_calls for e in self.experiments)

    @property
    def n_failed(self) -> int:
        """Calls that gave no usable reply, over every experiment."""
        return sum(e.n_failed for e in self.experiments)

    def untrusted(self, max_unusable: float = 0.2, *, limit: str = "max_unusable") -> str | None:
        """Why this report's figures cannot be trusted, or ``None`` when they stand.

        Every effect that ran is "not estimable" (there is no figure to trust), or more
        than ``max_unusable`` of the calls gave no usable reply (the figures rest on
        the rest, and may not be the judge's). A partial (stopped) report: ``None``,
        ``stopped`` says why it is partial. ``limit`` names the threshold in the
        message: the parameter here, the flag on the command line.
        """
        ran = [e for e in self.experiments if e.skipped is None]
        if self.stopped is not None or not ran:
            return None
        effects = [f for e in ran for f in (*e.effects, *e.residual)]
        share = self.n_failed / self.n_calls if self.n_calls else 0.0
        why = []
        if all(f.verdict == "not estimable" for f in effects):
            why.append(f"no effect could be estimated (all {len(effects)} not estimable)")
        if share > max_unusable:
            why.append(f"{self.n_failed} of {self.n_calls} calls gave no usable reply "
                       f"({share:.0%} > {limit} {max_unusable:g})")  # fmt: skip
        return "; ".join(why) or None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with the settings recorded."""
        s = self.settings
        return {
            "judges": list(self.judges),
            "source": self.source,
            "n_items": self.n_items,
            "n_calls": self.n_calls,
            "n_failed": self.n_failed,
            "settings": {
                **asdict(s),  # every field, in order: the two below made JSON-ready
                "framing_templates": list(s.framing_templates or ()),
                "rule": str(s.rule),
            },
            "stopped": self.stopped,
            "experiments": [e.to_dict() for e in self.experiments],
        }


def plan_experiments(
    requested: Iterable[str] | None,
    judges: Sequence[AuditJudge],
    items: Sequence[AuditItem],
    settings: AuditSettings | None = None,
) -> tuple[list[str], dict[str, str]]:
    """Which experiments run, and why the others do not.

    Raises:
        ConfigError: An unknown experiment, or a requested one the input cannot run
            (the message says what it needs).
    """
    run, skipped = _plan(requested, judges, items, settings or AuditSettings())
    return run, {e: str(why) for e, why in skipped.items()}


def _plan(
    requested: Iterable[str] | None,
    judges: Sequence[AuditJudge],
    items: Sequence[AuditItem],
    settings: AuditSettings,
) -> tuple[list[str], dict[str, ConfigError]]:
    """:func:`plan_experiments`, each skip reason the error that asking for it raises."""
    wanted = list(dict.fromkeys(requested)) if requested is not None else list(EXPERIMENTS)
    unknown = [e for e in wanted if e not in EXPERIMENTS]
    if unknown:
        raise ConfigError(f"unknown experiment(s) {unknown}; choose from {', '.join(EXPERIMENTS)}")
    if not wanted:
        raise ConfigError("experiments is empty; choose from " + ", ".join(EXPERIMENTS),
                          params="experiments")  # fmt: skip
    has_pairs = bool(position_pairs(items))
    no_pairs = ConfigError(
        "needs two answers per question: the built-in suite, or items rows from two "
        "systems (a `system` column) answering the same question",
        params="items",
    )
    why = {
        "position": None if has_pairs else no_pairs,
        "self-preference": why_no_self_preference(judges, items),
        "framing": why_no_framing(settings, has_pairs),
    }
    if requested is not None:
        impossible = [(e, r) for e in wanted if (r := why.get(e)) is not None]
        if impossible:
            raise ConfigError("; ".join(f"{e}: {r}" for e, r in impossible),
                              params=tuple(p for _, r in impossible for p in r.params))  # fmt: skip
    run = [e for e in EXPERIMENTS if e in wanted and why.get(e) is None]
    skipped = {e: why.get(e) or ConfigError("not requested") for e in EXPERIMENTS if e not in run}
    return run, skipped


def audit(
    judge: AuditJudge | Sequence[AuditJudge],
    items: Sequence[AuditItem] | None = None,
    *,
    experiments: Iterable[str] | None = None,
    settings: AuditSettings | None = None,
    judge_families_by_name: Mapping[str, str] | None = None,
    source: str | None = None,
    progress: Progress | None = None,
) -> AuditReport:
    """Measure a judge's biases, each with its interval, verdict and residual.

    Args:
        judge: The judge, or several (self-preference needs two or more); each an
            :class:`~fairjudge.audit.AuditJudge` such as
            :class:`~fairjudge.audit.ModelAuditJudge`.
        items: The answers to audit; ``None`` for the built-in suite.
        experiments: Names from :data:`EXPERIMENTS`; ``None`` runs all the input allows.
        settings: Prompts, padding length, seed and interval settings.
        judge_families_by_name: A judge's model family by its name or spec, where
            the name does not show it.
        source: Where the items came from, for the report.
        progress: Called with the number of calls just finished.

    Raises:
        ConfigError: An unknown or impossible experiment, no items, or a bad setting,
            always before the first call.

    A spent budget does not raise: the report is returned with ``stopped`` set, the
    finished experiments in it and the rest listed as not run. Every call made is in
    the store, so a rerun with a larger budget pays only for the rest.
    """
    judges = _judges(judge)
    the_items = builtin_items() if items is None else list(items)
    check_items(the_items)
    cfg = settings or AuditSettings()
    _run, skipped = _plan(experiments, judges, the_items, cfg)
    check_references(cfg, the_items)
    pairs = position_pairs(the_items)
    results: list[ExperimentResult] = []
    stopped: str | None = None
    for bias in EXPERIMENTS:
        if bias in skipped:
            why = skipped[bias]
            results.append(ExperimentResult(bias, "", skipped=str(why), params=why.params))
            continue
        for name, run in _runs(bias, judges, the_items, pairs, cfg, judge_families_by_name,
                               progress):  # fmt: skip
            if stopped is not None:
                results.append(ExperimentResult(bias, name, skipped=f"not run: {stopped}"))
                continue
            # Each experiment runs several batches: say whose progress each one shows.
            label = bias if len(judges) == 1 or bias == "self-preference" else f"{bias} ({name})"
            try:
                with progress_label(label):
                    results.append(run())
            except ExperimentStopped as exc:
                stopped = str(exc)
                results.append(ExperimentResult(bias, name, skipped=f"stopped: {stopped}"))
    return AuditReport(
        tuple(j.name for j in judges), tuple(results), len(the_items),
        source or ("built-in suite" if items is None else "items"), cfg, stopped,
    )  # fmt: skip


def _runs(
    bias: str,
    judges: Sequence[AuditJudge],
    items: Sequence[AuditItem],
    pairs: Sequence[Any],
    settings: AuditSettings,
    families_by_name: Mapping[str, str] | None,
    progress: Progress | None,
) -> list[tuple[str, Callable[[], ExperimentResult]]]:
    """The runs of one experiment, in order: (subject's name, the run itself)."""
    if bias == "self-preference":

        def panel() -> ExperimentResult:
            families = judge_families(judges, families_by_name)
            return self_preference_experiment(judges, families, items, settings, progress)

        return [(", ".join(j.name for j in judges), panel)]  # families: only when it runs
    return [(j.name, partial(_one, bias, j, items, pairs, settings, progress)) for j in judges]


def _judges(judge: AuditJudge | Sequence[AuditJudge]) -> list[AuditJudge]:
    """The judges, checked: at least one, each an AuditJudge, no name twice."""
    if isinstance(judge, AuditJudge):
        judges = [judge]
    elif isinstance(judge, Sequence) and not isinstance(judge, str):
        judges = list(judge)
    else:
        judges = [judge]
    bad = [type(j).__name__ for j in judges if not isinstance(j, AuditJudge)]
    if bad or not judges:
        raise ConfigError(
            "audit needs one or more judges that can be asked with any prompt: objects with "
            "name, pairwise(template) and pointwise(rubric), such as ModelAuditJudge("
            f"'openai/<model>', session=...); got {', '.join(bad) or 'none'}"
        )
    names = [j.name for j in judges]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigError(f"judge(s) given more than once: {', '.join(repeated)}")
    return judges


def why_no_framing(settings: AuditSettings, has_pairs: bool) -> ConfigError | None:
    """Why the framing experiment cannot run as set up, or ``None`` (no call made)."""
    from fairjudge.prompts import get_rubric

    standard, strict = get_rubric(settings.rubric), get_rubric(settings.strict_rubric)
    if not set(standard.names) & set(strict.names):
        return ConfigError(
            f"rubrics {settings.rubric!r} and {settings.strict_rubric!r} share no dimension "
            "to compare; pick a strict_rubric with the same dimensions",
            params="strict_rubric",
        )
    if settings.framing_templates is not None and not has_pairs:
        return ConfigError(
            "framing_templates needs pairs of answers: the built-in suite, or items rows "
            "from two systems answering the same question",
            params=("framing_templates", "items"),
        )
    return None


def check_references(settings: AuditSettings, items: Sequence[AuditItem]) -> None:
    """Refuse, before any call, a rubric or template that needs references the items lack.

    Raises:
        ConfigError: Naming the prompt and the first item without a reference.
    """
    from fairjudge.prompts import get_rubric, get_template

    missing = [it.id or it.cluster[:40] for it in items if it.reference is None]
    if not missing:
        return
    rubrics = [settings.rubric, settings.anti_verbose_rubric, settings.strict_rubric]
    templates = [settings.template, settings.concise_template, *(settings.framing_templates or ())]
    needing = [f"rubric {r!r}" for r in rubrics if get_rubric(r).needs_reference]
    needing += [f"template {t!r}" for t in templates if get_template(t).needs_reference]
    if needing:
        raise ConfigError(
            f"{', '.join(needing)} need(s) a reference answer, but {len(missing)} item(s) have "
            f"none (first: {missing[0]!r}); add a `reference` column or pick another prompt"
        )


def _one(
    bias: str,
    judge: AuditJudge,
    items: Sequence[AuditItem],
    pairs: Sequence[Any],
    settings: AuditSettings,
    progress: Progress | None,
) -> ExperimentResult:
    if bias == "position":
        return position_experiment(judge, judge.name, pairs, settings, progress)
    if bias == "verbosity":
        return verbosity_experiment(judge, judge.name, items, settings, progress)
    return framing_experiment(judge, judge.name, items, pairs, settings, progress)
