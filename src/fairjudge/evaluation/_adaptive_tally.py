"""The calls of an adaptive run, shared by the command line and the notebook API.

An adaptive run judges its file in many batches, each a run of its own for the
judge (or the panel): :class:`TalliedJudge` keeps every batch's
:class:`~fairjudge.runner.RunSummary` and labels each batch's progress, and
:func:`tallied_run` hands the wrapped judge to the library's adaptive loop
(:func:`fairjudge.evaluation.evaluate_adaptive`,
:func:`fairjudge.evaluation.evaluate_jury_adaptive`,
:func:`fairjudge.evaluation.compare_via_scores_adaptive`) and returns its result with the
calls of the whole run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fairjudge.runner import RunSummary, progress_label

__all__ = ["TalliedJudge", "sum_runs", "tallied_run"]

T = TypeVar("T")


def sum_runs(runs: Sequence[RunSummary]) -> RunSummary | None:
    """The batches' summaries added up (``None`` for a judge that keeps none)."""
    return RunSummary.total_of(runs)


class TalliedJudge:
    """A judge or a panel that keeps every batch's run summary: an adaptive run is many batches.

    The judge's ``last_run`` is its latest batch's alone; the report's calls are the
    whole run's. Each batch's progress display is labelled with its number, so that a
    run of many batches does not show as many unnamed bars. Everything else is the
    judge's own (its session, backend, name; a panel's members and usage).
    """

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        self.runs: list[RunSummary] = []
        self.batches = 0

    def _tally(self, batch: Callable[[], T]) -> T:
        self.batches += 1
        with progress_label(f"batch {self.batches}"):
            out = batch()
        run = getattr(self.judge, "last_run", None)
        if isinstance(run, RunSummary) and (not self.runs or run is not self.runs[-1]):
            self.runs.append(run)
        return out

    def judge_batch(self, requests: Sequence[Any], progress: Any = None) -> Any:
        """One judge's batch (:meth:`fairjudge.judges.BatchJudge.judge_batch`), tallied."""
        return self._tally(lambda: self.judge.judge_batch(requests, progress))

    def score_batch(self, requests: Sequence[Any], progress: Any = None) -> Any:
        """A pointwise judge's batch (``compare --via-scores``), tallied."""
        return self._tally(lambda: self.judge.score_batch(requests, progress))

    def member_readings(self, requests: Sequence[Any], progress: Any = None) -> Any:
        """A panel's batch (:meth:`fairjudge.judges.Jury.member_readings`), tallied."""
        return self._tally(lambda: self.judge.member_readings(requests, progress))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.judge, name)

    def total(self) -> RunSummary | None:
        """The batches' summaries added up (``None`` for a judge that keeps none)."""
        return sum_runs(self.runs)


def tallied_run(judge: Any, run: Callable[[Any], T]) -> tuple[T, RunSummary | None]:
    """``run(judge)`` on the judge wrapped in a :class:`TalliedJudge`; its result and calls."""
    tallied = TalliedJudge(judge)
    return run(tallied), tallied.total()
