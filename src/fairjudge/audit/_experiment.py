"""What every audit experiment shares: its settings, its result, and how it asks the judge.

An experiment maps an :class:`~fairjudge.audit.AuditJudge`, items and
:class:`AuditSettings` to an :class:`ExperimentResult`: effects (headline first),
residual effects, the calls behind them and the failures, counted, never scored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairjudge._errors import ConfigError
from fairjudge._items import Item
from fairjudge._types import Resolution, stopped_by
from fairjudge.audit._effects import Effect
from fairjudge.audit._judges import AuditJudge
from fairjudge.evaluation import EvalSettings, PairwiseResult, evaluate
from fairjudge.judges import BatchPointwiseJudge, ScoreRequest
from fairjudge.prompts import Rubric

__all__ = [
    "AuditSettings",
    "ExperimentResult",
    "ExperimentStopped",
    "Progress",
    "Scored",
    "judge_pairs",
    "score",
]

Progress = Callable[[int], None]
"""Called with the number of calls just finished."""


class ExperimentStopped(Exception):
    """A budget stopped one of an experiment's batches, so the experiment ends there.

    Only :func:`fairjudge.audit.audit` sees it: it lists the experiment as stopped
    and returns the report with ``stopped`` set. It carries the budget's message,
    never a result; an experiment has no partial effects to report.
    """


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
