"""Agreement between a judge's pairwise verdicts and human labels.

Three views, for three kinds of human labels (the last two in :mod:`._rank_stats`
and below):

- **Pairwise verdicts** (``"1"``, ``"2"``, ``"tie"``): :func:`judge_agreement` gives
  MT-Bench's two agreement rates (Zheng et al. 2023, section 4.2). Setup S1 keeps
  every item, ties included, so chance agreement is about 1/3; setup S2 keeps only
  the items where *both* the judge and the human picked a winner, so chance is 1/2.
  The judge's verdict is the debiased one: a pair of calls that disagree after the
  swap counts as a tie. Also Cohen's kappa, which discounts chance agreement, and
  the confusion matrix.
- **Scores** (say 1 to 10): :func:`.score_correlation` gives Spearman and Kendall
  correlations with bootstrap intervals, and a pass/fail gate: Spearman >= 0.7 by
  default, the rule of thumb for trusting a judge prompt before using it at scale.
- **Rankings of systems**: :func:`.system_agreement` fits Bradley-Terry ratings on
  the judge's verdicts and on the humans' verdicts over the same battles and
  correlates the two rankings, bootstrapping battles (or questions) jointly so the
  interval reflects both fits' uncertainty.

Krippendorff's alpha with a seeded bootstrap interval, clustered by question.

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

System-level agreement: does the judge rank the systems as the humans do?

Bradley-Terry ratings are fitted on the judge's verdicts and on the humans'
verdicts over the same battles, and the two rankings are correlated, with battles
(or questions) resampled jointly so that the interval carries both fits'
uncertainty.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import scipy.sparse as sp

from fairjudge._errors import InputError
from fairjudge.stats._bradley_terry import bt_lbfgs
from fairjudge.stats._bt_data import encode_battles, identify, pair_data
from fairjudge.stats._bt_solvers import bt_newton
from fairjudge.stats._intervals import ConfidenceInterval, did_not_vary, wilson_when_alike
from fairjudge.stats._leaderboard import ELO_SCALE
from fairjudge.stats._panel import (
    Metric,
    alpha_value,
    check_metric,
    coincidences,
    kappa_undefined,
    kappa_when_alike,
)
from fairjudge.stats._position_bias import Proportion
from fairjudge.stats._rank_stats import RankCorrelation, correlation_fields, rank_corr_rows
from fairjudge.stats._resample import BootstrapOptions, Resampled, nan_to_none, plan_bootstrap
from fairjudge.stats._validate import (
    FloatArray,
    check_non_negative,
    check_outcomes,
    check_same_length,
)

__all__ = [
    "AgreementResult",
    "ConfusionMatrix",
    "KrippendorffAlpha",
    "SystemAgreementResult",
    "judge_agreement",
    "krippendorff_alpha_ci",
    "system_agreement",
]


_LABELS = ("1", "2", "tie")


@dataclass(frozen=True, slots=True)
class ConfusionMatrix:
    """Counts of (human, judge) label pairs.

    Attributes:
        labels: Row and column order: ``("1", "2", "tie")``.
        counts: ``counts[i][j]``: items the human labelled ``labels[i]`` and the
            judge ``labels[j]``.
    """

    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: rows are human labels, columns judge labels."""
        return {
            "labels": list(self.labels),
            "rows": "human",
            "columns": "judge",
            "counts": [list(r) for r in self.counts],
        }

    def __str__(self) -> str:
        head = "human\\judge " + " ".join(f"{lab:>5}" for lab in self.labels)
        rows = [
            f"{lab:>11} " + " ".join(f"{c:>5}" for c in row)
            for lab, row in zip(self.labels, self.counts, strict=True)
        ]
        return "\n".join([head, *rows])


