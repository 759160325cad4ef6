"""Agreement within a panel of judges: Fleiss' kappa, Krippendorff's alpha, effective size.

Three questions a jury raises, each answered over a matrix with one row per item and
one column per member:

- **Do the members agree beyond chance?** :func:`fleiss_kappa` over categorical
  verdicts (``"1"``, ``"2"``, ``"tie"``), with a seeded bootstrap interval that
  resamples questions when they are given; :func:`krippendorff_alpha` for scores on
  an ordinal or interval scale, and for data with missing ratings.
- **Who agrees with whom?** :func:`agreement_matrix`: the share of items on which
  each pair of members gave the same label.
- **How many judges is the panel really?** :func:`effective_judges`. Members that
  always say the same thing are one judge however many seats they fill. The
  estimate is the participation ratio of the eigenvalues ``λ`` of the members'
  correlation matrix ``R`` (Bretherton et al. 1999),
  ``N_eff = (Σλ)² / Σλ² = m² / Σ_ij r_ij²``: it is ``m`` when the members are
  uncorrelated and 1 when they are perfectly correlated (or anti-correlated: a judge
  that always says the opposite adds no information either). Its interval is a
  seeded bootstrap over items, or over questions when they are given. Sampling
  noise in a resample's correlations only adds squared terms, so resampled
  estimates lean low: for truly independent members the point estimate sits near
  the top of its interval, and an interval well below ``m`` is the signal to read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Unpack

import numpy as np

from fairjudge._errors import ConfigError, InputError
from fairjudge.stats._intervals import ConfidenceInterval, did_not_vary, wilson_interval
from fairjudge.stats._resample import BootstrapOptions, Resampled, nan_to_none, plan_bootstrap
from fairjudge.stats._validate import FloatArray, check_outcomes

__all__ = [
    "EffectiveJudges",
    "FleissKappa",
    "agreement_matrix",
    "effective_judges",
    "fleiss_kappa",
    "krippendorff_alpha",
]

Metric = Literal["nominal", "ordinal", "interval"]

_LABELS = ("1", "2", "tie")  # the outcome codes' order (check_outcomes)


def _label_matrix(ratings: Sequence[Sequence[str]]) -> np.ndarray[Any, np.dtype[np.intp]]:
    """Outcome codes, ``(items, raters)``; every item rated by the same raters."""
    if not ratings:
        raise InputError("ratings is empty; need at least one item")
    widths = {len(row) for row in ratings}
    if len(widths) != 1 or min(widths) < 2:
        raise InputError(
            f"every item needs the same number (>= 2) of ratings; got row lengths {sorted(widths)}"
        )
    flat = check_outcomes("ratings", [label for row in ratings for label in row])
    return flat.reshape(len(ratings), -1)


@dataclass(frozen=True, slots=True)
class FleissKappa(Resampled):
    """Fleiss' kappa of a panel's categorical verdicts, with a bootstrap interval.

    Attributes:
        kappa: ``(P̄ - P_e) / (1 - P_e)``; NaN when chance agreement is 1 (every
            rating was the same label).
        ci: Percentile bootstrap interval, or why there is none.
        observed: ``P̄``, the mean share of agreeing rater pairs per item.
        expected: ``P_e``, the agreement expected from the label frequencies alone.
        n_items: Items rated.
        n_raters: Raters per item.
    """

    kappa: float
    ci: ConfidenceInterval
    observed: float
    expected: float
    n_items: int
    n_raters: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN becomes ``None``)."""
        return {
            "kappa": nan_to_none(self.kappa),
            "ci": self.ci.to_dict(),
            "observed": self.observed,
            "expected": self.expected,
            "n_items": self.n_items,
            "n_raters": self.n_raters,
            **self.resampling_dict(),
        }

    def summary(self) -> str:
        """One line."""
        size = f"{self.n_items} items, {self.n_raters} raters"
        if math.isnan(self.kappa):  # chance agreement 1: no number, not even 0
            return f"Fleiss' kappa n/a ({self.ci.reason}) ({size})"
        return f"Fleiss' kappa {self.kappa:.3f} {self.ci} ({size})"


