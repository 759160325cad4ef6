"""What every audit experiment shares: the judge it asks, its settings, its effects, its result.

An experiment maps an :class:`AuditJudge` (one model asked with several prompts;
:class:`ModelAuditJudge` builds them on one session, so every experiment shares one
store, one budget and one loaded model), items and :class:`AuditSettings` to an
:class:`ExperimentResult`: effects (headline first), each with a verdict read against
documented thresholds (:data:`THRESHOLDS`) on the distance from no bias as a share of
the scale, so effects on different scales compare; residual effects; the calls behind
them and the failures, counted, never scored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, runtime_checkable

from fairjudge._call import Closing
from fairjudge._errors import ConfigError
from fairjudge._items import Item
from fairjudge._types import Resolution, stopped_by
from fairjudge.evaluation import EvalSettings, PairwiseResult, evaluate
from fairjudge.judges import (
    BackendOptions,
    BatchJudge,
    BatchPointwiseJudge,
    JudgeSession,
    LLMJudge,
    PointwiseJudge,
    ScoreRequest,
    resolve_judge,
)
from fairjudge.prompts import Rubric
from fairjudge.runner import PROGRESS_LABEL, progress_label
from fairjudge.stats import ConfidenceInterval, bootstrap_mean

__all__ = [
    "THRESHOLDS",
    "AuditJudge",
    "AuditSettings",
    "Effect",
    "EffectVerdict",
    "ExperimentResult",
    "ExperimentStopped",
    "ModelAuditJudge",
    "Progress",
    "Scored",
    "family_of",
    "judge_family",
    "judge_pairs",
    "named_run",
    "paired_effect",
    "score",
    "verdict_of",
]

Progress = Callable[[int], None]
"""Called with the number of calls just finished."""


@contextmanager
def named_run(what: str) -> Iterator[None]:
    """Name which of an experiment's runs the progress shows: its runs are alike otherwise.

    Each run prints its own planning line ("N calls: C cached, M to make"); without
    the answers, rubric or template it is for, framing's basic and strict runs (and
    verbosity's eight) read the same. ``what`` follows the experiment's own label.
    """
    with progress_label(f"{PROGRESS_LABEL.get() or 'audit'}, {what}"):
        yield


class ExperimentStopped(Exception):
    """A budget stopped one of an experiment's batches, so the experiment ends there.

    Only :func:`fairjudge.audit.audit` sees it: it lists the experiment as stopped
    and returns the report with ``stopped`` set. It carries the budget's message,
    never a result; an experiment has no partial effects to report.
    """


@runtime_checkable
class AuditJudge(Protocol):
    """One judge, able to answer with any pairwise template or pointwise rubric."""

    @property
    def name(self) -> str:
        """How reports name the judge (``backend/model``)."""
        ...

    def pairwise(self, template: str) -> BatchJudge:
        """The judge asked which of two answers is better, with ``template``."""
        ...

    def pointwise(self, rubric: str) -> BatchPointwiseJudge:
        """The judge asked to score one answer against ``rubric``."""
        ...


_FAMILY = re.compile(r"[a-z]+")


def family_of(model: str) -> str:
    """A model's family: the leading letters of its name, lowercased.

    ``local/qwen2.5-coder-1.5b`` and ``Qwen-72B-Chat`` are both ``qwen``;
    ``openai/gpt-4o-mini`` is ``gpt``. Crude on purpose: it is what a family label in
    a data file usually looks like, and ``judge_families`` overrides it.
    """
    name = model.rsplit("/", 1)[-1].strip().lower()
    match = _FAMILY.match(name)
    return match.group(0) if match else name


class ModelAuditJudge(Closing):
    """A model judge (any ``--judge`` spec but ``python:``) on a shared session.

    Args:
        spec: The ``--judge`` spec, e.g. ``local/qwen2.5-coder-1.5b``.
        session: The session every prompt's judge runs on.
        backend_options: Server URL, GGUF file, threads, temperature, timeout.
        family: The judge's model family, for the self-preference experiment
            (default: :func:`family_of` the spec).

    Raises:
        ConfigError: A ``python:`` spec (a callable has no prompt to vary), an unknown
            spec, or an option that does not apply to the judge.
    """

    def __init__(
        self,
        spec: str,
        *,
        session: JudgeSession,
        backend_options: BackendOptions | None = None,
        family: str | None = None,
    ) -> None:
        if spec.strip().startswith(("python:", "replay:")):
            raise ConfigError(
                f"audit needs a model judge, whose prompt it can vary; {spec!r} is not one "
                "(a Python callable or a replay has no prompt). In the library, pass an "
                "object with pairwise(template) and pointwise(rubric) methods instead"
            )
        base = resolve_judge(spec, backend_options=backend_options, session=session)
        if not isinstance(base, LLMJudge):  # pragma: no cover - resolve_judge's contract
            raise ConfigError(f"{spec!r} did not resolve to a model judge")
        self.spec = spec.strip()
        self.session = session
        self._base = base
        temperature = (backend_options or BackendOptions()).temperature
        self._params: dict[str, Any] = {} if temperature is None else {"temperature": temperature}
        self.family = family or family_of(self.spec)
        self._pairwise: dict[str, LLMJudge] = {}
        self._pointwise: dict[str, PointwiseJudge] = {}

    @property
    def name(self) -> str:
        """``backend/model``."""
        return self._base.name

    @property
    def temperature(self) -> float | None:
        """The sampling temperature of every call, when one was set."""
        return self._base.temperature

    def pairwise(self, template: str) -> BatchJudge:
        """The judge with a pairwise template (built once per template)."""
        if template not in self._pairwise:
            self._pairwise[template] = LLMJudge(
                self._base.backend, template=template, session=self.session, params=self._params
            )
        return self._pairwise[template]

    def pointwise(self, rubric: str) -> BatchPointwiseJudge:
        """The judge with a rubric (built once per rubric)."""
        if rubric not in self._pointwise:
            self._pointwise[rubric] = PointwiseJudge(
                self._base.backend, rubric=rubric, session=self.session, params=self._params
            )
        return self._pointwise[rubric]

    def close(self) -> None:
        """Nothing of its own: the session is its owner's to close."""