@dataclass(frozen=True, slots=True)
class AgreementResult(Resampled):
    """Judge-human agreement on pairwise verdicts.

    The bootstrap's options (``n_questions``, ``n_resamples``, ``seed``, ``level``)
    are described on :class:`._resample.Resampled`.

    Attributes:
        s1: MT-Bench setup S1: share of items where judge and human agree, ties
            included.
        s2: Setup S2: the same over items where neither said tie (NaN if none).
        kappa: Cohen's kappa over the three labels (NaN when chance agreement is 1).
        kappa_ci: Its bootstrap interval, or why there is none.
        confusion: Human-by-judge counts.
        n: Items.
    """

    s1: Proportion
    s2: Proportion
    kappa: float
    kappa_ci: ConfidenceInterval
    confusion: ConfusionMatrix
    n: int

    def summary(self) -> str:
        """Both agreement rates, kappa and the confusion matrix."""
        return "\n".join(
            [
                f"Judge-human agreement on {self.n} items "
                f"({self.n_resamples} resamples, seed {self.seed})",
                f"  S1 (with ties)   {self.s1}",
                f"  S2 (no ties)     {self.s2}",
                f"  Cohen's kappa    {self.kappa_text()}",
                str(self.confusion),
            ]
        )

    def kappa_text(self) -> str:
        """Kappa and its interval, or ``n/a (undefined: why)`` where it has no value."""
        if math.isnan(self.kappa):  # chance agreement 1: no number, not even 0
            return f"n/a ({self.kappa_ci.reason})"
        return f"{self.kappa:.3f} {self.kappa_ci}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "s1": self.s1.to_dict(),
            "s2": self.s2.to_dict(),
            "kappa": nan_to_none(self.kappa),
            "kappa_ci": self.kappa_ci.to_dict(),
            "confusion": self.confusion.to_dict(),
            "n": self.n,
            **self.resampling_dict(),
        }


def _agreement_stats(conf: FloatArray) -> FloatArray:
    """S1, S2 and kappa from ``(B, 3, 3)`` weighted confusion matrices -> ``(B, 3)``."""
    total = conf.sum(axis=(1, 2))
    agree = np.trace(conf, axis1=1, axis2=2)
    decided = conf[:, :2, :2].sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        s1 = agree / total
        s2 = (conf[:, 0, 0] + conf[:, 1, 1]) / decided
        p_e = (conf.sum(axis=2) * conf.sum(axis=1)).sum(axis=1) / (total * total)
        kappa = np.where(p_e < 1.0, (s1 - p_e) / (1.0 - p_e), np.nan)
    return np.stack([s1, s2, kappa], axis=1)


def _kappa_ci(
    ci: ConfidenceInterval, samples: FloatArray, conf: Any, n_clusters: int, clustered: bool
) -> ConfidenceInterval:
    """Cohen's kappa's interval: why it is undefined, or honest when no resample moved it."""
    total = conf.sum()
    p_e = float((conf.sum(axis=1) * conf.sum(axis=0)).sum() / (total * total))
    if p_e >= 1.0:  # chance agreement 1: every resample says only "undefined"
        return kappa_undefined("both raters", _LABELS[int(conf.argmax()) % 3], ci.level)
    kappa = (float(np.trace(conf)) / total - p_e) / (1.0 - p_e)
    sides = {"human": conf.sum(axis=1), "judge": conf.sum(axis=0)}
    one = [who for who, used in sides.items() if (used > 0).sum() == 1]
    why = f"every resample gives kappa {kappa:.3g}"
    if one and abs(kappa) <= 1e-12:
        why = f"the {one[0]} gave every item one label, so kappa is 0 whatever the other said"
    return kappa_when_alike(ci, samples, kappa, p_e, n_clusters, clustered, why)