def _kappa(sq_sums: FloatArray, counts: FloatArray, items: FloatArray, m: int) -> FloatArray:
    """Kappa from weighted sums: ``(B, 1)`` Σn_ij², ``(B, 3)`` Σn_ij, ``(B,)`` items."""
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (sq_sums[:, 0] - items * m) / (items * m * (m - 1))
        p = counts / (items * m)[:, None]
        expected = (p * p).sum(axis=1)
        out: FloatArray = np.where(expected < 1.0, (observed - expected) / (1.0 - expected), np.nan)
    return out


def kappa_undefined(who: str, label: str, level: float) -> ConfidenceInterval:
    """Why kappa has no value: ``who`` gave every item ``label``, so chance agreement is 1.

    The one place that says it, for Cohen's kappa (``who`` "both raters") and
    Fleiss' (``"all 3 raters"``).
    """
    return ConfidenceInterval.not_estimable(
        f"undefined: {who} gave every item the label {label!r}, so chance agreement "
        "is 1 and kappa, agreement beyond chance, has no value",
        level,
    )


def kappa_when_alike(
    ci: ConfidenceInterval,
    samples: FloatArray,
    kappa: float,
    expected: float,
    n_clusters: int,
    clustered: bool,
    why: str,
) -> ConfidenceInterval:
    """``ci``, or an honest interval when every resample gave the same kappa.

    Kappa is ``(p_o - p_e) / (1 - p_e)``. When the raters agreed on every item,
    every resample gives 1 and the percentile interval is ``[1, 1]``. Then, as for a
    share alike on every question (:func:`._intervals.alike_interval`): none of the
    ``n`` clusters has a disagreement, so at most ``u`` of them do (``u`` the Wilson
    upper bound of 0 of ``n``), each moving the observed agreement at most to 0, so
    ``p_o >= 1 - u`` and, with chance agreement held at its observed ``p_e``,
    ``kappa >= 1 - u / (1 - p_e)`` (above ``-p_e / (1 - p_e)``, kappa's least value,
    since ``u < 1``). Any other kappa that no resample moved (0 from a rater who gave one label
    throughout, whatever the other said) keeps its point, marked
    (:meth:`ConfidenceInterval.alike_point`, ``why`` saying what made it so).
    """
    if not ci.estimable or not did_not_vary(samples):
        return ci
    if kappa < 1.0 - 1e-12:
        return ConfidenceInterval.alike_point(kappa, ci.level, why)
    u = wilson_interval(0.0, n_clusters, ci.level)[1]
    low = 1.0 - u / (1.0 - expected)
    unit = "question" if clustered else "item"
    where = f"every item of all {n_clusters} questions" if clustered else f"all {n_clusters} items"
    note = (
        f"bound from 0/{n_clusters} off full agreement: the raters agreed on {where}, so "
        f"every resample gives kappa 1. None of the "
        f"{n_clusters} {unit}s has a disagreement, so at most {u:.3f} of all {unit}s do (the "
        f"Wilson upper bound of 0 of {n_clusters}), each moving the observed agreement at "
        f"most to 0: it is at least 1 - {u:.3f}, and kappa, with chance agreement held at "
        f"its observed {expected:.3g}, at least 1 - {u:.3f} / (1 - {expected:.3g})"
    )
    if clustered:
        note += ". This assumes questions of similar size: agreement weighs each by its items"
    return ConfidenceInterval(low, 1.0, ci.level, note=note)