def judge_family(judge: AuditJudge, overrides: Mapping[str, str] | None) -> str:
    """The family of ``judge``: an override by name or spec, its own, or from its name."""
    for key in (judge.name, getattr(judge, "spec", None)):
        if overrides and isinstance(key, str) and key in overrides:
            return overrides[key].strip().lower()
    own = getattr(judge, "family", None)
    return str(own) if own else family_of(judge.name)


EffectVerdict = Literal["negligible", "notable", "severe", "uncertain", "not estimable"]

THRESHOLDS = {"notable": 0.05, "severe": 0.15}
"""Distance from no bias, as a share of the scale, where a verdict starts."""


def verdict_of(
    estimate: float | None, ci: ConfidenceInterval, null: float, scale: float
) -> EffectVerdict:
    """The verdict for an estimate (the verdict table is in ``docs/internals.md``)."""
    if estimate is None or not math.isfinite(estimate) or not ci.estimable:
        return "not estimable"
    if ci.cannot_vary:  # every question alike: the bootstrap could not vary, so its
        return "uncertain"  # point interval rules nothing out (QA41b #2)
    if ci.note is None and ci.high - ci.low <= 1e-12 * scale:
        # An unmarked point: a percentile interval over clusters that vary always has
        # width, so this is a producer that did not say it could not vary (the
        # self-preference fit's, for now). Not read as a certainty either.
        return "uncertain"
    distance = abs(estimate - null) / scale
    if distance < THRESHOLDS["notable"]:
        # Negligible only when the data rule out a notable effect: the whole interval
        # lies within the negligible band. A wide interval around zero is no finding.
        band = THRESHOLDS["notable"] * scale
        within = null - band < ci.low and ci.high < null + band
        return "negligible" if within else "uncertain"
    if null in ci:
        return "uncertain"
    return "notable" if distance < THRESHOLDS["severe"] else "severe"