def judge_agreement(
    judge: Sequence[str],
    human: Sequence[str],
    **options: Unpack[BootstrapOptions],
) -> AgreementResult:
    """MT-Bench agreement (S1, S2), Cohen's kappa and the confusion matrix, with CIs.

    Args:
        judge: The judge's resolved verdict per item: ``"1"``, ``"2"`` or ``"tie"``;
            a swap-inconsistent pair of calls must already be a tie.
        human: The human label per item, same vocabulary.
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`); give ``questions`` when several
            humans labelled the same item, one row each.

    Returns:
        The agreement figures.

    Raises:
        InputError: Mismatched lengths, a bad label, or no items.
        ConfigError: A bad option.

    Example:
        >>> r = judge_agreement(["1", "2", "tie", "1"], ["1", "1", "tie", "1"], n_resamples=50)
        >>> r.s1.estimate, r.s2.estimate
        (0.75, 0.6666666666666666)
    """
    n = check_same_length(judge=judge, human=human)
    if n == 0:
        raise InputError("judge and human are empty; agreement needs labelled items")
    j = check_outcomes("judge", judge)
    h = check_outcomes("human", human)
    plan = plan_bootstrap(n, options)
    cell = 3 * h + j
    per_cluster = np.zeros((plan.n_clusters, 9))
    np.add.at(per_cluster, (plan.clusters, cell), 1.0)
    point = per_cluster.sum(axis=0)
    est = _agreement_stats(point.reshape(1, 3, 3))[0]
    boot = np.concatenate(
        [
            _agreement_stats((draws @ per_cluster).reshape(-1, 3, 3))
            for draws in plan.draws(2 * plan.n_clusters)
        ]
    )
    s1_ci, s2_ci, kappa_ci = plan.intervals(boot)
    conf = point.reshape(3, 3).astype(int)
    decided = int(conf[:2, :2].sum())
    # A share alike in every cluster (that has its items): alike_interval on those.
    cells = per_cluster.reshape(-1, 3, 3)
    clustered = plan.n_questions is not None
    s1_shares = np.trace(cells, axis1=1, axis2=2) / cells.sum(axis=(1, 2))
    s1_ci = wilson_when_alike(s1_ci, s1_shares, float(est[0]), clustered)
    by_cluster = cells[:, :2, :2].sum(axis=(1, 2))
    has = by_cluster > 0
    s2_shares = (cells[:, 0, 0] + cells[:, 1, 1])[has] / by_cluster[has]
    s2_ci = wilson_when_alike(s2_ci, s2_shares, float(est[1]), clustered)
    if not decided and not plan.reason:  # S2 of no item: why, not the resamples' "undefined"
        s2_ci = ConfidenceInterval.not_estimable("no item where neither rater said tie", plan.level)
    return AgreementResult(
        s1=Proportion(float(est[0]), s1_ci, int(np.trace(conf)), n),
        s2=Proportion(float(est[1]), s2_ci, int(conf[0, 0] + conf[1, 1]), decided),
        kappa=float(est[2]),
        kappa_ci=_kappa_ci(kappa_ci, boot[:, 2], conf, plan.n_clusters, clustered),
        confusion=ConfusionMatrix(_LABELS, tuple(tuple(int(c) for c in r) for r in conf)),
        n=n,
        **plan.record(),
    )


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
    boot = np.concatenate(
        [
            _alphas(
                (draws @ per_cluster.reshape(plan.n_clusters, -1)).reshape(-1, size, size),
                values,
                metric,
            )
            for draws in plan.draws(plan.n_clusters + 2 * size * size)
        ]
    )
    (ci,) = plan.intervals(boot)
    if ci.estimable and did_not_vary(boot):  # say so, not [1, 1] as if measured
        why = (
            "every unit's values agree, so every resample gives alpha 1"
            if point >= 1.0 - 1e-12
            else f"every resample gives alpha {point:.3g}"
        )
        ci = ConfidenceInterval.alike_point(point, plan.level, why)
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