def fleiss_kappa(
    ratings: Sequence[Sequence[str]], **options: Unpack[BootstrapOptions]
) -> FleissKappa:
    """Fleiss' kappa over items each rated ``"1"``, ``"2"`` or ``"tie"`` by the same raters.

    Args:
        ratings: One row per item, one label per rater.
        **options: Bootstrap options (``questions``, ``n_resamples``, ``seed``,
            ``level``); give ``questions`` so that items on one question resample
            together.

    Raises:
        InputError: No items, rows of unequal length or fewer than two ratings, or a
            bad label.

    Example:
        >>> fleiss_kappa([["1", "1"], ["2", "2"], ["tie", "tie"]], n_resamples=10).kappa
        1.0
    """
    codes = _label_matrix(ratings)
    n, m = codes.shape
    per_item = np.zeros((n, 3))
    np.add.at(per_item, (np.repeat(np.arange(n), m), codes.ravel()), 1.0)
    plan = plan_bootstrap(n, options)
    k = plan.n_clusters
    sq = np.zeros((k, 1))
    cat = np.zeros((k, 3))
    size = np.zeros(k)
    np.add.at(sq, plan.clusters, (per_item**2).sum(axis=1, keepdims=True))
    np.add.at(cat, plan.clusters, per_item)
    np.add.at(size, plan.clusters, 1.0)
    one = np.ones((1, k))
    point = _kappa(one @ sq, one @ cat, one @ size, m)
    boot = np.concatenate([_kappa(d @ sq, d @ cat, d @ size, m) for d in plan.draws(5 * k)])
    (ci,) = plan.intervals(boot)
    p = per_item.sum(axis=0) / (n * m)
    observed = float(((per_item**2).sum() - n * m) / (n * m * (m - 1)))
    expected = float((p * p).sum())
    if math.isnan(point[0]):  # chance agreement 1: every resample says only "undefined"
        ci = kappa_undefined(f"all {m} raters", _LABELS[int(p.argmax())], plan.level)
    else:
        why = f"every resample gives kappa {float(point[0]):.3g}"
        clustered = plan.n_questions is not None
        ci = kappa_when_alike(ci, boot, float(point[0]), expected, k, clustered, why)
    return FleissKappa(
        kappa=float(point[0]),
        ci=ci,
        observed=observed,
        expected=expected,
        n_items=n,
        n_raters=m,
        **plan.record(),
    )


def agreement_matrix(ratings: Sequence[Sequence[str]]) -> list[list[float]]:
    """Share of items on which raters ``i`` and ``j`` gave the same label (1 on the diagonal).

    Raises:
        InputError: As :func:`fleiss_kappa`.
    """
    codes = _label_matrix(ratings)
    same = (codes[:, :, None] == codes[:, None, :]).mean(axis=0)
    return [[float(x) for x in row] for row in same]


@dataclass(frozen=True, slots=True)
class EffectiveJudges(Resampled):
    """How many independent judges a panel amounts to.

    Attributes:
        estimate: ``m² / Σ_ij r_ij²``, between 1 and ``m``.
        ci: Percentile bootstrap interval of the estimate (items, or questions when
            given, resampled), or why there is none.
        correlation: The members' correlation matrix (a member whose scores never
            vary is correlated 1 with a member that gave the very same scores, and 0
            with any other).
        eigenvalues: Of the correlation matrix, largest first.
        n_members: Members (``m``).
        n_items: Items the scores cover.
    """

    estimate: float
    ci: ConfidenceInterval
    correlation: tuple[tuple[float, ...], ...]
    eigenvalues: tuple[float, ...]
    n_members: int
    n_items: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "estimate": self.estimate,
            "ci": self.ci.to_dict(),
            "correlation": [list(r) for r in self.correlation],
            "eigenvalues": list(self.eigenvalues),
            "n_members": self.n_members,
            "n_items": self.n_items,
            **self.resampling_dict(),
        }

    def summary(self) -> str:
        """One line."""
        return f"{self.estimate:.2f} {self.ci} of {self.n_members} judges ({self.n_items} items)"


