"""The runs themselves, orchestrated once: one judge's, and a panel's.

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
    from fairjudge.evaluation import AdaptiveResult, EvalSettings, JuryResult, PairwiseResult
    from fairjudge.judges import BatchJudge, Jury, ProgressCallback
    from fairjudge.runner import RunSummary
    from fairjudge.stats import Population, StopRule

__all__ = ["judge_pairs", "judge_panel"]


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
            tallied, items, settings, stop_when, aggregation=aggregation, batch=batch
        ),
    )
    return adaptive.pairwise, adaptive, run
