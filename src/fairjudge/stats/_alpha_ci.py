"""Krippendorff's alpha with a seeded bootstrap interval, clustered by question.

:func:`~fairjudge.stats.krippendorff_alpha` gives the point estimate; a panel that
scores answers on a rubric also needs to know how sure that estimate is. Alpha is a
ratio of two sums over the *coincidence matrix*, and that matrix is a sum of one
small matrix per unit (item). So each question's contribution is computed once, and
a resample's matrix is its draw counts times those contributions: a bootstrap over
questions that costs one matrix product per resample, not one pass over the data.

Only units with two or more values are pairable and count, as in the point
estimate; the bootstrap resamples those units (whole questions when ``questions``
is given, so that several answers to one question are not taken for independent
evidence). A resample where no disagreement is expected (every value equal) has no
alpha and is left out of the interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np

from fairjudge._errors import InputError
from fairjudge.stats._arrays import FloatArray
from fairjudge.stats._intervals import ConfidenceInterval
from fairjudge.stats._panel import Metric, alpha_value, check_metric, coincidences
from fairjudge.stats._resample import BootstrapOptions, Resampled, nan_to_none, plan_bootstrap

__all__ = ["KrippendorffAlpha", "krippendorff_alpha_ci"]

_FLOOR = 1e-12  # a resample expecting less disagreement has no alpha


@dataclass(frozen=True, slots=True)
class KrippendorffAlpha(Resampled):
    """Krippendorff's alpha of a panel's scores, with a bootstrap interval.

    Attributes:
        alpha: ``1 - D_o / D_e``; NaN when no disagreement is expected.
        ci: Percentile bootstrap interval, or why there is none.
        metric: ``"nominal"``, ``"ordinal"`` or ``"interval"``.
        n_units: Pairable units (items with two or more values).
        n_values: Values in those units.
    """

    alpha: float
    ci: ConfidenceInterval
    metric: Metric
    n_units: int
    n_values: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN becomes ``None``)."""
        return {
            "alpha": nan_to_none(self.alpha),
            "ci": self.ci.to_dict(),
            "metric": self.metric,
            "n_units": self.n_units,
            "n_values": self.n_values,
            **self.resampling_dict(),
        }

    def summary(self) -> str:
        """One line."""
        units = f"{self.n_units} units"
        return f"Krippendorff's alpha ({self.metric}) {self.alpha:.3f} {self.ci} ({units})"


def krippendorff_alpha_ci(
    data: Sequence[Sequence[float | None]],
    metric: Metric = "ordinal",
    **options: Unpack[BootstrapOptions],
) -> KrippendorffAlpha:
    """Krippendorff's alpha with a percentile bootstrap interval over units or questions.

    Args:
        data: One row per unit (an item), one value per coder (a member); ``None``
            where a coder gave none.
        metric: ``"nominal"``, ``"ordinal"`` (rubric levels: ranks matter) or
            ``"interval"`` (differences matter).
        **options: Bootstrap options (``questions``: one label per row of ``data``,
            ``n_resamples``, ``seed``, ``level``).

    Raises:
        ConfigError: An unknown metric or a bad bootstrap option.
        InputError: No unit has two values, or ``questions`` does not match ``data``.

    Example:
        >>> krippendorff_alpha_ci([[1, 1], [2, 2], [3, 3]], n_resamples=10).alpha
        1.0
    """
    check_metric(metric)
    questions = options.pop("questions", None)
    if questions is not None and len(questions) != len(data):
        raise InputError(f"questions has {len(questions)} labels for {len(data)} units")
    per_unit, values, rows = coincidences(data)
    size = values.size
    if questions is not None:
        options = {**options, "questions": [questions[k] for k in rows]}
    plan = plan_bootstrap(len(rows), options)
    per_cluster = np.zeros((plan.n_clusters, size, size))
    np.add.at(per_cluster, plan.clusters, per_unit)
    point = alpha_value(per_unit.sum(axis=0), values, metric, floor=_FLOOR)
    boot = [
        _alphas((draws @ per_cluster.reshape(plan.n_clusters, -1)).reshape(-1, size, size),
                values, metric)
        for draws in plan.draws(plan.n_clusters + 2 * size * size)
    ]  # fmt: skip
    (ci,) = plan.intervals(np.concatenate(boot))
    return KrippendorffAlpha(
        alpha=point,
        ci=ci,
        metric=metric,
        n_units=len(rows),
        n_values=sum(v is not None for k in rows for v in data[k]),
        **plan.record(),
    )


def _alphas(matrices: FloatArray, values: FloatArray, metric: Metric) -> FloatArray:
    """:func:`~fairjudge.stats._panel.alpha_value` of each coincidence matrix ``(B, V, V)``.

    The same formula for all resamples at once (one resample at a time was most of
    the interval's cost); NaN where it is undefined, as there.
    """
    n_c = matrices.sum(axis=1)
    total = n_c.sum(axis=1)
    size = values.size
    if metric == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(size), matrices.shape)
    elif metric == "interval":
        delta = np.broadcast_to(np.subtract.outer(values, values) ** 2, matrices.shape)
    else:  # ordinal: as _panel._delta, with each resample's own marginals
        cum = np.cumsum(n_c, axis=1)
        lo = np.minimum.outer(np.arange(size), np.arange(size))
        hi = np.maximum.outer(np.arange(size), np.arange(size))
        between = cum[:, hi] - np.where(lo > 0, cum[:, lo - 1], 0.0)
        delta = (between - (n_c[:, lo] + n_c[:, hi]) / 2.0) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (matrices * delta).sum(axis=(1, 2)) / total
        pairs = n_c[:, :, None] * n_c[:, None, :]
        expected = (pairs * delta).sum(axis=(1, 2)) / (total * (total - 1))
        out: FloatArray = np.where(
            (total > 1) & (expected > _FLOOR), 1.0 - observed / expected, np.nan
        )
    return out
