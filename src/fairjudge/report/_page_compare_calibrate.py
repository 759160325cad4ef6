"""The page of a pairwise ``calibrate --out`` file: the calibration ``calibrate --html`` drew.

A colleague redrawing a calibration must see the calibration (kappa, the gate, the
agreement with the human labels), not only the comparison the judged pairs also
are. The human labels are in the records (a calibrate run refuses an unlabelled
item, and each record carries its item's ``human`` and ``human_score``); the gate's
thresholds are in the header's settings (``min_kappa``, ``min_spearman``). The
figures are :func:`fairjudge.audit.calibration_report`'s, over the judged pairs read
back and summarised again with the run's seed, level and resamples.

A file whose records hold no human label cannot be drawn as a calibration: it is
drawn as its comparison (as ``fairjudge report`` drew every calibrate file before),
and the note says why and how to get the calibration. A header recording no
thresholds (a file written before headers kept them) is drawn at the defaults, and
the note says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fairjudge._errors import ConfigError, InputError
from fairjudge.audit import calibration_report
from fairjudge.evaluation import PairwiseResult
from fairjudge.io import OutHeader, shown
from fairjudge.report._audit import calibration_payload
from fairjudge.report._comparison import comparison_report
from fairjudge.report._page import Page, PageLoader
from fairjudge.report._page_compare import compare_page
from fairjudge.report._page_load import load_comparison, source_name
from fairjudge.report._page_recorded import recorded_run

__all__ = ["OUT_FILE_PAGES", "calibrate_page_from_file"]

_THRESHOLDS = ("min_kappa", "min_spearman")


def _unlabelled(result: PairwiseResult) -> int:
    """How many judged pairs carry neither a human label nor a human score."""
    return sum(j.item.human is None and j.item.human_score is None for j in result.judgments)


def _gate(
    header: OutHeader | None, path: Path, notify: Callable[[str], None] | None
) -> dict[str, float]:
    """The run's ``min_kappa`` and ``min_spearman``, as its header records them.

    One not recorded is left out: :func:`~fairjudge.audit.calibration_report`'s
    default, calibrate's.

    Raises:
        InputError: A recorded threshold that is not a number in [-1, 1] (the file is
            untrusted); the message names the setting.
    """
    settings: Mapping[str, Any] = header.settings if header is not None else {}
    gate: dict[str, float] = {}
    for name in _THRESHOLDS:
        value = settings.get(name)
        if value is None:
            continue  # calibration_report's default: calibrate's
        if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
            raise InputError(f"header: settings.{name} is not a threshold a calibrate run could "
                             f"have used (a number in [-1, 1]); got {shown(value)}",
                             path=str(path), params="out")  # fmt: skip
        gate[name] = float(value)
    missing = [n for n in _THRESHOLDS if n not in gate]
    if missing and notify is not None:
        notify(f"the file's header records no gate threshold {' or '.join(missing)} (written "
               "by an older fairjudge): the gate is drawn at calibrate's default")  # fmt: skip
    return gate


def calibrate_page_from_file(
    path: Path,
    *,
    seed: int = 0,
    level: float = 0.95,
    n_resamples: int = 2000,
    notify: Callable[[str], None] | None = None,
) -> Page:
    """The calibration page of a pairwise ``calibrate --out`` file, as its ``--html`` drew it.

    Args:
        path: The ``calibrate --out`` file.
        seed: The bootstrap seed (``fairjudge report`` gives the run's).
        level: The confidence level.
        n_resamples: Bootstrap resamples.
        notify: Told why the page is not quite the run's: no human label in the
            records (drawn as the comparison), or no thresholds in the header.

    Raises:
        InputError: As :func:`~fairjudge.report._page_load.load_comparison`, or a
            recorded threshold no run could have used.
    """
    header, result = load_comparison(path, seed=seed, level=level, n_resamples=n_resamples)
    run = recorded_run(header)
    name = source_name(result.settings.source, path)
    missing = _unlabelled(result)
    if missing:
        if notify is not None:
            notify(f"{missing} of {result.n_items} records hold no human label (human or "
                   "human_score), which the calibration is drawn against: the file is drawn as "
                   "its comparison. Write its `calibrate out` file again from the labelled "
                   "input to draw the calibration")  # fmt: skip
        report = comparison_report(result, title=f"{name}: model 1 vs model 2", run=run)
        return compare_page(report, header=header)
    try:
        calibration = calibration_report(result, **_gate(header, path, notify))
    except ConfigError as exc:  # the thresholds were checked: a label no run could write
        raise InputError(f"cannot be drawn as a calibration ({exc})", path=str(path),
                         params="out") from None  # fmt: skip
    payload = calibration_payload(calibration, judge=result.settings.judge or "")
    payload["skipped_rows"] = []  # the input rows the run skipped are not in its file
    report = comparison_report(result, title=f"{name}: calibration", run=run)
    return compare_page(report, calibration=calibration, summary=payload, header=header)


OUT_FILE_PAGES: dict[str, PageLoader] = {"calibrate": calibrate_page_from_file}
"""A pairwise ``calibrate`` file: its calibration page (the loader takes ``notify``)."""