@dataclass(frozen=True, slots=True)
class SystemAgreementResult(RankCorrelation):
    """How well the judge's ranking of systems matches the humans' ranking.

    ``spearman`` and ``kendall`` correlate the two sets of Bradley-Terry ratings;
    they and the bootstrap's options are described on
    :class:`._rank_stats.RankCorrelation`.

    Attributes:
        judge_ratings: ``(model, rating)`` from the judge's verdicts, Elo scale,
            mean 1000, best first.
        human_ratings: The same from the human labels.
        n_models: Systems ranked.
        n_battles: Battles with both a judge verdict and a human label.
    """

    judge_ratings: tuple[tuple[str, float], ...]
    human_ratings: tuple[tuple[str, float], ...]
    n_models: int
    n_battles: int

    def summary(self) -> str:
        """The two rankings side by side and their correlations."""
        width = max(5, *(len(m) for m, _ in self.judge_ratings))
        human = dict(self.human_ratings)
        lines = [
            f"System-level agreement: {self.n_models} systems, {self.n_battles} battles "
            f"({self.n_resamples} resamples, seed {self.seed})",
            *self.correlation_lines(),
            f"  {'model':<{width}}  {'judge':>7}  {'human':>7}",
        ]
        lines += [f"  {m:<{width}}  {r:7.1f}  {human[m]:7.1f}" for m, r in self.judge_ratings]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            **self.correlation_dict(),
            "judge_ratings": [{"model": m, "rating": r} for m, r in self.judge_ratings],
            "human_ratings": [{"model": m, "rating": r} for m, r in self.human_ratings],
            "n_models": self.n_models,
            "n_battles": self.n_battles,
        }


def system_agreement(
    model_a: Sequence[str],
    model_b: Sequence[str],
    judge: Sequence[str],
    human: Sequence[str],
    *,
    l2: float = 0.0,
    **options: Unpack[BootstrapOptions],
) -> SystemAgreementResult:
    """Correlate the system ranking implied by the judge with the one implied by humans.

    Both rankings are Bradley-Terry fits (ties as half a win) on the same battles;
    each bootstrap round resamples battles (or questions) once and refits both. A
    system that draws no battle in a round keeps its full-data rating there.

    Args:
        model_a: The first system of each battle.
        model_b: The second system of each battle.
        judge: The judge's verdict per battle: ``"1"``, ``"2"`` or ``"tie"``.
        human: The human label per battle, same vocabulary.
        l2: Ridge strength of both fits (needed when a system never lost).
        **options: Bootstrap options: ``questions``, ``n_resamples``, ``seed``, ``level``
            (see :class:`._resample.BootstrapOptions`); each round resamples once
            for both fits.

    Returns:
        The correlations with their intervals, and both sets of ratings.

    Raises:
        InputError: Bad battles, fewer than 3 systems, or ratings that are not
            identified (see :func:`bradley_terry`).
        ConfigError: A bad option.
    """
    models, a, b, j_codes = encode_battles(model_a, model_b, judge)
    check_same_length(model_a=model_a, human=human)
    h_codes = check_outcomes("human", human)
    if len(models) < 3:
        raise InputError(f"model_a/model_b name {len(models)} systems; a ranking needs at least 3")
    l2 = check_non_negative("l2", l2)
    n, m = len(models), a.size
    plan = plan_bootstrap(m, options)
    fits = []
    for name, codes in (("judge", j_codes), ("human", h_codes)):
        data = pair_data(n, a, b, codes)
        identify(data, models, 0, l2, name=name)
        fits.append((data, bt_lbfgs(data.first, data.second, data.counts, n, l2)))
    point = rank_corr_rows(fits[0][1][None], fits[1][1][None])[0]

    cells = [
        sp.csr_array(
            (np.ones(m), (plan.clusters, data.cells)), shape=(plan.n_clusters, data.n_cells)
        )
        for data, _ in fits
    ]
    boot: list[FloatArray] = []
    for draws in plan.draws(2 * plan.n_clusters + 2 * n * n):
        thetas = []
        for (data, start), c in zip(fits, cells, strict=True):
            counts = np.asarray((c.T @ draws.T).T).reshape(draws.shape[0], -1, 3)
            theta, _ = bt_newton(data.first, data.second, counts, start, l2=l2)
            thetas.append(theta)
        boot.append(rank_corr_rows(thetas[0], thetas[1]))

    def board(theta: FloatArray) -> tuple[tuple[str, float], ...]:
        elo = 1000.0 + ELO_SCALE * (theta - theta.mean())
        order = sorted(range(n), key=lambda i: (-elo[i], models[i]))
        return tuple((models[i], float(elo[i])) for i in order)

    return SystemAgreementResult(
        **correlation_fields(point, np.concatenate(boot), plan),
        judge_ratings=board(fits[0][1]),
        human_ratings=board(fits[1][1]),
        n_models=n,
        n_battles=m,
    )
