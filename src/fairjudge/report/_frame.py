"""The frame every report shares: the run's facts beside the result's own numbers.

A report is one result (on its :class:`~fairjudge.evaluation.ResultFrame`) plus what
the run around it did: the calls it made (:class:`~fairjudge.runner.RunSummary`) and
the input rows it skipped. :class:`ReportFrame` renders those facts, and the failures
grouped by reason, the same way for every kind of report: in the JSON
(:meth:`~ReportFrame.run_dict`) and in the table's footer (:func:`bootstrap_text`).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Protocol

from fairjudge.runner import RunSummary

__all__ = ["ReportFrame", "bootstrap_text"]


class _Boot(Protocol):
    @property
    def seed(self) -> int: ...
    @property
    def level(self) -> float: ...
    @property
    def n_resamples(self) -> int: ...


class _Failing(Protocol):
    @property
    def failures(self) -> Counter[str]: ...


def bootstrap_text(result: _Boot) -> str:
    """``seed=0 level=0.95 resamples=2000``: how the intervals were drawn."""
    return f"seed={result.seed} level={result.level} resamples={result.n_resamples}"


class ReportFrame:
    """The run facts every report adds to its result: failures, calls, skipped rows.

    A report joins the frame by subclassing it and giving ``result``, ``run`` (the
    judge calls' counts, tokens and cost; ``None`` for Python judges) and
    ``skipped`` (the input rows skipped with ``skip_invalid``) as dataclass fields.
    """

    __slots__ = ()

    # Given by each report as dataclass fields: declared for the type checker only, as
    # a class attribute here would become a field's default.
    if TYPE_CHECKING:
        result: _Failing
        run: RunSummary | None
        skipped: tuple[dict[str, Any], ...]

    @property
    def failures(self) -> Counter[str]:
        """Why calls failed, grouped by reason (the result's, unless a report says more)."""
        return self.result.failures

    def run_dict(self) -> dict[str, Any]:
        """The run's part of the JSON: ``failures``, ``calls`` and ``skipped_rows``."""
        return {
            "failures": dict(self.failures.most_common()),
            "calls": self.run.to_dict() if self.run is not None else None,
            "skipped_rows": list(self.skipped),
        }