def _n_eff(
    sums: FloatArray, cross: FloatArray, apart: FloatArray, weight: FloatArray, m: int
) -> FloatArray:
    """N_eff per resample from weighted sums over the drawn items.

    Args:
        sums: ``(B, m)`` Σx (centred scores).
        cross: ``(B, m, m)`` Σxxᵀ.
        apart: ``(B, m, m)`` Σ(x_i - x_j)² of the raw scores: 0 exactly when two
            members gave the same scores on every drawn item.
        weight: ``(B,)`` items drawn.
        m: Members.

    A member that does not vary within a resample is correlated 1 with a member
    that gave the very same scores on the drawn items, and 0 with any other, as in
    the point estimate.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / weight[:, None]
        cov = cross / weight[:, None, None] - mean[:, :, None] * mean[:, None, :]
        var = np.diagonal(cov, axis1=1, axis2=2)
        varies = var > 1e-12
        sd = np.sqrt(np.where(varies, var, 1.0))
        corr = cov / (sd[:, :, None] * sd[:, None, :])
        same = apart <= 1e-12
        both = varies[:, :, None] & varies[:, None, :]
        corr = np.where(both, corr, same.astype(np.float64))
        eye = np.eye(m, dtype=bool)[None, :, :]
        corr = np.where(eye, 1.0, corr)
        out: FloatArray = np.where(weight > 0, m * m / (corr**2).sum(axis=(1, 2)), np.nan)
    return out


def effective_judges(
    scores: Sequence[Sequence[float]], **options: Unpack[BootstrapOptions]
) -> EffectiveJudges:
    """The effective number of independent judges from their per-item scores.

    Args:
        scores: One row per item, one score per member (for example model 1's score
            from each member's debiased verdict: 1, ½ or 0).
        **options: Bootstrap options (``questions``, ``n_resamples``, ``seed``,
            ``level``) of the interval; give ``questions`` so that items on one
            question resample together.

    Raises:
        InputError: Fewer than two items or members, rows of unequal length, or a
            value that is not finite.

    Example:
        >>> round(effective_judges([[1, 1, 1], [0, 0, 0], [1, 1, 1]]).estimate, 6)
        1.0
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(f"scores must be items x members, at least 2 x 2; got shape {x.shape}")
    if not np.isfinite(x).all():
        raise InputError("scores must be finite numbers")
    n, m = x.shape
    centred = x - x.mean(axis=0)
    sd = np.sqrt((centred**2).sum(axis=0))
    varies = sd > 1e-12
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = (centred.T @ centred) / np.outer(sd, sd)
    for i in range(m):
        for j in range(m):
            if not (varies[i] and varies[j]):
                corr[i, j] = float(i == j or np.array_equal(x[:, i], x[:, j]))
    eig = np.sort(np.linalg.eigvalsh(corr))[::-1]
    estimate = float(m * m / (corr**2).sum())
    plan = plan_bootstrap(n, options)
    k = plan.n_clusters
    # Per-cluster moments; a resample's are its draw counts times these. Centring on
    # the overall means first keeps the cross products well conditioned.
    sums, size = np.zeros((k, m)), np.zeros(k)
    cross, apart = np.zeros((k, m, m)), np.zeros((k, m, m))
    np.add.at(sums, plan.clusters, centred)
    np.add.at(cross, plan.clusters, centred[:, :, None] * centred[:, None, :])
    np.add.at(apart, plan.clusters, (x[:, :, None] - x[:, None, :]) ** 2)
    np.add.at(size, plan.clusters, 1.0)
    boot = np.concatenate(
        [
            _n_eff(
                d @ sums,
                (d @ cross.reshape(k, -1)).reshape(-1, m, m),
                (d @ apart.reshape(k, -1)).reshape(-1, m, m),
                d @ size,
                m,
            )
            for d in plan.draws(k + 4 * m * m)
        ]
    )
    (ci,) = plan.intervals(boot)
    if ci.estimable and did_not_vary(boot):  # say so, not [1, 1] as if measured
        same = all(np.array_equal(x[:, 0], x[:, j]) for j in range(1, m))
        why = (
            f"all {m} members gave the same scores on every item, so every resample gives 1"
            if same
            else f"every resample gives {estimate:.3g}"
        )
        ci = ConfidenceInterval.alike_point(estimate, plan.level, why)
    return EffectiveJudges(
        estimate=estimate,
        ci=ci,
        correlation=tuple(tuple(float(v) for v in row) for row in corr),
        eigenvalues=tuple(float(v) for v in eig),
        n_members=m,
        n_items=n,
        **plan.record(),
    )


def krippendorff_alpha(data: Sequence[Sequence[float | None]], metric: Metric = "nominal") -> float:
    """Krippendorff's alpha over units rated by coders, with missing ratings allowed.

    Args:
        data: One row per unit, one value per coder (``None`` where a coder gave
            none). Units with fewer than two values do not count.
        metric: ``"nominal"`` (labels), ``"ordinal"`` (ranks: rubric levels) or
            ``"interval"`` (differences matter).

    Returns:
        ``1 - D_o / D_e``; NaN when no disagreement is expected (one value overall).

    Raises:
        ConfigError: An unknown metric.
        InputError: No unit has two values.

    Example:
        >>> krippendorff_alpha([[1, 1], [2, 2], [3, None]])
        1.0
    """
    check_metric(metric)
    per_unit, values, _ = coincidences(data)
    return alpha_value(per_unit.sum(axis=0), values, metric, floor=0.0)


def check_metric(metric: str) -> None:
    """Refuse an unknown Krippendorff metric."""
    if metric not in ("nominal", "ordinal", "interval"):
        raise ConfigError(f"metric must be nominal, ordinal or interval; got {metric!r}")


def coincidences(
    data: Sequence[Sequence[float | None]],
) -> tuple[FloatArray, FloatArray, list[int]]:
    """Each pairable unit's coincidence matrix ``(U, V, V)``, the values ``(V,)``, their rows.

    Units (rows of ``data``) with fewer than two values are dropped.

    Raises:
        InputError: No unit has two values.
    """
    read = [[float(v) for v in row if v is not None] for row in data]
    rows = [k for k, unit in enumerate(read) if len(unit) >= 2]
    if not rows:
        raise InputError("krippendorff_alpha needs at least one unit with two values")
    sizes = np.asarray([len(read[k]) for k in rows])
    values, codes = np.unique([v for k in rows for v in read[k]], return_inverse=True)
    counts = np.zeros((len(rows), values.size))
    np.add.at(counts, (np.repeat(np.arange(len(rows)), sizes), codes.ravel()), 1.0)
    per_unit = counts[:, :, None] * counts[:, None, :]  # each unit's outer(c, c) - diag(c)
    per_unit[:, np.arange(values.size), np.arange(values.size)] -= counts
    per_unit /= (sizes - 1)[:, None, None]
    return per_unit, values, rows


def alpha_value(
    coincidence: FloatArray, values: FloatArray, metric: Metric, *, floor: float
) -> float:
    """``1 - D_o / D_e`` from a coincidence matrix; NaN unless ``D_e > floor``."""
    n_c = coincidence.sum(axis=1)
    total = n_c.sum()
    if total <= 1:
        return float("nan")
    delta = _delta(values, n_c, metric)
    observed = (coincidence * delta).sum() / total
    expected = (np.outer(n_c, n_c) * delta).sum() / (total * (total - 1))
    return float(1.0 - observed / expected) if expected > floor else float("nan")


def _delta(values: FloatArray, n_c: FloatArray, metric: Metric) -> FloatArray:
    """The squared difference function of the metric, ``(V, V)``."""
    if metric == "nominal":
        out: FloatArray = 1.0 - np.eye(values.size)
        return out
    if metric == "interval":
        return np.subtract.outer(values, values) ** 2
    cum = np.cumsum(n_c)  # ordinal: ranks between the two values, halves at the ends
    lo = np.minimum.outer(np.arange(values.size), np.arange(values.size))
    hi = np.maximum.outer(np.arange(values.size), np.arange(values.size))
    between = cum[hi] - np.where(lo > 0, cum[lo - 1], 0.0)
    return (between - (n_c[lo] + n_c[hi]) / 2.0) ** 2