@dataclass(frozen=True, slots=True)
class Effect:
    """One measured effect of a bias.

    Attributes:
        name: What was measured, e.g. ``"padded - concise, accuracy"``.
        estimate: The effect (``None`` when nothing could be measured).
        ci: Its bootstrap interval, clustered by question, or why there is none.
        null: The value that means no bias.
        unit: How to read the estimate (``"points on 1-10"``, ``"win rate"``, ...).
        scale: The scale the verdict's thresholds are shares of.
        n: Items (or answers) behind the estimate.
        verdict: See :func:`verdict_of`.
        note: Why the estimate cannot show the bias even though it could be computed
            (a judge whose scores sit at the top of the scale cannot score a padded
            answer higher); the verdict is then "not estimable".
    """

    name: str
    estimate: float | None
    ci: ConfidenceInterval
    null: float
    unit: str
    scale: float
    n: int
    verdict: EffectVerdict
    note: str | None = None

    def censored(self, why: str) -> Effect:
        """This effect, kept, but with the verdict "not estimable" and the reason."""
        return replace(self, verdict="not estimable", note=why)

    @classmethod
    def of(
        cls,
        name: str,
        estimate: float | None,
        ci: ConfidenceInterval,
        *,
        null: float,
        unit: str,
        scale: float = 1.0,
        n: int,
    ) -> Effect:
        """An effect with its verdict computed."""
        return cls(name, estimate, ci, null, unit, scale, n, verdict_of(estimate, ci, null, scale))

    @classmethod
    def missing(
        cls, name: str, reason: str, *, null: float, unit: str, scale: float = 1.0
    ) -> Effect:
        """An effect that could not be measured, with the reason."""
        return cls(name, None, ConfidenceInterval.not_estimable(reason), null, unit, scale, 0,
                   "not estimable")  # fmt: skip

    @property
    def covers_null(self) -> bool:
        """Whether the interval contains the no-bias value."""
        return self.null in self.ci

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "estimate": self.estimate,
            "ci": self.ci.to_dict(),
            "null": self.null,
            "unit": self.unit,
            "scale": self.scale,
            "n": self.n,
            "verdict": self.verdict,
            "note": self.note,
        }


def paired_effect(
    name: str,
    differences: Sequence[float],
    clusters: Sequence[Hashable],
    *,
    unit: str,
    scale: float,
    seed: int,
    level: float,
    n_resamples: int,
) -> Effect:
    """The mean of paired differences (no bias: 0), with a clustered bootstrap interval."""
    if not differences:
        return Effect.missing(
            name, "no item was scored both ways", null=0.0, unit=unit, scale=scale
        )
    ci = bootstrap_mean(
        list(differences), list(clusters), n_resamples=n_resamples, seed=seed, level=level
    )
    estimate = math.fsum(differences) / len(differences)
    return Effect.of(name, estimate, ci, null=0.0, unit=unit, scale=scale, n=len(differences))


SEVERITY = ("negligible", "not estimable", "uncertain", "notable", "severe")
"""Verdicts from least to most alarming: an experiment's verdict is its worst, so an
effect that could not be estimated keeps the experiment from reading "negligible"."""


@dataclass(frozen=True, slots=True)
class AuditSettings:
    """Which prompts the experiments use, and the statistics settings.

    Attributes:
        rubric: The standard rubric (verbosity, framing and self-preference scores).
        anti_verbose_rubric: The verbosity mitigation for pointwise scores.
        strict_rubric: The framing experiment's strict-expert rubric.
        template: The standard pairwise template.
        concise_template: The verbosity mitigation for pairwise verdicts: a template
            that declares length irrelevant.
        framing_templates: Two pairwise templates to compare in the framing
            experiment (``None``: scores only).
        target_words: Length the padded answers grow to.
        rule: How each pair's two calls resolve (pairwise experiments).
        seed: Seeds the padding and every bootstrap.
        level: Confidence level of every interval.
        n_resamples: Bootstrap resamples.
    """

    rubric: str = "basic"
    anti_verbose_rubric: str = "anti-verbose"
    strict_rubric: str = "strict"
    template: str = "default"
    concise_template: str = "concise"
    framing_templates: tuple[str, str] | None = None
    target_words: int = 300
    rule: Resolution = Resolution.CONSERVATIVE
    seed: int = 0
    level: float = 0.95
    n_resamples: int = 2000

    def __post_init__(self) -> None:
        if not 50 <= self.target_words <= 5000:
            raise ConfigError(f"target_words must be in [50, 5000]; got {self.target_words}",
                              params="target_words")  # fmt: skip
        if not 0 < self.level < 1:
            raise ConfigError(f"level must be in (0, 1); got {self.level}", params="level")
        if self.n_resamples < 100:
            raise ConfigError(f"n_resamples must be >= 100; got {self.n_resamples}",
                              params="n_resamples")  # fmt: skip
        if self.seed < 0:  # now, not in the bootstrap after every call was paid for
            raise ConfigError(f"seed must be >= 0; got {self.seed}", params="seed")

    def eval_settings(self, judge: str, template: str) -> EvalSettings:
        """The pairwise protocol settings for one template."""
        return EvalSettings(
            rule=self.rule, seed=self.seed, level=self.level, n_resamples=self.n_resamples,
            judge=judge, template=template,
        )  # fmt: skip

    def boot(self) -> dict[str, Any]:
        """Keyword arguments of every bootstrap."""
        return {"seed": self.seed, "level": self.level, "n_resamples": self.n_resamples}


