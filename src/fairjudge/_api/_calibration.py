"""What ``fairjudge.calibrate`` returns, and its run on rubric scores (``calibrate --rubric``).

Apart from :mod:`fairjudge._api._functions` so that a pairwise calibration never
loads the pointwise judges and their summaries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairjudge._api._result import Result, scored_rows

if TYPE_CHECKING:
    from fairjudge._api._setup import JudgeSetup
    from fairjudge.judges import ScoreMode
    from fairjudge.prompts import Rubric

__all__ = ["Calibration", "calibrate_scores"]


@dataclass(frozen=True, slots=True)
class Calibration:
    """``calibrate``'s report: its figures and gate, what they were read from, its JSON.

    Attributes:
        figures: Pairwise, :func:`fairjudge.audit.calibration_report`'s report
            (``gate``: a :class:`~fairjudge.audit.CalibrationGate`); on rubric
            scores, a :class:`~fairjudge.audit.ScoreCalibration`.
        page: Pairwise, the comparison report the figures were computed from (its
            page and Markdown show them); ``None`` on rubric scores.
        payload: ``calibrate --json``: the figures as JSON, the calls, the skipped rows.
    """

    figures: Any
    page: Any
    payload: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """``calibrate --json``."""
        return self.payload


def calibrate_scores(
    items: Any, judge: Any, rubric: str | Rubric, *, mode: ScoreMode, min_spearman: float,
    seed: int, level: float, n_resamples: int, setup: JudgeSetup,
    columns: Mapping[str, str] | None, skip_invalid: bool, allow_empty: bool, source: str | None,
) -> Result:  # fmt: skip
    """Score every answer against ``rubric``, then each dimension against the human scores.

    Every item needs a ``human_<dimension>`` score on some dimension; the gate is
    Spearman >= ``min_spearman`` on every dimension scored by humans.
    """
    from fairjudge._api._score import _score_items, score
    from fairjudge.audit import check_score_labels, score_calibration_report
    from fairjudge.prompts import get_rubric

    the_rubric = get_rubric(rubric) if isinstance(rubric, str) else rubric
    item_list, name, skipped = _score_items(
        items, columns, the_rubric, skip_invalid, allow_empty, source
    )
    check_score_labels(item_list)  # before any call
    scored = score(item_list, judge, rubric=the_rubric, mode=mode, seed=seed, level=level,
                   n_resamples=n_resamples, setup=setup, source=name)  # fmt: skip
    result = scored.result
    report = score_calibration_report(result, min_spearman=min_spearman)
    calls = scored.calls
    # The calls as score --json reports them (a Python scorer's: null); Result.calls keeps all.
    payload = {**report.to_dict(), "calls": scored.to_dict().get("calls"),
               "skipped_rows": skipped}  # fmt: skip
    return Result(
        "calibrate", result, Calibration(report, None, payload), result.stopped,
        _rows=lambda: scored_rows(result.items), _html=scored._html,
        _summary=lambda: _text(report), calls=calls, sent_by=scored.sent_by,
    )  # fmt: skip


def _text(report: Any) -> str:
    """The report card as the command prints it, as plain text."""
    import io

    from rich.console import Console

    from fairjudge.report import render_score_calibration

    console = Console(record=True, width=100, file=io.StringIO())
    render_score_calibration(report, console)
    return console.export_text().rstrip()
