"""``fairjudge report`` of a pointwise ``calibrate --out`` file: the page its ``--html`` drew.

The file's records are scored answers, each with its human scores, so it is read
back as a ``score`` file is (:func:`~fairjudge.report._page_load.load_score_result`),
summarised again at the run's seed, level and resamples (``fairjudge report`` gives
them, as the header records them), and calibrated again at the run's
``min_spearman``, which the header records too. A header recording none (an older
file) is drawn at calibrate's default, 0.7, and the note says so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairjudge._errors import ConfigError, InputError
from fairjudge.audit import score_calibration_report
from fairjudge.io import OutHeader, shown
from fairjudge.report._page import Page
from fairjudge.report._page_load import load_score_result, recorded_source_name
from fairjudge.report._page_score import score_page
from fairjudge.report._scores import score_report

__all__ = ["score_calibrate_page_from_file"]

_DEFAULT_GATE = 0.7  # calibrate's --min-spearman


def _min_spearman(header: OutHeader | None, path: Path,
                  notify: Callable[[str], None] | None) -> float:  # fmt: skip
    """The run's gate threshold, as its header records it; else calibrate's default (0.7)."""
    value = header.settings.get("min_spearman") if header is not None else None
    if value is None:
        if notify is not None:
            notify("the file's header records no gate threshold min_spearman (written by an "
                   "older fairjudge): the gate is drawn at calibrate's default, 0.7")  # fmt: skip
        return _DEFAULT_GATE
    if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
        raise InputError(f"header: settings.min_spearman is not a threshold a calibrate run "
                         f"could have used (a number in [-1, 1]); got {shown(value)}",
                         path=str(path), params="out")  # fmt: skip
    return float(value)


def _calls_payload(header: OutHeader | None, judge: str | None) -> Any:
    """The calls as ``calibrate --json`` had them: a model's; a Python scorer's ``null``."""
    if header is None or header.calls is None or (judge or "").startswith("python:"):
        return None
    return dict(header.calls)


def score_calibrate_page_from_file(
    path: Path,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    notify: Callable[[str], None] | None = None,
) -> Page:
    """The page of a pointwise ``calibrate --out`` file, as its ``--html`` drew it.

    Args:
        path: The ``calibrate --rubric ... --out`` file.
        seed: The bootstrap seed (``fairjudge report`` gives the run's).
        level: The confidence level.
        n_resamples: Bootstrap resamples.
        notify: Told what of the run's page cannot be drawn again (no threshold recorded).

    Raises:
        InputError: The file is not a readable pointwise calibrate file, or its header
            records a threshold no run could have used.
    """
    loaded = load_score_result(path, seed=seed, level=level, n_resamples=n_resamples,
                               kind="calibrate")  # fmt: skip
    header, result = loaded.header, loaded.result
    try:
        cal = score_calibration_report(result, min_spearman=_min_spearman(header, path, notify))
    except ConfigError as exc:
        raise InputError(f"cannot be drawn as a calibration ({exc})", path=str(path),
                         params="out") from None  # fmt: skip
    report = score_report(result, title=recorded_source_name(header, path))
    summary = {
        **cal.to_dict(),
        "calls": _calls_payload(header, result.judge),
        "skipped_rows": [],
    }  # the input rows the run skipped are not in its file
    return score_page(report, header=header, calibration=cal, summary=summary)
