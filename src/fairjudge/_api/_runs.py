"""The runs themselves, orchestrated once: one judge's, a panel's, and one via scores.

:func:`fairjudge.compare` (``judge=`` and ``judges=``) and the ``compare``,
``calibrate`` and ``jury`` commands, which read their own files and show their own
progress bar, call these, so ``stop_when=`` in a notebook and ``--stop-when`` on the
command line run alike. The adaptive machinery loads only when ``stop_when`` is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fairjudge._api._common import last_run

if TYPE_CHECKING:
    from fairjudge._items import Item
    from fairjudge.evaluation import (
        AdaptiveResult,
        EvalSettings,
        JuryResult,
        PairwiseResult,
        ViaScoresResult,
    )
    from fairjudge.judges import BatchJudge, Jury, ProgressCallback
    from fairjudge.runner import RunSummary
    from fairjudge.stats import Population, StopRule

__all__ = ["judge_pairs", "judge_panel", "judge_via_scores", "recorded_template"]


def recorded_template(judge: BatchJudge) -> str | None:
    """The template a judge's run records, as ``name@version``: ``None`` without a prompt.

    A model judge (:class:`~fairjudge.judges.LLMJudge`) records its template, as the
    commands do (``default@N``), so a notebook's result and a command's ``--json``
    name the same prompt; a Python callable or a replay sends none.
    """
    from fairjudge.judges import LLMJudge

    if isinstance(judge, LLMJudge):
        return f"{judge.template.name}@{judge.template.version}"
    return None


def judge_pairs(
    judge: BatchJudge,
    items: list[Item],
    settings: EvalSettings,
    *,
    stop_when: str | Sequence[str] | StopRule | None = None,
    batch: int | None = None,
    population: Population | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[PairwiseResult, AdaptiveResult[PairwiseResult] | None, RunSummary | None]:
    """Judge every pair, or with ``stop_when`` a batch of questions at a time until it is met.

    Returns:
        The comparison, the adaptive run (with ``stop_when``), and the calls' summary
        (counted over the whole adaptive run, every batch).
    """
    from fairjudge.evaluation import evaluate

    if stop_when is None:
        return evaluate(judge, items, settings, progress=progress), None, last_run(judge)
    from fairjudge.evaluation import as_batch_judge, evaluate_adaptive, tallied_run

    adaptive, run = tallied_run(
        as_batch_judge(judge),
        lambda tallied: evaluate_adaptive(
            tallied, items, settings, stop_when, batch=batch, population=population,
            progress=progress,
        ),
    )  # fmt: skip
    return adaptive.pairwise, adaptive, run


def judge_panel(
    panel: Jury,
    items: list[Any],
    settings: EvalSettings,
    *,
    aggregation: str,
    stop_when: str | Sequence[str] | StopRule | None = None,
    batch: int | None = None,
    population: Population | None = None,
) -> tuple[JuryResult, AdaptiveResult[JuryResult] | None, RunSummary | None]:
    """The panel judges every item, or with ``stop_when`` batch by batch until it is met.

    Returns:
        The panel's result, the adaptive run (with ``stop_when``), and the calls'
        summary (over every batch of an adaptive run).
    """
    from fairjudge.evaluation import evaluate_jury

    if stop_when is None:
        result = evaluate_jury(panel, items, settings, aggregation=aggregation)
        return result, None, panel.last_run
    from fairjudge.evaluation import evaluate_jury_adaptive, tallied_run

    adaptive, run = tallied_run(
        panel,
        lambda tallied: evaluate_jury_adaptive(
            tallied,
            items,
            settings,
            stop_when,
            aggregation=aggregation,
            batch=batch,
            population=population,
        ),
    )
    return adaptive.pairwise, adaptive, run


def judge_via_scores(
    scorer: Any,
    items: list[Item],
    settings: EvalSettings,
    *,
    tie_margin: float,
    calls_per_answer: int = 1,
    stop_when: str | Sequence[str] | StopRule | None = None,
    batch: int | None = None,
) -> tuple[ViaScoresResult, AdaptiveResult[ViaScoresResult] | None, RunSummary | None]:
    """Score each answer on its own, the two scores per item giving the win rate.

    With ``stop_when``, questions are scored a batch at a time until it is met.
    ``calls_per_answer`` is what one answer costs (one call per rubric dimension in
    ``label`` mode), for the batch size.

    Returns:
        The comparison via scores, the adaptive run (with ``stop_when``), and the
        calls' summary (``None`` for a Python scorer, which keeps no run).
    """
    from fairjudge.judges import PointwiseJudge

    if stop_when is None:
        from fairjudge.evaluation import compare_via_scores

        result = compare_via_scores(
            scorer, items, tie_margin=tie_margin, seed=settings.seed, level=settings.level,
            n_resamples=settings.n_resamples,
        )  # fmt: skip
        return result, None, scorer.last_run if isinstance(scorer, PointwiseJudge) else None
    from fairjudge.evaluation import compare_via_scores_adaptive, tallied_run

    def run(judge: Any) -> AdaptiveResult[ViaScoresResult]:
        return compare_via_scores_adaptive(
            judge, items, settings, stop_when, tie_margin=tie_margin,
            calls_per_answer=calls_per_answer, batch=batch,
        )  # fmt: skip

    if not isinstance(scorer, PointwiseJudge):  # a Python function: no run to tally
        adaptive = run(scorer)
        return adaptive.pairwise, adaptive, None
    adaptive, calls = tallied_run(scorer, run)
    return adaptive.pairwise, adaptive, calls