@dataclass(frozen=True, slots=True)
class ExperimentResult:
    """One experiment's report card entry.

    Attributes:
        bias: ``position``, ``verbosity``, ``framing`` or ``self-preference``.
        judge: The judge examined (all judges, for self-preference).
        effects: The measured effects, headline first.
        residual: The effects left after the mitigation (empty when there is none).
        mitigation: What the residual was measured under.
        n_items: Items behind the effects.
        n_calls: Calls the experiment asked for (cached ones included).
        n_failed: Calls that gave no usable reply (parse failures, call errors).
        details: Experiment-specific extras (a padded example, a judge x family matrix).
        skipped: Why the experiment did not run; ``None`` when it ran.
        params: The parameters ``skipped`` names, by their Python names (the command
            line shows them as its flags).
    """

    bias: str
    judge: str
    effects: tuple[Effect, ...] = ()
    residual: tuple[Effect, ...] = ()
    mitigation: str | None = None
    n_items: int = 0
    n_calls: int = 0
    n_failed: int = 0
    details: Mapping[str, Any] = field(default_factory=dict)
    skipped: str | None = None
    params: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        """The worst verdict among the effects (``skipped`` when it did not run)."""
        if self.skipped is not None:
            return "skipped"
        if not self.effects:
            return "not estimable"
        return max((e.verdict for e in self.effects), key=SEVERITY.index)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "bias": self.bias,
            "judge": self.judge,
            "verdict": self.verdict,
            "effects": [e.to_dict() for e in self.effects],
            "residual": [e.to_dict() for e in self.residual],
            "mitigation": self.mitigation,
            "n_items": self.n_items,
            "n_calls": self.n_calls,
            "n_failed": self.n_failed,
            "details": dict(self.details),
            "skipped": self.skipped,
        }


@dataclass(frozen=True, slots=True)
class Scored:
    """Answers scored against one rubric: per answer, its scores (``None`` if incomplete)."""

    rubric: Rubric
    scores: list[dict[str, float] | None]
    n_calls: int
    n_failed: int

    @property
    def dimensions(self) -> list[str]:
        """The rubric's dimension names."""
        return [d.name for d in self.rubric.dimensions]

    @property
    def span(self) -> float:
        """The width of the rubric's scale (``max - min``)."""
        low, high = self.rubric.scale
        return float(high - low)

    def unit(self) -> str:
        """How an effect in this rubric's points reads."""
        low, high = self.rubric.scale
        return f"points on {low}-{high} ({self.rubric.name})"


def score(
    judge: BatchPointwiseJudge,
    questions: Sequence[Any],
    answers: Sequence[str],
    references: Sequence[str | None],
    progress: Progress | None,
) -> Scored:
    """Score every answer with the judge's rubric; incomplete answers are ``None``.

    Raises:
        ExperimentStopped: A budget stopped the batch.
    """
    requests = [
        ScoreRequest(q, a, r) for q, a, r in zip(questions, answers, references, strict=True)
    ]
    results = judge.score_batch(requests, progress)
    stopped = stopped_by(results)
    if stopped is not None:
        raise ExperimentStopped(stopped)
    dims = [d.name for d in judge.rubric.dimensions]
    scores: list[dict[str, float] | None] = []
    n_calls = n_failed = 0
    for res in results:
        n_calls += len(res.calls)
        n_failed += sum(1 for c in res.calls if not c.reply.ok)
        complete = all(d in res.scores for d in dims)
        scores.append({d: float(res.scores[d]) for d in dims} if complete else None)
    return Scored(judge.rubric, scores, n_calls, n_failed)


def judge_pairs(
    judge: AuditJudge,
    items: Sequence[Item],
    settings: AuditSettings,
    *,
    name: str,
    template: str,
    progress: Progress | None,
) -> PairwiseResult:
    """The debiased (swap) protocol on ``items`` with one of the judge's templates.

    Raises:
        ExperimentStopped: A budget stopped the batch.
    """
    result = evaluate(
        judge.pairwise(template), items, settings.eval_settings(name, template), progress=progress
    )
    if result.stopped is not None:
        raise ExperimentStopped(result.stopped)
    return result


def pairwise_failures(result: PairwiseResult) -> int:
    """Calls of a pairwise result that gave no verdict."""
    return result.n_parse_failures + result.n_call_errors
